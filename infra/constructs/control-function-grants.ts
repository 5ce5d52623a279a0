// What each control-plane function may touch, one named grant per capability. A function
// lists the grants it needs (control-functions.ts); each grant is the narrowest set of
// statements for that capability, read off the adapter calls it stands for. Per-agent
// queues, services and schedules are matched by their deterministic name patterns
// (shared/config/names.ts namePatterns, anchored to the fleet), so adding an agent never
// rewrites a control-plane role.
import { ArnFormat, Stack, type CfnElement } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type { EmptySecret } from './empty-secret.ts';
import { clusterName, functionName, namePatterns, scheduleGroupName } from '../../shared/config/names.ts';
import type { TableRole } from './fleet-tables.ts';

export interface GrantContext {
  fleet: string;
  stack: Stack;
  tables: Record<TableRole, dynamodb.Table>;
  /** Each absent when the fleet does not use it (no Telegram channel, no hooks). */
  /** The bot tokens' secrets (one, or more beyond 400 bots); empty without Telegram. */
  telegramSecrets: readonly EmptySecret[];
  hooksSecret: EmptySecret | undefined;
  dashboardSecret: EmptySecret;
  /** The role EventBridge Scheduler assumes to invoke λ cron-dispatch. */
  schedulerRole: iam.IRole;
  /** Where a schedule's failed invocations go (agents' own jobs too). */
  schedulesDeadLetterArn: string;
  /** Attachments and agents' files (#16). */
  mediaBucket: s3.IBucket;
}

const queueArn = (ctx: GrantContext, namePattern: string) =>
  ctx.stack.formatArn({ service: 'sqs', resource: namePattern, arnFormat: ArnFormat.NO_RESOURCE_NAME });

const CONSUME = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'];

const tableAccess = (ctx: GrantContext, table: TableRole, actions: string[]) => [
  new iam.PolicyStatement({ actions: actions.map((a) => `dynamodb:${a}`), resources: [ctx.tables[table].tableArn] }),
];

const readSecret = (secret: EmptySecret | undefined) =>
  secret ? [new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] })] : [];

/** Agents' own schedules: `agent-<id>-<job>` in the fleet's group (shared/cron/trigger.ts). */
const agentSchedulesArn = (ctx: GrantContext) =>
  ctx.stack.formatArn({ service: 'scheduler', resource: 'schedule', resourceName: `${scheduleGroupName(ctx.fleet)}/agent-*` });

