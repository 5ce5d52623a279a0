// The Telegram webhook's dependencies over in-memory state, for fran's bot (id 1000002,
// @fran_bot, WEBHOOK_SECRET) with the clock at 1 000: where a unit test of the webhook starts,
// with what it reads back (the agent queues, the session registry, what the bot said).
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import type { TelegramWebhookDeps } from '../../shared/control/telegram-webhook.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { ChannelTarget } from '../../shared/ports.ts';

export const WEBHOOK_SECRET = 'webhook-secret-for-fran-0123456789';

export interface MemoryWebhook {
  deps: TelegramWebhookDeps;
  queues: InMemoryAgentQueues;
  sessions: InMemorySessionRegistry;
  /** Everything the bot sent, in order. */
  sent: { target: ChannelTarget; text: string }[];
  /** The envelopes queued for `agentId` (fran by default), parsed. */
  queued(agentId?: string): ReturnType<typeof JSON.parse>[];
}

/** `more` adds to the dependencies or replaces any of them (media, lifecycle, another channel). */
export function memoryWebhook(config: FleetConfig, more: Partial<TelegramWebhookDeps> = {}): MemoryWebhook {
  const queues = new InMemoryAgentQueues();
  const sessions = new InMemorySessionRegistry();
  const sent: MemoryWebhook['sent'] = [];
  const deps: TelegramWebhookDeps = {
    config,
    webhookSecret: async () => WEBHOOK_SECRET,
    queues,
    dedupe: new InMemoryInboundDedupe(() => 1_000),
    sessions,
    origins: new InMemoryInboundOrigins(() => 1_000),
    pairings: new InMemoryPairingStore(),
    botIdentity: async () => ({ id: 1000002, username: 'fran_bot' }),
    channel: async () => ({ maxTextLength: 4096, sendText: async (target, text) => void sent.push({ target, text }), sendTyping: async () => {} }),
    newPairingCode: () => 'CODE',
    clock: { now: () => 1_000 },
    log: memoryLogger(),
    ...more,
  };
  const queued = (agentId = 'fran') =>
    queues
      .queue(agentId)
      .bodies()
      .map((b) => JSON.parse(b));
  return { deps, queues, sessions, sent, queued };
}
