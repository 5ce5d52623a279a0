// What each control-plane function may touch, one named grant per capability. A function
// lists the grants it needs (control-functions.ts); each grant is the narrowest set of
// statements for that capability. Per-agent queues are matched by their deterministic
// name patterns, so adding an agent never rewrites a control-plane role.
import { ArnFormat, Stack } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { EmptySecret } from './empty-secret.ts';
import { clusterName } from '../../shared/config/names.ts';
import type { TableRole } from './fleet-tables.ts';

export interface GrantContext {
  fleet: string;
  stack: Stack;
  tables: Record<TableRole, dynamodb.Table>;
  /** Absent when the fleet has no Telegram channel. */
  telegramSecret: EmptySecret | undefined;
}

const queueArn = (ctx: GrantContext, namePattern: string) =>
  ctx.stack.formatArn({ service: 'sqs', resource: namePattern, arnFormat: ArnFormat.NO_RESOURCE_NAME });

const CONSUME = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'];

const tableAccess = (ctx: GrantContext, table: TableRole, actions: string[]) => [
  new iam.PolicyStatement({ actions: actions.map((a) => `dynamodb:${a}`), resources: [ctx.tables[table].tableArn] }),
];

export const GRANTS = {
  /** Bot tokens, to verify webhooks (their derived secret token) and to call the Bot API. */
  readTelegramSecret: (ctx: GrantContext) =>
    ctx.telegramSecret ? [new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [ctx.telegramSecret.secretArn] })] : [],
  /** Inbound dedupe: was this update admitted, remember that it was. */
  admitInbound: (ctx: GrantContext) => tableAccess(ctx, 'dedupe', ['GetItem', 'PutItem']),
  /** Record a session's owner and reply target (a conditional put). */
  recordSessions: (ctx: GrantContext) => tableAccess(ctx, 'sessions', ['PutItem']),
  readSessions: (ctx: GrantContext) => tableAccess(ctx, 'sessions', ['GetItem']),
  /** Delivery claims: claim, complete, release. */
  claimDeliveries: (ctx: GrantContext) => tableAccess(ctx, 'deliveries', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']),
  /** Agent states, heartbeats, pairings and relay records (keyed by prefix in one table). */
  registryReadWrite: (ctx: GrantContext) => tableAccess(ctx, 'registry', ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem']),
  /** Wake, hibernate and restart agents: desired count 0 ↔ 1 on the fleet's agent services. */
  wakeAgents: (ctx: GrantContext) => [
    new iam.PolicyStatement({
      actions: ['ecs:UpdateService'],
      resources: [ctx.stack.formatArn({ service: 'ecs', resource: 'service', resourceName: `${clusterName(ctx.fleet)}/agent-*` })],
    }),
  ],
  /** How much work waits for an agent (wake and hibernate decisions). */
  readInboxDepths: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', 'sqs:GetQueueAttributes'], resources: [queueArn(ctx, `${ctx.fleet}-agent-*.fifo`)] }),
    new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: ['sqs:GetQueueAttributes'], resources: [queueArn(ctx, `${ctx.fleet}-agent-*-dlq.fifo`)] }),
  ],
  /** Queue inbound envelopes for any agent of this fleet, never into a dead-letter queue. */
  sendToAgentInboxes: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', 'sqs:SendMessage'], resources: [queueArn(ctx, `${ctx.fleet}-agent-*.fifo`)] }),
    new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: ['sqs:SendMessage'], resources: [queueArn(ctx, `${ctx.fleet}-agent-*-dlq.fifo`)] }),
  ],
  /** The outbox event source: read every agent's outbox, never a dead-letter queue. */
  consumeOutboxes: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: CONSUME, resources: [queueArn(ctx, `${ctx.fleet}-outbox-*.fifo`)] }),
    new iam.PolicyStatement({ effect: iam.Effect.DENY, actions: CONSUME, resources: [queueArn(ctx, `${ctx.fleet}-outbox-*-dlq.fifo`)] }),
  ],
  /** Park a rejected outbox envelope, with its reason, in its outbox's DLQ. */
  sendToOutboxDeadLetters: (ctx: GrantContext) => [
    new iam.PolicyStatement({ actions: ['sqs:GetQueueUrl', 'sqs:SendMessage'], resources: [queueArn(ctx, `${ctx.fleet}-outbox-*-dlq.fifo`)] }),
  ],
} satisfies Record<string, (ctx: GrantContext) => iam.PolicyStatement[]>;

export type GrantName = keyof typeof GRANTS;

/**
 * The queue-name patterns each grant allows, with the reason a reviewer needs: they are
 * acknowledged (cdk-nag AwsSolutions-IAM5) finding by finding on the role that has them.
 */
export const GRANT_WILDCARDS: Partial<Record<GrantName, { pattern: (fleet: string) => string; reason: string }[]>> = {
  sendToAgentInboxes: [
    {
      pattern: (fleet) => `${fleet}-agent-*.fifo`,
      reason: 'Any agent of this fleet may be routed to; matching inbound queues by their deterministic name lets agents be added without rewriting this role. DLQs are denied explicitly.',
    },
  ],
  consumeOutboxes: [
    {
      pattern: (fleet) => `${fleet}-outbox-*.fifo`,
      reason: 'The outbox function is the event source of every agent\'s outbox, matched by deterministic name so agents come and go without rewriting this role. DLQs are denied explicitly.',
    },
  ],
  readInboxDepths: [
    {
      pattern: (fleet) => `${fleet}-agent-*.fifo`,
      reason: 'Wake and hibernate decisions read the depth of any agent\'s inbound queue, matched by deterministic name so agents come and go without rewriting this role.',
    },
  ],
  sendToOutboxDeadLetters: [
    {
      pattern: (fleet) => `${fleet}-outbox-*-dlq.fifo`,
      reason: 'A rejected envelope is parked in the DLQ of the outbox it came from, which can be any agent\'s.',
    },
  ],
};

/** The ECS services wakeAgents may update, as cdk-nag names the wildcard finding. */
export const ecsServiceWildcardFinding = (fleet: string) =>
  `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ecs:<AWS::Region>:<AWS::AccountId>:service/${clusterName(fleet)}/agent-*]`;

/** How cdk-nag names a wildcard SQS resource finding of a stack without a fixed env. */
export const sqsWildcardFinding = (pattern: string) => `AwsSolutions::AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:${pattern}]`;
