import { describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { handleTelegramWebhook, MAX_UPDATE_BYTES } from '../../shared/control/telegram-webhook.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentQueues } from '../../shared/ports.ts';

const SECRET = 'webhook-secret-for-fran-0123456789';

function setup(overrides: { queues?: AgentQueues } = {}) {
  const config = loadConfigFile('clawfleet.json');
  const queues = new InMemoryAgentQueues();
  const deps = {
    config,
    webhookSecret: async () => SECRET,
    queues: overrides.queues ?? queues,
    dedupe: new InMemoryInboundDedupe(() => 1_000),
    sessions: new InMemorySessionRegistry(),
    clock: { now: () => 1_000 },
    log: memoryLogger(),
  };
  return { deps, queues };
}

const update = (updateId = 7, text = 'hello') =>
  JSON.stringify({
    update_id: updateId,
    message: { message_id: 3, date: 1_764_000_000, chat: { id: 4242, type: 'private', first_name: 'Ann' }, from: { id: 4242, is_bot: false, first_name: 'Ann' }, text },
  });

describe('telegram webhook', () => {
  it('queues a text message for the agent bound to the bot account, keyed by account and update id', async () => {
    const { deps, queues } = setup();
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps);
    expect(res).toEqual({ status: 200, body: { ok: true, envelopeId: 'tg.fran.7' } });
    const [body] = queues.queue('fran').bodies();
    expect(JSON.parse(body!)).toMatchObject({ v: 1, kind: 'message', id: 'tg.fran.7', agentId: 'fran', sessionKey: 'agent:fran:main', text: 'hello' });
    expect(await deps.sessions.get('agent:fran:main')).toMatchObject({ agentId: 'fran', target: { accountId: 'fran', chatId: '4242' } });
  });

  it('queues the same update once when Telegram delivers it twice', async () => {
    const { deps, queues } = setup();
    await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps);
    const again = await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps);
    expect(again.body).toMatchObject({ duplicate: true });
    expect(queues.queue('fran').depth).toBe(1);
  });

  it.each([
    ['a wrong secret token', 'nope', update(), 401],
    ['no secret token', undefined, update(), 401],
    ['a body that is not JSON', SECRET, '{"update_id":', 400],
    ['JSON that is not an update', SECRET, '{"message":"hi"}', 400],
    ['an oversized body', SECRET, 'x'.repeat(MAX_UPDATE_BYTES + 1), 413],
  ])('refuses %s and queues nothing', async (_name, token, body, status) => {
    const { deps, queues } = setup();
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: token, body }, deps);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.any(String));
    expect(queues.queues.size).toBe(0);
  });

  it('answers 404 for an account the fleet does not have', async () => {
    const { deps } = setup();
    expect((await handleTelegramWebhook({ accountId: 'zed', secretToken: SECRET, body: update() }, deps)).status).toBe(404);
  });

  it('acknowledges an update that carries no text, and queues nothing', async () => {
    const { deps, queues } = setup();
    const body = JSON.stringify({ update_id: 9, my_chat_member: { chat: { id: 1, type: 'private' } } });
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body }, deps);
    expect(res).toEqual({ status: 200, body: { ok: true, skipped: 'not a text message' } });
    expect(queues.queues.size).toBe(0);
  });

  it('answers 503 when the queue is down, and a retry then goes through', async () => {
    const { deps, queues } = setup();
    let down = true;
    deps.queues = { send: async (e) => (down ? Promise.reject(new Error('ECONNREFUSED')) : queues.send(e)) };
    expect((await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps)).status).toBe(503);
    down = false;
    expect((await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps)).status).toBe(200);
    expect(queues.queue('fran').depth).toBe(1);
  });

  it('never writes the secret token to the log', async () => {
    const { deps } = setup();
    await handleTelegramWebhook({ accountId: 'fran', secretToken: 'nope', body: update() }, deps);
    await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps);
    expect(JSON.stringify(deps.log.lines)).not.toContain(SECRET);
    expect(deps.log.lines.length).toBeGreaterThan(1);
  });
});
