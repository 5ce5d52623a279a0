// The control plane's Lambda functions: one per handler file in functions/, each bundled
// by esbuild (ESM, Node 24, arm64, AWS SDK included, split into index.mjs and the chunks it
// loads on demand: function-bundling.ts) with the fleet config copied beside it, with its own role holding only the grants it lists, its own log group, alarms, and
// (where the account can give it: infra/reserved-concurrency.ts) a concurrency of its own.
// Adding a handler is one line in CONTROL_FUNCTIONS.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { ArnFormat, AssetHashType, CfnOutput, DockerImage, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionLogGroupName, functionName } from '../../shared/config/names.ts';
import { operatorChat } from '../../shared/config/operator-chat.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { REPO_ROOT } from '../app-options.ts';
import { functionAssetHash } from '../config-bundle.ts';
import { acknowledge } from '../nag.ts';
import { BUILD_SETTINGS, bundleFunction } from './function-bundling.ts';
import { operatorAlarm } from './operator-alarms.ts';
import { GRANT_ENVIRONMENT, GRANT_WILDCARDS, GRANTS, wildcardFinding, type GrantContext, type GrantName } from './control-function-grants.ts';

export interface ControlFunctionSpec {
  /** The handler file functions/<name>.ts; also the function's name after the fleet's. */
  name: string;
  /** Serve a Function URL (authenticated by the handler itself, e.g. Telegram's secret token). */
  url?: boolean;
  timeoutSeconds: number;
  memoryMb?: number;
  /** Invoke on this EventBridge Scheduler expression (in the fleet's schedule group). */
  schedule?: string;
  /** Deploy only for fleets that use it (default: always). */
  when?: (config: FleetConfig) => boolean;
  /** Environment beyond the config file (what control-plane.ts reads). */
  environment?: (ctx: GrantContext) => Record<string, string>;
  grants: readonly GrantName[];
  /**
   * Invoked asynchronously by the other functions: Lambda retries a failed event this
   * often, drops it after this age, and sends what fails, with its error, to a DLQ of the
   * function's own (`<fleet>-<name>-dlq`, alarmed).
   */
  asyncInvoke?: { retryAttempts: number; maxEventAgeSeconds: number };
  /**
   * Log lines carrying `"metric": "<name>"` become CloudWatch metrics (per agent); an alarm
   * fires at `alarmAt` or more in 5 minutes where one is given.
   */
  logMetrics?: readonly { name: string; alarmAt?: number; description?: string }[];
}

/** The largest fleet whose control-plane log metrics get an Agent dimension: under the 1,000 pairs an hour that disable a filter, with room. */
export const MAX_AGENTS_WITH_METRIC_DIMENSION = 900;

/** λ outbox's timeout: the 120 s upload of a 50 MB file, up to 30 s reading it from S3, and 30 s for the batch's other records. */
export const OUTBOX_TIMEOUT_SECONDS = 180;

/** Telling a sleeping agent it has work: record the activity, then ask λ compute for desired count 1. */
const WAKE = ['trackAgents', 'askAgentCompute'] as const;

