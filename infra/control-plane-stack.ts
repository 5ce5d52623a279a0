// The fleet's control-plane stack: network and cluster, the workspaces file system, the
// DynamoDB tables, the control-plane secrets, the Lambda functions with their Function
// URLs and alarms, and the schedule group. Nothing in it names an agent, so agents come
// and go without touching it (except through the config the functions route by).
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import type { Construct } from 'constructs';
import { clusterName, scheduleGroupName, telegramSecretName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { FleetAppOptions } from './app-options.ts';
import { ControlFunctions, type ControlFunctionSpec } from './constructs/control-functions.ts';
import { EmptySecret } from './constructs/empty-secret.ts';
import { FleetNetwork } from './constructs/fleet-network.ts';
import { FleetTables } from './constructs/fleet-tables.ts';

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
  readonly telegramSecret: EmptySecret | undefined;
  readonly functions: ControlFunctions;
  readonly scheduleGroup: scheduler.CfnScheduleGroup;

  constructor(scope: Construct, id: string, props: ControlPlaneStackProps) {
    super(scope, id, props);
    const { config, options } = props;
    const fleet = config.fleet;
    const logRetention = options.logRetentionDays as logs.RetentionDays;

    this.network = new FleetNetwork(this, 'Network', { fleet, emulator: options.emulator, logRetention });
    this.tables = new FleetTables(this, 'Tables', { fleet });
    this.telegramSecret = config.channels.telegram
      ? new EmptySecret(this, 'TelegramSecret', {
          secretName: telegramSecretName(fleet),
          description: `clawfleet ${fleet}: Telegram bot tokens by name (${listed(Object.values(config.channels.telegram.accounts).map((a) => a.botTokenSecret))})`,
        })
      : undefined;

    // Cron jobs and heartbeats become schedules in this group, as do scheduled functions.
    this.scheduleGroup = new scheduler.CfnScheduleGroup(this, 'Schedules', { name: scheduleGroupName(fleet) });

    this.functions = new ControlFunctions(this, 'Functions', {
      scheduleGroupName: this.scheduleGroup.ref,
      config,
      configFile: props.configFile,
      grantContext: { fleet, stack: this, tables: this.tables.tables, telegramSecret: this.telegramSecret },
      logRetention,
      ...(props.functions ? { specs: props.functions } : {}),
    });

    new CfnOutput(this, 'ClusterName', { value: clusterName(fleet), description: 'ECS cluster of the agent runtimes' });
  }
}

/** A short list for a description (CloudFormation caps them at 2048 characters). */
function listed(names: string[], max = 8): string {
  return names.length <= max ? names.join(', ') : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
}