export const GRANTS = {
  /** Bot tokens, to verify webhooks (their derived secret token) and to call the Bot API. */
  readTelegramSecret: (ctx: GrantContext) => ctx.telegramSecrets.flatMap(readSecret),
  /** The token HTTP hook callers present. */
  readHooksSecret: (ctx: GrantContext) => readSecret(ctx.hooksSecret),
  /** The dashboard's login token. */
  readDashboardSecret: (ctx: GrantContext) => readSecret(ctx.dashboardSecret),
  /** Inbound dedupe: was this update admitted, remember that it was. */
  admitInbound: (ctx: GrantContext) => tableAccess(ctx, 'dedupe', ['GetItem', 'PutItem']),
  /**
   * Record a session's owner and reply target, and what its runtime reported about it (conditional
   * updates: an update keeps the item's other attributes, as a put would not).
   */
  recordSessions: (ctx: GrantContext) => tableAccess(ctx, 'sessions', ['UpdateItem']),
  readSessions: (ctx: GrantContext) => tableAccess(ctx, 'sessions', ['GetItem']),
  /** An agent's sessions for the dashboard: a filtered scan (the table is keyed by session only). */
  listSessions: (ctx: GrantContext) => tableAccess(ctx, 'sessions', ['Scan']),
  /** Delivery claims: claim, complete, release. */
  claimDeliveries: (ctx: GrantContext) => tableAccess(ctx, 'deliveries', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']),
  /** Record whom an admitted inbound's answer reaches (an update that keeps the item's relay count). */
  recordOrigins: (ctx: GrantContext) => tableAccess(ctx, 'origins', ['UpdateItem']),
  /**
   * The users' reactions (#31): find whose message was reacted to (`sent:` items the outbox writes),
   * and count reactions per chat and move a message's status reaction (updates, under recordOrigins).
   */
  findSentMessages: (ctx: GrantContext) => tableAccess(ctx, 'origins', ['GetItem']),
  /**
   * The outbox: read the origin of the inbound a reply, typing or relay names; record a
   * relayed message's origin and count relays (per inbound, per pair of agents).
   */
  answerByOrigins: (ctx: GrantContext) => tableAccess(ctx, 'origins', ['GetItem', 'UpdateItem']),
  // The registry table holds agents, pairings and metrics by key prefix; the grants below
  // split it by what each caller does there.
  /** Agent records: state transitions, activity, heartbeats, errors, metric counters — all conditional updates. */
  trackAgents: (ctx: GrantContext) => tableAccess(ctx, 'registry', ['UpdateItem']),
  /** Read an agent's record (health decisions, the dashboard). */
  readAgents: (ctx: GrantContext) => tableAccess(ctx, 'registry', ['GetItem']),
  /** Look a sender's pairing up and issue a pending code (conditional puts). */
  requestPairings: (ctx: GrantContext) => tableAccess(ctx, 'registry', ['GetItem', 'PutItem']),
  /** List pending pairings (a filtered scan) and approve one by its code. */
  approvePairings: (ctx: GrantContext) => tableAccess(ctx, 'registry', ['GetItem', 'Scan', 'UpdateItem', 'DeleteItem']),
  /** A day of an agent's 15-minute metric buckets, by key. */
  readMetrics: (ctx: GrantContext) => tableAccess(ctx, 'registry', ['BatchGetItem']),
  // The spend table (#31): the control plane's counts and the runtimes' own ledgers.
  /** Budgets: an agent's spend as counted (admission, /status, the dashboard). */
  readSpend: (ctx: GrantContext) => tableAccess(ctx, 'spend', ['GetItem']),
  /** λ outbox: count a usage report once (a transaction: the report's claim and the month's sums), and mark an alarm told. */
  countSpend: (ctx: GrantContext) => tableAccess(ctx, 'spend', ['GetItem', 'PutItem', 'UpdateItem']),
  /**
   * ECS power, held by λ compute alone: desired count 0 ↔ 1 (and force a new deployment)
   * on the fleet's agent services. UpdateService could change far more (task definition,
   * network, ECS Exec), so no function reachable from a public URL holds it.
   */
  holdAgentCompute: (ctx: GrantContext) => [
    new iam.PolicyStatement({
      actions: ['ecs:UpdateService'],
      resources: [ctx.stack.formatArn({ service: 'ecs', resource: 'service', resourceName: `${clusterName(ctx.fleet)}/agent-*` })],
    }),
  ],
  /** Wake, hibernate and restart agents by asking λ compute (an asynchronous invocation of that one function). */
  askAgentCompute: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [computeFunctionArn(ctx.stack, ctx.fleet)] }),
  ],
  /** How much work waits for an agent (hibernate decisions, waking an agent with work). */
  readInboxDepths: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'], resources: [queueArn(ctx, namePatterns(ctx.fleet).agentQueues)] }),
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
      resources: [queueArn(ctx, namePatterns(ctx.fleet).agentDlqs)],
    }),
  ],
  /** The dashboard's queue figures: each agent's inbound queue, its DLQ and its outbox's DLQ. */
  readQueueFigures: (ctx: GrantContext) => [
    new iam.PolicyStatement({
      actions: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'],
      resources: [queueArn(ctx, namePatterns(ctx.fleet).agentQueues), queueArn(ctx, namePatterns(ctx.fleet).outboxDlqs)],
    }),
  ],
  /** Queue inbound envelopes for any agent of this fleet, never into a dead-letter queue. */
  sendToAgentInboxes: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', 'sqs:SendMessage'], resources: [queueArn(ctx, namePatterns(ctx.fleet).agentQueues)] }),
    new iam.PolicyStatement({
      effect: iam.Effect.DENY,
      actions: ['sqs:GetQueueUrl', 'sqs:SendMessage'],
      resources: [queueArn(ctx, namePatterns(ctx.fleet).agentDlqs)],
    }),
  ],
  /** The outbox event source: read every agent's outbox (and find it by name to delay a retry), never a dead-letter queue. */
  consumeOutboxes: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', ...CONSUME], resources: [queueArn(ctx, namePatterns(ctx.fleet).outboxes)] }),
    new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: CONSUME, resources: [queueArn(ctx, namePatterns(ctx.fleet).outboxDlqs)] }),
  ],
  /** Park a rejected outbox envelope, with its reason, in its outbox's DLQ. */
  sendToOutboxDeadLetters: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', 'sqs:SendMessage'], resources: [queueArn(ctx, namePatterns(ctx.fleet).outboxDlqs)] }),
  ],
  /**
   * Agents' own cron jobs (cron_upsert / cron_delete): only schedules named `agent-*` in
   * the fleet's group, each invoking λ cron-dispatch through the scheduler role, which is
   * the one role this function may pass, and only to EventBridge Scheduler.
   */
  manageAgentSchedules: (ctx: GrantContext) => [
    new iam.PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:UpdateSchedule', 'scheduler:DeleteSchedule'],
      resources: [agentSchedulesArn(ctx)],
    }),
    // ListSchedules has no resource type: it can only be granted on "*".
    new iam.PolicyStatement({ actions: ['scheduler:ListSchedules'], resources: ['*'] }),
    new iam.PolicyStatement({
      actions: ['iam:PassRole'],
      resources: [ctx.schedulerRole.roleArn],
      conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
    }),
  ],
  // ── media (#16): the control plane writes attachments into agents' in/ prefixes and reads their out/ files, never the other way round.
  /** λ telegram-webhook: keep a fetched attachment under the receiving agent's in/ prefix. */
  storeInboundMedia: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['s3:PutObject'], resources: [ctx.mediaBucket.arnForObjects(`${ctx.fleet}/agents/*/in/*`)] }),
  ],
  /** λ outbox: read a file an agent sends, from its out/ prefix (the outbox checks the key is the sender's). */
  readOutboundMedia: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [ctx.mediaBucket.arnForObjects(`${ctx.fleet}/agents/*/out/*`)] }),
  ],
} satisfies Record<string, (ctx: GrantContext) => iam.PolicyStatement[]>;

