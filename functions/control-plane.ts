// The control plane's adapters, built once per Lambda container from its environment.
// Handler files stay wiring-only: parse the event, call the core with these, map the result.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createAwsClients, type AwsClients } from '../shared/adapters/aws/clients.ts';
import { DynamoAgentRegistry } from '../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoAgentMetrics } from '../shared/adapters/aws/dynamo-agent-metrics.ts';
import { DynamoPairingStore } from '../shared/adapters/aws/dynamo-pairing-store.ts';
import { DynamoInboundOrigins } from '../shared/adapters/aws/dynamo-inbound-origins.ts';
import { DynamoRelayRates } from '../shared/adapters/aws/dynamo-relay-rates.ts';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { EcsAgentCompute } from '../shared/adapters/aws/ecs-agent-compute.ts';
import { LambdaAgentCompute } from '../shared/adapters/aws/lambda-agent-compute.ts';
import { EventBridgeCronScheduler } from '../shared/adapters/aws/eventbridge-cron-scheduler.ts';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SqsQueueDepths } from '../shared/adapters/aws/sqs-queue-depths.ts';
import { DynamoDeliveryLedger, DynamoInboundDedupe, DynamoSessionRegistry } from '../shared/adapters/aws/dynamo-tables.ts';
import { SecretsManagerStore } from '../shared/adapters/aws/secrets-manager-store.ts';
import { SqsAgentQueues, SqsDeadLetters, SqsQueueDirectory } from '../shared/adapters/aws/sqs-queues.ts';
import { CachedSecretStore } from '../shared/adapters/cached-secret-store.ts';
import { parseConfigText } from '../shared/config/load.ts';
import { hooksSecretName, outboxDlqName, scheduleGroupName, tableNames, telegramSecretName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { createLogger, type Logger } from '../shared/log.ts';
import { systemClock, type AgentCompute, type ChannelSender, type ChannelTarget, type Clock } from '../shared/ports.ts';
import { createBotApi } from '../shared/adapters/telegram/bot-api.ts';
import { pairingCode } from '../shared/control/access.ts';
import type { LifecycleDeps } from '../shared/control/lifecycle.ts';
import { botIdFromToken, type BotIdentity } from '../shared/telegram/mention.ts';
import { telegramSender } from '../shared/adapters/telegram/telegram-sender.ts';
import { webhookSecretFor } from '../shared/telegram/webhook-secret.ts';

export interface ControlPlane {
  config: FleetConfig;
  aws: AwsClients;
  directory: SqsQueueDirectory;
  clock: Clock;
  log: Logger;
  queues: SqsAgentQueues;
  dedupe: DynamoInboundDedupe;
  sessions: DynamoSessionRegistry;
  /** Each inbound's origin: admitters record it, the outbox delivers and relays by it. */
  origins: DynamoInboundOrigins;
  ledger: DynamoDeliveryLedger;
  pairings: DynamoPairingStore;
  registry: DynamoAgentRegistry;
  /** Turn counts, timings and queue samples for the dashboard (the outbox writes turns). */
  metrics: DynamoAgentMetrics;
  lifecycle: LifecycleDeps;
  relay: { queues: SqsAgentQueues; rates: DynamoRelayRates; lifecycle: LifecycleDeps };
  /** Agents' own cron jobs; only where λ cron-dispatch's ARN is configured (the outbox function). */
  scheduler: EventBridgeCronScheduler | undefined;
  newPairingCode(): string;
  botIdentity(accountId: string): Promise<BotIdentity>;
  deadLettersOf(agentId: string | undefined): SqsDeadLetters;
  botToken(accountId: string): Promise<string>;
  webhookSecret(accountId: string): Promise<string>;
  /** The token HTTP hook callers present (config.hooks.tokenSecret in the hooks secret). */
  hooksToken(): Promise<string>;
  channel(target: ChannelTarget): Promise<ChannelSender>;
}

/** The fleet config: inline JSON (CLAWFLEET_CONFIG) or a file bundled beside the handler. */
function readConfig(env: NodeJS.ProcessEnv): FleetConfig {
  if (env.CLAWFLEET_CONFIG) return parseConfigText(env.CLAWFLEET_CONFIG, 'CLAWFLEET_CONFIG');
  const path = env.CLAWFLEET_CONFIG_FILE ?? new URL('./clawfleet.json', import.meta.url).pathname;
  return parseConfigText(readFileSync(path, 'utf8'), path);
}

export function createControlPlane(env: NodeJS.ProcessEnv = process.env, component = 'control-plane'): ControlPlane {
  const config = readConfig(env);
  const aws = createAwsClients();
  const clock = systemClock;
  const tables = tableNames(config.fleet);
  const directory = new SqsQueueDirectory(aws.sqs);
  const secrets = new CachedSecretStore(new SecretsManagerStore(aws.secrets), clock.now);

  const botToken = async (accountId: string) => {
    const account = config.channels.telegram?.accounts[accountId];
    if (!account) throw new ClawfleetError('ACCOUNT_UNKNOWN', `no telegram account "${accountId}"`);
    const secretId = telegramSecretName(config.fleet);
    const token = (await secrets.get(secretId))[account.botTokenSecret];
    if (!token) throw new ClawfleetError('SECRET_MISSING', `secret "${secretId}" has no value "${account.botTokenSecret}"`);
    return token;
  };
  const senders = new Map<string, ChannelSender>();
  const usernames = new Map<string, Promise<string | undefined>>();

  const log = createLogger({ component, fleet: config.fleet });
  const registry = new DynamoAgentRegistry(aws.dynamo, tables.registry);
  const queues = new SqsAgentQueues(aws.sqs, config.fleet, directory);
  // On AWS only λ compute may call ECS; the deployed functions ask it (CLAWFLEET_COMPUTE_FUNCTION,
  // set by the CDK app). Without it (λ compute itself, handlers run in-process by tests)
  // this process calls ECS, which IAM refuses to every deployed function but λ compute.
  const compute: AgentCompute = env.CLAWFLEET_COMPUTE_FUNCTION
    ? new LambdaAgentCompute(new LambdaClient({ maxAttempts: 3 }), env.CLAWFLEET_COMPUTE_FUNCTION)
    : new EcsAgentCompute(aws.ecs, config.fleet);
  const lifecycle: LifecycleDeps = { registry, compute, depths: new SqsQueueDepths(aws.sqs, config.fleet, directory), clock, log };
  return {
    config,
    aws,
    directory,
    clock,
    log,
    registry,
    metrics: new DynamoAgentMetrics(aws.dynamo, tables.registry, clock.now),
    lifecycle,
    relay: { queues, rates: new DynamoRelayRates(aws.dynamo, tables.origins), lifecycle },
    scheduler:
      env.CLAWFLEET_CRON_FUNCTION_ARN && env.CLAWFLEET_SCHEDULER_ROLE_ARN
        ? new EventBridgeCronScheduler(new SchedulerClient({ maxAttempts: 3 }), {
            group: scheduleGroupName(config.fleet),
            functionArn: env.CLAWFLEET_CRON_FUNCTION_ARN,
            roleArn: env.CLAWFLEET_SCHEDULER_ROLE_ARN,
            deadLetterArn: env.CLAWFLEET_SCHEDULES_DLQ_ARN,
          })
        : undefined,
    queues,
    dedupe: new DynamoInboundDedupe(aws.dynamo, tables.dedupe, clock.now),
    sessions: new DynamoSessionRegistry(aws.dynamo, tables.sessions),
    origins: new DynamoInboundOrigins(aws.dynamo, tables.origins, clock.now),
    ledger: new DynamoDeliveryLedger(aws.dynamo, tables.deliveries),
    pairings: new DynamoPairingStore(aws.dynamo, tables.registry),
    newPairingCode: () => pairingCode(randomBytes),
    async botIdentity(accountId) {
      const token = await botToken(accountId);
      // The username is asked once per container; the id is part of the token.
      let username = usernames.get(token);
      if (!username) {
        username = createBotApi({ apiRoot: config.channels.telegram!.apiRoot, token })
          .call<{ username?: string }>('getMe', {})
          .then((me) => me.username);
        username.catch(() => usernames.delete(token));
        usernames.set(token, username);
      }
      return { id: botIdFromToken(token), username: await username };
    },
    deadLettersOf: (agentId) =>
      new SqsDeadLetters(aws.sqs, async () => {
        if (!agentId) throw new ClawfleetError('UNKNOWN_OUTBOX', 'a record from an unknown queue has no DLQ of ours; leaving it to its queue redrive');
        return directory.url(outboxDlqName(config.fleet, agentId));
      }),
    botToken,
    webhookSecret: async (accountId) => webhookSecretFor(await botToken(accountId)),
    async hooksToken() {
      if (!config.hooks) throw new ClawfleetError('HOOKS_DISABLED', 'this fleet has no "hooks" in its config');
      const secretId = hooksSecretName(config.fleet);
      const token = (await secrets.get(secretId))[config.hooks.tokenSecret];
      if (!token) throw new ClawfleetError('SECRET_MISSING', `secret "${secretId}" has no value "${config.hooks.tokenSecret}"`);
      return token;
    },
    async channel(target) {
      if (target.channel !== 'telegram') throw new ClawfleetError('CHANNEL_UNSUPPORTED', `the AWS control plane cannot deliver to ${target.channel} chats`);
      const token = await botToken(target.accountId);
      // Keyed by token too, so a rotated token gets a fresh client.
      const key = `${target.accountId}:${token}`;
      let sender = senders.get(key);
      if (!sender) senders.set(key, (sender = telegramSender(createBotApi({ apiRoot: config.channels.telegram!.apiRoot, token }))));
      return sender;
    },
  };
}
