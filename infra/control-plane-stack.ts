// The fleet's control-plane stack: network and cluster, the workspaces file system, the
// DynamoDB tables, the control-plane secrets, the Lambda functions with their Function
// URLs and alarms, the schedule group and what schedules invoke through. Nothing in it
// names an agent, so agents come and go without touching it (except through the config
// the functions route by).
import { Annotations, CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { clusterName, CONTROL_PLANE_COST_TAG, COST_TAGS, dashboardSecretName, hooksSecretName, scheduleGroupName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { DASHBOARD_TOKEN_NAME } from '../shared/dashboard/auth.ts';
import type { FleetAppOptions } from './app-options.ts';
import { ControlFunctions, cronDispatchArn, type ControlFunctionSpec } from './constructs/control-functions.ts';
import { CronInvoker } from './constructs/cron-invoker.ts';
import { EmptySecret } from './constructs/empty-secret.ts';
import { FleetNetwork } from './constructs/fleet-network.ts';
import { FleetTables } from './constructs/fleet-tables.ts';
import { SharedParameters } from './constructs/shared-resources.ts';
import { WorkspaceStaging } from './constructs/workspace-staging.ts';
import { MediaBucket } from './constructs/media-bucket.ts';
import { planReservedConcurrency, type ReservedConcurrencyPlan } from './reserved-concurrency.ts';
import { runtimeEgressPorts } from './runtime-egress.ts';
import { telegramAccountsBySecret } from '../shared/secrets/telegram-secrets.ts';
import { fleetSubnetPlan } from './fleet-subnets.ts';
import { TaskExecutionRole } from './constructs/task-execution-role.ts';
import { OperatorAlarms } from './constructs/operator-alarms.ts';
import { settleCustomResourceProviders } from './constructs/custom-resource-providers.ts';

export interface ControlPlaneStackProps extends StackProps {
  config: FleetConfig;
  options: FleetAppOptions;
  /** The clawfleet.json `config` was parsed from, copied into the function bundles. */
  configFile: string | undefined;
  functions?: readonly ControlFunctionSpec[];
}

export class ControlPlaneStack extends Stack {
  readonly network: FleetNetwork;
  readonly tables: FleetTables;
  readonly taskExecutionRole: iam.Role;
  /** The topic every alarm notifies, and its subscribers. */
  readonly alarms: OperatorAlarms;
  /** The bot tokens' secrets (none without Telegram). */
  readonly telegramSecrets: EmptySecret[];
  readonly hooksSecret: EmptySecret | undefined;
  readonly dashboardSecret: EmptySecret;
  readonly cronInvoker: CronInvoker;
  readonly functions: ControlFunctions;
  readonly scheduleGroup: scheduler.CfnScheduleGroup;
  readonly staging: WorkspaceStaging;
  /** Attachments and agents' files (#16). */
  readonly media: MediaBucket;
  /** What the functions reserve of the account's Lambda concurrency, and why (said in the synth output). */
  readonly concurrency: ReservedConcurrencyPlan;

  constructor(scope: Construct, id: string, props: ControlPlaneStackProps) {
    super(scope, id, props);
    const { config, options } = props;
    const fleet = config.fleet;
    const logRetention = options.logRetentionDays as logs.RetentionDays;

    this.network = new FleetNetwork(this, 'Network', {
      fleet,
      emulator: options.emulator,
      logRetention,
      egressPorts: runtimeEgressPorts(config),
      subnets: fleetSubnetPlan(config),
    });
    this.tables = new FleetTables(this, 'Tables', { fleet });
    // Before any alarm: every alarm of the fleet notifies this topic (operatorAlarm).
    this.alarms = OperatorAlarms.create(this, { fleet, email: config.operator?.email });
    // What ECS pulls every agent task's image and ships its logs with (the agent stacks name it).
    this.taskExecutionRole = new TaskExecutionRole(this, 'TaskExecution', { fleet }).role;
    // One secret of bot tokens up to 400 bots, more beyond (shared/secrets/telegram-secrets.ts);
    // the first keeps its construct id, so a fleet that grows keeps its first secret.
    const telegram = config.channels.telegram;
    this.telegramSecrets = telegram
      ? [...telegramAccountsBySecret(config)].map(
          ([secretName, accounts], shard) =>
            new EmptySecret(this, shard === 0 ? 'TelegramSecret' : `TelegramSecret${shard}`, {
              secretName,
              description: `clawfleet ${fleet}: Telegram bot tokens by name (${listed(accounts.map((id) => telegram.accounts[id]!.botTokenSecret))})`,
              rotation: 'telegram',
            }),
        )
      : [];
    this.hooksSecret = config.hooks
      ? new EmptySecret(this, 'HooksSecret', {
          secretName: hooksSecretName(fleet),
          description: `clawfleet ${fleet}: the token HTTP hook callers present (${config.hooks.tokenSecret})`,
          rotation: 'hooks',
        })
      : undefined;
    this.dashboardSecret = new EmptySecret(this, 'DashboardSecret', {
      secretName: dashboardSecretName(fleet),
      description: `clawfleet ${fleet}: the dashboard's login token (${DASHBOARD_TOKEN_NAME})`,
      rotation: 'dashboard',
    });

    // Cron jobs and heartbeats become schedules in this group, as do scheduled functions.
    this.scheduleGroup = new scheduler.CfnScheduleGroup(this, 'Schedules', { name: scheduleGroupName(fleet) });
    this.cronInvoker = new CronInvoker(this, 'CronInvoker', { fleet, functionArn: cronDispatchArn(this, fleet) });
    // The agent stacks find the network, file system and scheduler role through these.
    new SharedParameters(this, 'Shared', { fleet, network: this.network, schedulerRole: this.cronInvoker.role, subnets: fleetSubnetPlan(config).subnets });
    // Workspaces on their way in and out of EFS (`clawfleet workspace push|pull`).
    this.staging = new WorkspaceStaging(this, 'WorkspaceStaging', { fleet });
    // Attachments on their way to agents, and the files agents send (#16).
    this.media = new MediaBucket(this, 'Media', { fleet, expireDays: config.media?.expireDays });

    this.concurrency = planReservedConcurrency(config, options.lambdaConcurrency, options.reservedConcurrency);
    Annotations.of(this).addInfo(this.concurrency.summary);
    this.functions = new ControlFunctions(this, 'Functions', {
      scheduleGroupName: this.scheduleGroup.ref,
      config,
      configFile: props.configFile,
      grantContext: {
        fleet,
        stack: this,
        tables: this.tables.tables,
        telegramSecrets: this.telegramSecrets,
        hooksSecret: this.hooksSecret,
        dashboardSecret: this.dashboardSecret,
        schedulerRole: this.cronInvoker.role,
        schedulesDeadLetterArn: this.cronInvoker.deadLetters.queueArn,
        mediaBucket: this.media.bucket,
      },
      logRetention,
      reserved: this.concurrency.reserved,
      ...(props.functions ? { specs: props.functions } : {}),
    });

    const alerts = this.functions.functions.get('operator-alerts');
    if (alerts) this.alarms.subscribe(alerts);
    new CfnOutput(this, 'AlarmsTopicArn', { value: this.alarms.topic.topicArn, description: 'SNS topic every alarm of the fleet notifies' });
    new CfnOutput(this, 'ClusterName', { value: clusterName(fleet), description: 'ECS cluster of the agent runtimes' });
    // Last, once every construct that may add a custom-resource provider has.
    settleCustomResourceProviders(this, {
      retention: logRetention,
      logGroupName: (provider) => `/clawfleet/${fleet}/custom-resources/${provider}`,
      tags: { [COST_TAGS.fleet]: fleet, [COST_TAGS.agent]: CONTROL_PLANE_COST_TAG },
    });
  }
}

/** A short list for a description (CloudFormation caps them at 2048 characters). */
function listed(names: string[], max = 8): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