export type GrantName = keyof typeof GRANTS;

/** λ compute's ARN, from its deterministic name: what the askers may invoke, and only that. */
const computeFunctionArn = (stack: Stack, fleet: string) =>
  stack.formatArn({ service: 'lambda', resource: 'function', resourceName: functionName(fleet, 'compute'), arnFormat: ArnFormat.COLON_RESOURCE_NAME });

/** What a function holding a grant is told about where to use it (its environment). */
export const GRANT_ENVIRONMENT: Partial<Record<GrantName, (ctx: GrantContext) => Record<string, string>>> = {
  askAgentCompute: (ctx) => ({ CLAWFLEET_COMPUTE_FUNCTION: functionName(ctx.fleet, 'compute') }),
  storeInboundMedia: (ctx) => ({ CLAWFLEET_MEDIA_BUCKET: ctx.mediaBucket.bucketName }),
  readOutboundMedia: (ctx) => ({ CLAWFLEET_MEDIA_BUCKET: ctx.mediaBucket.bucketName }),
};

/** The media bucket's logical id, as cdk-nag writes it in a finding on its ARN. */
const bucketLogicalId = (ctx: GrantContext) => ctx.stack.getLogicalId(ctx.mediaBucket.node.defaultChild as CfnElement);

/** How cdk-nag names a wildcard resource finding (AwsSolutions-IAM5) of a stack without a fixed env. */
export const wildcardFinding = (resource: string) => `Resource::${resource}`;
const inRegion = (service: string, rest: string) => `arn:<AWS::Partition>:${service}:<AWS::Region>:<AWS::AccountId>:${rest}`;

