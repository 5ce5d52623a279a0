// Found by the webhook fuzz test: an update whose text passed the protocol's 100,000
// characters was queued, and the runtime then parked it in its DLQ as an invalid envelope
// without a word to anyone. The webhook now refuses it with 400 and queues nothing.
import { describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { handleTelegramWebhook } from '../../shared/control/telegram-webhook.ts';
import { memoryLogger } from '../../shared/log.ts';

function setup() {
  const config = loadConfigFile('clawfleet.json');
  config.channels.telegram!.allowFrom = ['4242'];
  const queues = new InMemoryAgentQueues();
  const sessions = new InMemorySessionRegistry();
  const origins = new InMemoryInboundOrigins(() => 1_000);
  const deps = {
    config,
    webhookSecret: async () => 'secret-0123456789',
    queues,
    dedupe: new InMemoryInboundDedupe(() => 1_000),
    sessions,
    origins,
    pairings: new InMemoryPairingStore(),
    botIdentity: async () => ({ id: 1000002, username: 'fran_bot' }),
    channel: async () => ({ maxTextLength: 4096, sendText: async () => {}, sendTyping: async () => {} }),
    newPairingCode: () => 'CODE',
    clock: { now: () => 1_000 },
    log: memoryLogger(),
  };
  return { deps, queues, sessions, origins };
}

const update = (message: Record<string, unknown>) =>
  JSON.stringify({
    update_id: 9,
    message: { message_id: 1, date: 1_764_000_000, chat: { id: 4242, type: 'private' }, from: { id: 4242, is_bot: false, first_name: 'Ann' }, ...message },
  });

describe('the Telegram webhook and the protocol’s limits', () => {
  it.each([
    ['a text longer than an envelope may carry', { text: 'x'.repeat(100_001) }, /text/],
    ['a date before 1970', { text: 'hi', date: -5 }, /ts/],
  ])('refuses %s with 400, and queues and records nothing', async (_name, message, field) => {
    const { deps, queues, sessions, origins } = setup();
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: 'secret-0123456789', body: update(message) }, deps);
    expect(res.status).toBe(400);
    expect(String(res.body.error)).toMatch(field);
    expect(queues.queues.size).toBe(0);
    expect(await sessions.get('agent:fran:main')).toBeUndefined();
    expect(origins.records.size).toBe(0);
  });

  it('still queues the longest text Telegram sends', async () => {
    const { deps, queues } = setup();
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: 'secret-0123456789', body: update({ text: 'x'.repeat(4096) }) }, deps);
    expect(res.status).toBe(200);
    expect(queues.queue('fran').depth).toBe(1);
  });
});