export const CONTROL_FUNCTIONS = [
  {
    name: 'telegram-webhook',
    url: true,
    // An attachment (up to Telegram's 20 MB) is fetched before the update is answered (#16):
    // 1–3 s from Telegram's file servers, with room for a slow one.
    timeoutSeconds: 30,
    when: (config) => config.channels.telegram !== undefined,
    // readAgents, readSessions, readInboxDepths: /status and /stop are answered here, from the registry and the queue, without waking the agent.
    grants: [
      'readTelegramSecret',
      'admitInbound',
      'requestPairings',
      'recordSessions',
      'recordOrigins',
      'findSentMessages',
      'sendToAgentInboxes',
      'storeInboundMedia',
      ...WAKE,
      'readAgents',
      'readSessions',
      'readInboxDepths',
      // Budgets (#31): a metered agent's message is checked against its spend, and /status says it.
      'readSpend',
    ],
  },
  {
    name: 'hooks',
    url: true,
    timeoutSeconds: 10,
    when: (config) => config.hooks !== undefined,
    grants: ['readHooksSecret', 'admitInbound', 'readSessions', 'recordSessions', 'recordOrigins', 'sendToAgentInboxes', 'readSpend', ...WAKE],
  },
  {
    name: 'outbox',
    // A file an agent sends (#16) is read whole from S3 (up to Telegram's 50 MB upload limit)
    // and uploaded with a 120 s budget (shared/adapters/telegram/bot-api.ts): one worst-case
    // file, its S3 read and the rest of its batch's text must fit in one invocation, or the
    // batch is handed out again and the file is sent twice. The outbox queues' visibility
    // follows at six times this (agent-queues.ts).
    timeoutSeconds: OUTBOX_TIMEOUT_SECONDS,
    // The file is held in memory up to three times (its S3 body, the upload's Blob, the
    // multipart request being written): 150 MB beside Node's own ~80 MB does not fit 256 MB.
    memoryMb: 512,
    // Every refused envelope (another agent's session, a forbidden relay, a forged sender…)
    // is counted; any at all is worth a look, since a correct runtime never sends one.
    logMetrics: [{ name: 'OutboxRejected', alarmAt: 1, description: 'A runtime sent an envelope the control plane refused' }],
    // Agents' own cron jobs become schedules invoking λ cron-dispatch through the scheduler role.
    environment: (ctx) => ({
      CLAWFLEET_CRON_FUNCTION_ARN: cronDispatchArn(ctx.stack, ctx.fleet),
      CLAWFLEET_SCHEDULER_ROLE_ARN: ctx.schedulerRole.roleArn,
      CLAWFLEET_SCHEDULES_DLQ_ARN: ctx.schedulesDeadLetterArn,
    }),
    grants: [
      'readTelegramSecret',
      // A reply goes to the origin of the inbound it answers; a relay carries that origin on.
      'answerByOrigins',
      // A session's last direct route: one whose user blocked the bot is marked so.
      'readSessions',
      'recordSessions',
      'claimDeliveries',
      'consumeOutboxes',
      'sendToOutboxDeadLetters',
      // agent_send relayed into the target agent's inbound queue.
      'sendToAgentInboxes',
      'manageAgentSchedules',
      // Files agents send (#16), from their out/ prefixes.
      'readOutboundMedia',
      // Budgets (#31): usage reports counted; a question for an agent over its cap answered for it.
      'countSpend',
      ...WAKE,
    ],
  },
  {
    name: 'cron-dispatch',
    timeoutSeconds: 15,
    // readSpend: a metered agent's jobs and heartbeats pause while its cap is reached (#31).
    grants: ['readSessions', 'recordSessions', 'recordOrigins', 'sendToAgentInboxes', 'readSpend', ...WAKE],
  },
  {
    name: 'health',
    timeoutSeconds: 50,
    schedule: 'rate(1 minute)',
    grants: ['readAgents', 'readInboxDepths', ...WAKE],
    logMetrics: [{ name: 'RuntimeRestarts' }, { name: 'AgentHibernated' }, { name: 'AgentWoken' }],
  },
  {
    name: 'dashboard',
    url: true,
    timeoutSeconds: 20,
    grants: ['readDashboardSecret', 'readAgents', 'readMetrics', 'approvePairings', 'listSessions', 'readQueueFigures', 'readSpend', ...WAKE],
  },
  {
    // The one holder of ecs:UpdateService (shared/control/compute-request.ts); the others ask it.
    name: 'compute',
    timeoutSeconds: 15,
    // A wake older than 10 minutes is moot: the health tick has acted on the agent by then.
    asyncInvoke: { retryAttempts: 2, maxEventAgeSeconds: 600 },
    grants: ['readAgents', 'holdAgentCompute'],
  },
  {
    // Subscribed to the fleet's alarm topic: each alarm's state change, once, to the operator's
    // Telegram chat (operator.telegram), deduplicated and rate-limited in the deliveries table.
    name: 'operator-alerts',
    timeoutSeconds: 30,
    when: (config) => operatorChat(config) !== undefined,
    // SNS invokes it asynchronously: a send Telegram refused for now is tried twice more; what
    // fails every try is parked with its error, and that DLQ's alarm still reaches the email.
    asyncInvoke: { retryAttempts: 2, maxEventAgeSeconds: 3600 },
    grants: ['readTelegramSecret', 'claimDeliveries'],
  },
] as const satisfies readonly ControlFunctionSpec[];

/** λ cron-dispatch's ARN, from its deterministic name: what every schedule invokes. */
export const cronDispatchArn = (stack: Stack, fleet: string) =>
  stack.formatArn({ service: 'lambda', resource: 'function', resourceName: functionName(fleet, 'cron-dispatch'), arnFormat: ArnFormat.COLON_RESOURCE_NAME });

export { BUILD_SETTINGS } from './function-bundling.ts';

export interface ControlFunctionsProps {
  config: FleetConfig;
  /**
   * Concurrency reserved per function name (infra/reserved-concurrency.ts, sized from what the
   * account can give); a function not named shares the account's pool.
   */
  reserved: Readonly<Record<string, number>>;
  /**
   * The clawfleet.json copied into every bundle (config-bundle.ts); it must hold `config`.
   * Optional only where bundling is skipped (infra tests synthesize in-memory configs).
   */
  configFile: string | undefined;
  grantContext: GrantContext;
  logRetention: logs.RetentionDays;
  scheduleGroupName: string;
  specs?: readonly ControlFunctionSpec[];
}

