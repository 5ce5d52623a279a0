// Local mode's control plane: the same core as the Lambdas (webhook admission, outbox
// authority checks and delivery), with embedded adapters. Queues, registry, dead letters
// and the chat box live in one SQLite file, so what was queued survives a restart.
import { randomBytes, randomUUID } from 'node:crypto';
import type { StateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { localQueueNames, SqliteAgentQueues, type SqliteDeadLetters, type SqliteFifoQueue } from '../shared/adapters/sqlite/sqlite-queues.ts';
import { SqlitePairingStore } from '../shared/adapters/sqlite/sqlite-pairing-store.ts';
import { SqliteAgentMetrics } from '../shared/adapters/sqlite/sqlite-agent-metrics.ts';
import { DASHBOARD_TOKEN_NAME } from '../shared/dashboard/auth.ts';
import { SqliteAgentStatus, SqliteDeliveryLedger, SqliteInboundDedupe, SqliteSessionRegistry } from '../shared/adapters/sqlite/sqlite-state.ts';
import { dashboardSecretName, outboxQueueName, telegramSecretName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { pairingCode } from '../shared/control/access.ts';
import { processOutboxRecord } from '../shared/control/outbox.ts';
import { handleTelegramWebhook, type HttpResult } from '../shared/control/telegram-webhook.ts';
import { ClawfleetError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import { parseOutbound, type InboundEnvelope, type OutboundEnvelope } from '../shared/protocol/envelopes.ts';
import type { ChannelSender, ChannelTarget, Clock, SecretStore } from '../shared/ports.ts';
import { createBotApi } from '../shared/telegram/bot-api.ts';
import { botIdFromToken, type BotIdentity } from '../shared/telegram/mention.ts';
import { telegramSender } from '../shared/telegram/telegram-sender.ts';
import { webhookSecretFor } from '../shared/telegram/webhook-secret.ts';
import { LocalChat } from './local-chat.ts';

/** As the CDK app's redrive policy: a message handed out this often without success is parked. */
export const LOCAL_MAX_RECEIVE_COUNT = 5;

export class LocalControlPlane {
  readonly queues: SqliteAgentQueues;
  readonly sessions: SqliteSessionRegistry;
  readonly dedupe: SqliteInboundDedupe;
  readonly ledger: SqliteDeliveryLedger;
  readonly status: SqliteAgentStatus;
  readonly pairings: SqlitePairingStore;
  readonly chat: LocalChat;
  /** Turn counts, timings and queue samples for the dashboard's charts. */
  readonly metrics: SqliteAgentMetrics;
  private readonly senders = new Map<string, ChannelSender>();
  private readonly usernames = new Map<string, Promise<string | undefined>>();

  constructor(
    readonly config: FleetConfig,
    readonly db: StateDatabase,
    private readonly secrets: SecretStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.queues = new SqliteAgentQueues(db, { now: clock.now, maxReceiveCount: LOCAL_MAX_RECEIVE_COUNT });
    this.sessions = new SqliteSessionRegistry(db);
    this.dedupe = new SqliteInboundDedupe(db, clock.now);
    this.ledger = new SqliteDeliveryLedger(db);
    this.status = new SqliteAgentStatus(db);
    this.pairings = new SqlitePairingStore(db);
    this.chat = new LocalChat(db, clock.now);
    this.metrics = new SqliteAgentMetrics(db, clock.now);
  }

  inbox(agentId: string): SqliteFifoQueue {
    return this.queues.queue(agentId);
  }

  /** Inbound envelopes the agent's runtime could not process (its queue's DLQ). */
  inboxDlq(agentId: string): SqliteDeadLetters {
    return this.queues.deadLetters(localQueueNames(agentId).inboxDlq);
  }

  /** Outbound envelopes the control plane refused (the agent's outbox DLQ). */
  dlq(agentId: string): SqliteDeadLetters {
    return this.queues.deadLetters(localQueueNames(agentId).outboxDlq);
  }

  /** A message typed into the dashboard's chat box, for the agent's main session. */
  async chatMessage(agentId: string, text: string): Promise<string> {
    const sessionKey = `agent:${agentId}:main`;
    const id = `local.${agentId}.${randomUUID()}`;
    const now = this.clock.now();
    await this.sessions.put({ sessionKey, agentId, target: { channel: 'local', chatId: agentId }, updatedAt: now });
    this.chat.add(agentId, 'user', text);
    await this.queues.send({ v: 1, kind: 'message', id, agentId, sessionKey, ts: now, text, from: { channel: 'local' } });
    return id;
  }

  /** An envelope an operator asked for (`clawfleet cron run`), already validated. */
  async enqueue(envelope: InboundEnvelope): Promise<void> {
    await this.queues.send(envelope);
  }

  /** DASHBOARD_TOKEN from the local secrets file, if the owner set one (else the server uses the admin token). */
  async dashboardToken(): Promise<string | undefined> {
    return (await this.secrets.get(dashboardSecretName(this.config.fleet)))[DASHBOARD_TOKEN_NAME];
  }

  async botToken(accountId: string): Promise<string | undefined> {
    const account = this.config.channels.telegram?.accounts[accountId];
    if (!account) return undefined;
    return (await this.secrets.get(telegramSecretName(this.config.fleet)))[account.botTokenSecret];
  }

  telegramUpdate(accountId: string, secretToken: string | undefined, body: string): Promise<HttpResult> {
    return handleTelegramWebhook(
      { accountId, secretToken, body },
      {
        config: this.config,
        webhookSecret: async (id) => {
          const token = await this.botToken(id);
          if (!token) throw new ClawfleetError('SECRET_MISSING', `no bot token for telegram account "${id}" in the local secrets`);
          return webhookSecretFor(token);
        },
        queues: this.queues,
        dedupe: this.dedupe,
        sessions: this.sessions,
        pairings: this.pairings,
        botIdentity: (id) => this.botIdentity(id),
        channel: (target) => this.channel(target),
        newPairingCode: () => pairingCode(randomBytes),
        clock: this.clock,
        log: this.log,
      },
    );
  }

  private async botIdentity(accountId: string): Promise<BotIdentity> {
    const token = await this.botToken(accountId);
    if (!token) throw new ClawfleetError('SECRET_MISSING', `no bot token for telegram account "${accountId}"`);
    // The username is asked once per run; the id is part of the token.
    let username = this.usernames.get(token);
    if (!username) {
      username = createBotApi({ apiRoot: this.config.channels.telegram!.apiRoot, token })
        .call<{ username?: string }>('getMe', {})
        .then((me) => me.username);
      username.catch(() => this.usernames.delete(token));
      this.usernames.set(token, username);
    }
    return { id: botIdFromToken(token), username: await username };
  }

  private async channel(target: ChannelTarget): Promise<ChannelSender> {
    if (target.channel === 'local') return this.chat;
    const token = await this.botToken(target.accountId);
    if (!token) throw new ClawfleetError('SECRET_MISSING', `no bot token for telegram account "${target.accountId}"`);
    let sender = this.senders.get(token);
    if (!sender) this.senders.set(token, (sender = telegramSender(createBotApi({ apiRoot: this.config.channels.telegram!.apiRoot, token }))));
    return sender;
  }

  /** An envelope a runtime put on its outbox; `agentId` is known from the runtime's own token. */
  async outbox(agentId: string, body: string): Promise<void> {
    await processOutboxRecord(
      { source: outboxQueueName(this.config.fleet, agentId), body, messageId: randomUUID() },
      {
        config: this.config,
        sessions: this.sessions,
        ledger: this.ledger,
        deadLetters: (id) => this.dlq(id ?? 'unknown'),
        channel: (target) => this.channel(target),
        metrics: this.metrics,
        clock: this.clock,
        log: this.log,
      },
    );
    this.noteEvidence(agentId, body);
  }

  /** What `status` shows: a heartbeat envelope's time, a failed turn's error. Evidence only. */
  private noteEvidence(agentId: string, body: string): void {
    let envelope: OutboundEnvelope;
    try {
      envelope = parseOutbound(body);
    } catch {
      return; // already refused into the DLQ by the core
    }
    const now = this.clock.now();
    if (envelope.kind === 'heartbeat') this.status.heartbeat(agentId, now);
    if (envelope.kind === 'status' && envelope.turn === 'failed') this.status.error(agentId, `turn failed: ${envelope.error ?? 'no reason given'}`, now);
  }
}