/**
 * The wildcard resources each grant holds, with the reason a reviewer needs: they are
 * acknowledged (cdk-nag AwsSolutions-IAM5) finding by finding on the role that has them.
 */
export const GRANT_WILDCARDS: Partial<Record<GrantName, { resource: (fleet: string, ctx: GrantContext) => string; reason: string }[]>> = {
  sendToAgentInboxes: [
    {
      resource: (fleet) => inRegion('sqs', namePatterns(fleet).agentQueues),
      reason:
        'Any agent of this fleet may be routed to; matching inbound queues by their deterministic name lets agents be added without rewriting this role. DLQs are denied explicitly.',
    },
  ],
  consumeOutboxes: [
    {
      resource: (fleet) => inRegion('sqs', namePatterns(fleet).outboxes),
      reason:
        "The outbox function is the event source of every agent's outbox, matched by deterministic name so agents come and go without rewriting this role. DLQs are denied explicitly.",
    },
  ],
  readInboxDepths: [
    {
      resource: (fleet) => inRegion('sqs', namePatterns(fleet).agentQueues),
      reason:
        "Wake and hibernate decisions read the depth of any agent's inbound queue, matched by deterministic name so agents come and go without rewriting this role.",
    },
  ],
  readQueueFigures: [
    {
      resource: (fleet) => inRegion('sqs', namePatterns(fleet).agentQueues),
      reason:
        "The dashboard shows every agent's inbound queue and DLQ depth (read-only counters), matched by deterministic name so agents come and go without rewriting this role.",
    },
    {
      resource: (fleet) => inRegion('sqs', namePatterns(fleet).outboxDlqs),
      reason:
        "The dashboard shows every agent's outbox DLQ depth (read-only counters), matched by deterministic name so agents come and go without rewriting this role.",
    },
  ],
  sendToOutboxDeadLetters: [
    {
      resource: (fleet) => inRegion('sqs', namePatterns(fleet).outboxDlqs),
      reason: "A rejected envelope is parked in the DLQ of the outbox it came from, which can be any agent's.",
    },
  ],
  holdAgentCompute: [
    {
      resource: (fleet) => inRegion('ecs', `service/${clusterName(fleet)}/agent-*`),
      reason:
        'The compute function, the one holder of ECS power, sets the desired count of any agent of this fleet: its agent services in its own cluster, ' +
        "matched by deterministic name so agents come and go without rewriting this role. It is invoked only by the fleet's own functions, never by a URL.",
    },
  ],
  storeInboundMedia: [
    {
      resource: (fleet, ctx) => `<${bucketLogicalId(ctx)}.Arn>/${fleet}/agents/*/in/*`,
      reason:
        'An attachment may be for any agent of this fleet: its in/ prefix, matched by the key layout so agents come and go without rewriting this role. No read, no out/ prefix.',
    },
  ],
  readOutboundMedia: [
    {
      resource: (fleet, ctx) => `<${bucketLogicalId(ctx)}.Arn>/${fleet}/agents/*/out/*`,
      reason:
        'Any agent of this fleet may send a file: its out/ prefix, matched by the key layout; the outbox refuses a key not under the sending agent’s own prefix.',
    },
  ],
  manageAgentSchedules: [
    {
      resource: (fleet) => inRegion('scheduler', `schedule/${scheduleGroupName(fleet)}/agent-*`),
      reason:
        "Agents add and remove their own cron jobs at run time; only schedules named agent-* in this fleet's group, never the config's or the heartbeats' (the outbox also checks each request names the sending agent).",
    },
    {
      resource: () => '*',
      reason:
        'scheduler:ListSchedules has no resource type and can only be granted on "*" (it lists names, the function filters to the sending agent\'s own prefix); every other statement of this role names its resources.',
    },
  ],
};