export class ControlFunctions extends Construct {
  readonly functions = new Map<string, lambda.Function>();
  readonly urls = new Map<string, lambda.FunctionUrl>();

  constructor(scope: Construct, id: string, props: ControlFunctionsProps) {
    super(scope, id);
    const specs: readonly ControlFunctionSpec[] = props.specs ?? CONTROL_FUNCTIONS;
    for (const spec of specs) if (spec.when?.(props.config) ?? true) this.add(spec, props);
  }

  private add(spec: ControlFunctionSpec, props: ControlFunctionsProps): void {
    const fleet = props.config.fleet;
    const configFile = props.configFile ?? (Stack.of(this).bundlingRequired ? undefined : '(bundling skipped)');
    if (!configFile)
      throw new ClawfleetError('CONFIG_FILE_REQUIRED', 'bundling the control-plane functions needs the fleet config as a file (context "config")');
    const scope = new Construct(this, pascal(spec.name));
    const reserved = props.reserved[spec.name];
    const logGroup = new logs.LogGroup(scope, 'Logs', {
      logGroupName: functionLogGroupName(fleet, spec.name),
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const role = new iam.Role(scope, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `clawfleet ${fleet}: the ${spec.name} function`,
    });
    for (const grant of spec.grants) for (const statement of GRANTS[grant](props.grantContext)) role.addToPolicy(statement);
    const environment: Record<string, string> = Object.assign(
      {},
      ...spec.grants.map((g) => GRANT_ENVIRONMENT[g]?.(props.grantContext) ?? {}),
      spec.environment?.(props.grantContext),
    );
    logGroup.grantWrite(role);
    const acknowledged = new Set<string>();
    for (const grant of spec.grants) {
      for (const { resource, reason } of GRANT_WILDCARDS[grant] ?? []) {
        const finding = wildcardFinding(resource(fleet, props.grantContext));
        // Two grants may share a pattern (e.g. inbound queues, for depth and for sending): one reason is enough.
        if (acknowledged.has(finding)) continue;
        acknowledged.add(finding);
        acknowledge(role, 'IAM5', reason, finding);
      }
    }

    const entry = join(REPO_ROOT, 'functions', `${spec.name}.ts`);
    const fn = new lambda.Function(scope, 'Function', {
      functionName: functionName(fleet, spec.name),
      handler: 'index.handler',
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: spec.memoryMb ?? 256,
      timeout: Duration.seconds(spec.timeoutSeconds),
      role,
      logGroup,
      ...(Object.keys(environment).length > 0 ? { environment } : {}),
      ...(reserved !== undefined ? { reservedConcurrentExecutions: reserved } : {}),
      // Built here by esbuild (never in a container): NodejsFunction writes one file and cannot
      // split, and the chunks a handler loads on demand are what keep its cold start small.
      code: lambda.Code.fromAsset(join(REPO_ROOT, 'functions'), {
        assetHashType: AssetHashType.CUSTOM,
        assetHash: functionAssetHash(props.config, spec.name, BUILD_SETTINGS),
        bundling: {
          image: DockerImage.fromRegistry('bundled-locally-by-esbuild'),
          local: {
            tryBundle(outputDir: string) {
              bundleFunction(entry, outputDir);
              // control-plane.ts reads ./clawfleet.json beside the handler.
              copyFileSync(configFile, join(outputDir, 'clawfleet.json'));
              return true;
            },
          },
        },
      }),
    });
    this.functions.set(spec.name, fn);

    // Alarms over a 5-minute count clear themselves when the window passes: told when they go off.
    operatorAlarm(scope, 'ErrorsAlarm', {
      fleet,
      alarmName: `${functionName(fleet, spec.name)}-errors`,
      alarmDescription: `The ${spec.name} function threw (see ${functionLogGroupName(fleet, spec.name)})`,
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      resolved: false,
    });

    if (spec.asyncInvoke) this.deadLetterFailedEvents(scope, fn, spec, fleet);
    if (reserved !== undefined && spec.url) {
      // Requests refused past the reserved concurrency: a flood, or a fleet outgrowing it.
      operatorAlarm(scope, 'ThrottlesAlarm', {
        fleet,
        alarmName: `${functionName(fleet, spec.name)}-throttles`,
        alarmDescription: `The ${spec.name} function refused requests past its reserved concurrency (${reserved}): a flood, or a fleet that needs more`,
        metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
        threshold: 1,
        resolved: false,
      });
    }

    for (const m of spec.logMetrics ?? []) {
      const filter = (id: string, dimensions?: Record<string, string>) =>
        new logs.MetricFilter(scope, id, {
          logGroup,
          filterPattern: logs.FilterPattern.stringValue('$.metric', '=', m.name),
          metricNamespace: `Clawfleet/${fleet}`,
          metricName: m.name,
          ...(dimensions ? { dimensions } : {}),
          metricValue: '1',
        });
      // Per agent while the fleet is small enough for it, and a fleet total where an alarm
      // watches it (alarms cannot search dimensions). CloudWatch Logs may disable a filter that
      // makes 1,000 name/value pairs of its dimensions in an hour (PutMetricFilter reference),
      // which one Agent value per agent reaches at 1,000 agents: a larger fleet counts per
      // agent in Logs Insights (docs/deploy.md, "A thousand agents") and the dashboard.
      if (props.config.agents.list.length <= MAX_AGENTS_WITH_METRIC_DIMENSION) filter(`${m.name}ByAgentMetric`, { Agent: '$.agentId' });
      if (m.alarmAt !== undefined) {
        const total = filter(`${m.name}Metric`);
        operatorAlarm(scope, `${m.name}Alarm`, {
          fleet,
          alarmName: `${functionName(fleet, spec.name)}-${m.name}`,
          alarmDescription: `${m.description ?? m.name} (see ${functionLogGroupName(fleet, spec.name)})`,
          metric: total.metric({ period: Duration.minutes(5), statistic: 'Sum' }),
          threshold: m.alarmAt,
          resolved: false,
        });
      }
    }

    if (spec.schedule) {
      const invoker = new iam.Role(scope, 'ScheduleRole', {
        assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
        description: `clawfleet ${fleet}: EventBridge Scheduler invoking ${spec.name}`,
      });
      // The function itself, not its versions (grantInvoke would add `<arn>:*`).
      invoker.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [fn.functionArn] }));
      new scheduler.CfnSchedule(scope, 'Schedule', {
        name: functionName(fleet, spec.name),
        groupName: props.scheduleGroupName,
        scheduleExpression: spec.schedule,
        flexibleTimeWindow: { mode: 'OFF' },
        target: { arn: fn.functionArn, roleArn: invoker.roleArn, retryPolicy: { maximumRetryAttempts: 0 } },
      });
    }

    if (spec.url) {
      const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
      this.urls.set(spec.name, url);
      new CfnOutput(scope, 'Url', { key: `${pascal(spec.name)}Url`, value: url.url, description: `Function URL of ${spec.name}` });
      // A 5xx makes Telegram retry; several in a row mean updates are piling up.
      operatorAlarm(scope, 'Url5xxAlarm', {
        fleet,
        alarmName: `${functionName(fleet, spec.name)}-5xx`,
        alarmDescription: `The ${spec.name} Function URL answered 5xx: callers are retrying`,
        metric: new cloudwatch.Metric({
          namespace: 'AWS/Lambda',
          metricName: 'Url5xxCount',
          dimensionsMap: { FunctionName: fn.functionName },
          period: Duration.minutes(5),
          statistic: 'Sum',
        }),
        threshold: 3,
        resolved: false,
      });
    }
  }

  private deadLetterFailedEvents(scope: Construct, fn: lambda.Function, spec: ControlFunctionSpec, fleet: string): void {
    const config = spec.asyncInvoke!;
    const queue = new sqs.Queue(scope, 'DeadLetters', {
      queueName: deadLetterQueueName(fleet, spec.name),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      queue,
      'SQS3',
      `This queue is itself a dead-letter queue: the ${spec.name} function's on-failure destination, each message the request and its error; its depth is alarmed.`,
    );
    fn.configureAsyncInvoke({
      retryAttempts: config.retryAttempts,
      maxEventAge: Duration.seconds(config.maxEventAgeSeconds),
      onFailure: new destinations.SqsDestination(queue),
    });
    // A dead letter stays until someone acts on it: told when the queue is empty again too.
    operatorAlarm(scope, 'DeadLettersAlarm', {
      fleet,
      alarmName: deadLetterQueueName(fleet, spec.name),
      alarmDescription: `A request to the ${spec.name} function failed every retry (see its reason in ${deadLetterQueueName(fleet, spec.name)})`,
      metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      resolved: true,
    });
  }
}

/** Where an asynchronously invoked function's failed events go: a standard queue (a destination cannot be FIFO), alarmed. */
function deadLetterQueueName(fleet: string, name: string): string {
  return `${functionName(fleet, name)}-dlq`;
}

const pascal = (name: string) => name.replace(/(^|-)([a-z0-9])/g, (_, _dash: string, c: string) => c.toUpperCase());
