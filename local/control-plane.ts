// Local mode's control plane: the same core as the Lambdas (webhook admission, outbox
// authority checks and delivery), with embedded adapters. Queues and registry are kept
// in memory by this first version: a restart of `npm start` forgets what was queued.
import { randomBytes, randomUUID } from 'node:crypto';
import { InMemoryAgentQueues, InMemoryFifoQueue } from '../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters, InMemoryDeliveryLedger, InMemoryInboundDedupe, InMemoryPairingStore, InMemorySessionRegistry } from '../shared/adapters/memory/in-memory-state.ts';
import { outboxQueueName, telegramSecretName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { processOutboxRecord } from '../shared/control/outbox.ts';
import { handleTelegramWebhook, type HttpResult } from '../shared/control/telegram-webhook.ts';
import { ClawfleetError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import type { ChannelSender, ChannelTarget, Clock, SecretStore } from '../shared/ports.ts';
import { pairingCode } from '../shared/control/access.ts';
import { botIdFromToken } from '../shared/telegram/mention.ts';
import { createBotApi } from '../shared/telegram/bot-api.ts';
import { telegramSender } from '../shared/telegram/telegram-sender.ts';
import { webhookSecretFor } from '../shared/telegram/webhook-secret.ts';
import { LocalChat } from './local-chat.ts';

export class LocalControlPlane {
  readonly queues: InMemoryAgentQueues;
  readonly sessions = new InMemorySessionRegistry();
  readonly dedupe: InMemoryInboundDedupe;
  readonly ledger = new InMemoryDeliveryLedger();
  readonly pairings = new InMemoryPairingStore();
  readonly deadLetters = new Map<string, InMemoryDeadLetters>();
  readonly chat: LocalChat;
  private readonly senders = new Map<string, ChannelSender>();

  constructor(
    readonly config: FleetConfig,
    private readonly secrets: SecretStore,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.queues = new InMemoryAgentQueues(clock.now);
    this.dedupe = new InMemoryInboundDedupe(clock.now);
    this.chat = new LocalChat(clock.now);
  }

  inbox(agentId: string): InMemoryFifoQueue {
    return this.queues.queue(agentId);
  }

  dlq(agentId: string): InMemoryDeadLetters {
    let d = this.deadLetters.get(agentId);
    if (!d) this.deadLetters.set(agentId, (d = new InMemoryDeadLetters()));
    return d;
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
        newPairingCode: () => pairingCode(randomBytes),
        botIdentity: async (id) => {
          const token = await this.botToken(id);
          if (!token) throw new ClawfleetError('SECRET_MISSING', `no bot token for telegram account "${id}" in the local secrets`);
          const me = await createBotApi({ apiRoot: this.config.channels.telegram!.apiRoot, token }).call<{ username?: string }>('getMe', {});
          return { id: botIdFromToken(token), username: me.username };
        },
        channel: (target) => this.channel(target),
        clock: this.clock,
        log: this.log,
      },
    );
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
        clock: this.clock,
        log: this.log,
      },
    );
  }
}
