import { describe, expect, it } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { handleTelegramWebhook, MAX_UPDATE_BYTES } from '../../shared/control/telegram-webhook.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentQueues, ChannelTarget } from '../../shared/ports.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const SECRET = 'webhook-secret-for-fran-0123456789';

function setup(overrides: { queues?: AgentQueues; edit?: (c: FleetConfig) => void } = {}) {
  const config = loadConfigFile('clawfleet.json');
  // Ann (4242) is on the allow list unless a test says otherwise.
  config.channels.telegram!.allowFrom = ['4242'];
  overrides.edit?.(config);
  const queues = new InMemoryAgentQueues();
  const sent: { target: ChannelTarget; text: string }[] = [];
  let codes = 0;
  const deps = {
    config,
    webhookSecret: async () => SECRET,
    queues: overrides.queues ?? queues,
    dedupe: new InMemoryInboundDedupe(() => 1_000),
    sessions: new InMemorySessionRegistry(),
    origins: new InMemoryInboundOrigins(() => 1_000),
    pairings: new InMemoryPairingStore(),
    botIdentity: async () => ({ id: 1000002, username: 'fran_bot' }),
    channel: async () => ({
      maxTextLength: 4096,
      sendText: async (target: ChannelTarget, text: string) => void sent.push({ target, text }),
      sendTyping: async () => {},
    }),
    newPairingCode: () => `CODE${++codes}`,
    clock: { now: () => 1_000 },
    log: memoryLogger(),
  };
  return { deps, queues, sent };
}

const update = (
  updateId = 7,
  text = 'hello',
  from = 4242,
  chat: { id: number; type: string } = { id: from, type: 'private' },
  extra: Record<string, unknown> = {},
) =>
  JSON.stringify({
    update_id: updateId,
    message: { message_id: 3, date: 1_764_000_000, chat, from: { id: from, is_bot: false, first_name: 'Ann' }, text, ...extra },
  });

/** A message without text from Ann, carrying `extra` (a photo, a location, a service field). */
const noText = (updateId: number, extra: Record<string, unknown>) =>
  JSON.stringify({
    update_id: updateId,
    message: { message_id: 3, date: 1_764_000_000, chat: { id: 4242, type: 'private' }, from: { id: 4242, is_bot: false, first_name: 'Ann' }, ...extra },
  });

const post = (deps: ReturnType<typeof setup>['deps'], body: string) => handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body }, deps);

describe('telegram webhook', () => {
  it('queues a text message for the agent bound to the bot account, keyed by account and update id', async () => {
    const { deps, queues } = setup();
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body: update() }, deps);
    expect(res).toEqual({ status: 200, body: { ok: true, envelopeId: 'tg.fran.7' } });
    const [body] = queues.queue('fran').bodies();
    expect(JSON.parse(body!)).toMatchObject({
      v: PROTOCOL_VERSION,
      kind: 'message',
      id: 'tg.fran.7',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      text: 'hello',
    });
    expect(await deps.sessions.get('agent:fran:main')).toMatchObject({ agentId: 'fran', target: { accountId: 'fran', chatId: '4242' } });
    // Its answer goes to this sender's chat, for as long as the queue could hold the message.
    expect(await deps.origins.get('tg.fran.7')).toEqual({
      id: 'tg.fran.7',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: { channel: 'telegram', accountId: 'fran', chatId: '4242', threadId: undefined },
      createdAt: 1_000,
      expiresAt: 1_000 + 15 * 24 * 3600_000,
      // The user's message, for threading the reply to it and for the ack reaction on it.
      messageId: 3,
      ack: '👀',
    });
  });

  it('answers 503 and queues nothing when the origin cannot be recorded', async () => {
    const { deps, queues } = setup();
    deps.origins = Object.assign(new InMemoryInboundOrigins(), { put: async () => Promise.reject(new Error('ProvisionedThroughputExceeded')) });
    expect((await post(deps, update())).status).toBe(503);
    expect(queues.queues.size).toBe(0);
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

  it('acknowledges an update that carries nothing for an agent, and queues nothing', async () => {
    const { deps, queues } = setup();
    const body = JSON.stringify({ update_id: 9, my_chat_member: { chat: { id: 1, type: 'private' } } });
    const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: SECRET, body }, deps);
    expect(res).toEqual({ status: 200, body: { ok: true, skipped: 'nothing for an agent in it' } });
    // A service message in a chat (someone joined) is not for the agent either.
    const joined = noText(10, { new_chat_members: [{ id: 5, is_bot: false, first_name: 'Bo' }] });
    expect((await post(deps, joined)).body).toMatchObject({ skipped: 'nothing for an agent in it' });
    expect(queues.queues.size).toBe(0);
  });

  it.each([
    [
      'a photo',
      {
        photo: [
          { file_id: 'a', width: 90, height: 68 },
          { file_id: 'b', width: 1280, height: 960 },
        ],
      },
      /^\[The user sent a photo \(1280×960\)\. Attachments do not reach you yet/,
    ],
    ['a voice message', { voice: { file_id: 'v', duration: 7 } }, /^\[The user sent a voice message \(7 s\)\./],
    [
      'a file',
      { document: { file_id: 'd', file_name: 'plan.pdf', mime_type: 'application/pdf', file_size: 52_000 } },
      /^\[The user sent a file "plan\.pdf" \(application\/pdf, 52000 bytes\)\./,
    ],
    ['a sticker', { sticker: { file_id: 's', emoji: '👍', width: 512, height: 512 } }, /^\[The user sent a sticker 👍\./],
    ['a location', { location: { latitude: 48.8584, longitude: 2.2945 } }, /^\[The user shared a location: latitude 48\.8584, longitude 2\.2945\.\]$/],
  ])('queues %s as a note the agent can answer, instead of dropping it', async (_name, extra, note) => {
    const { deps, queues } = setup();
    const res = await post(deps, noText(11, extra));
    expect(res.body).toMatchObject({ ok: true, envelopeId: 'tg.fran.11' });
    expect(JSON.parse(queues.queue('fran').bodies()[0]!).text).toMatch(note);
  });

  it('puts a photo’s caption after the note, and reads odd media fields leniently', async () => {
    const { deps, queues } = setup();
    await post(deps, noText(12, { photo: [{ file_id: 'b', width: 800, height: 600 }], caption: 'what is this?' }));
    expect(JSON.parse(queues.queue('fran').bodies()[0]!).text).toMatch(/^\[The user sent a photo \(800×600\)\.[^\n]*\]\nwhat is this\?$/);
    // Odd details are left out of the note; the note itself is never dropped.
    const odd: [Record<string, unknown>, string][] = [
      [{ photo: 'nonsense', caption: 'and a caption' }, 'a photo'],
      [{ photo: [{ width: 'wide' }, { width: 640, height: 480 }] }, 'a photo (640×480)'],
      [{ document: { file_name: 'x'.repeat(301), mime_type: 'text/plain' } }, 'a file (text/plain)'],
      [{ audio: { duration: 'long', title: 't'.repeat(400), performer: 'Bo' } }, 'an audio file by Bo'],
      [{ voice: null, video: { duration: 3 } }, 'a video (3 s)'],
      [{ poll: { question: 42, options: 'none' } }, 'a poll'],
    ];
    for (const [i, [extra, said]] of odd.entries()) {
      await post(deps, noText(20 + i, extra));
      expect(JSON.parse(queues.queue('fran').bodies().at(-1)!).text).toContain(`[The user sent ${said}. Attachments do not reach you yet`);
    }
    expect(JSON.parse(queues.queue('fran').bodies()[1]!).text).toMatch(/\]\nand a caption$/);
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

  describe('who may talk to the agent', () => {
    it('pairing: gives an unknown sender a code, queues nothing, and lets them in once the owner approves', async () => {
      const { deps, queues, sent } = setup();
      expect((await post(deps, update(20, 'hi', 777))).body).toMatchObject({ pairing: 'pending' });
      expect(sent).toEqual([{ target: { channel: 'telegram', accountId: 'fran', chatId: '777' }, text: expect.stringContaining('Your pairing code: CODE1') }]);
      // Asking again re-sends the same code rather than issuing a new one.
      await post(deps, update(21, 'hello?', 777));
      expect(sent[1]?.text).toContain('CODE1');
      expect(queues.queues.size).toBe(0);

      expect(await deps.pairings.approve('CODE1', 2_000)).toMatchObject({ peerId: '777', status: 'approved' });
      expect((await post(deps, update(22, 'now?', 777))).body).toMatchObject({ envelopeId: 'tg.fran.22' });
    });

    it('pairing: a code that has lapsed cannot be approved', async () => {
      const { deps } = setup();
      await post(deps, update(23, 'hi', 778));
      expect(await deps.pairings.approve('CODE1', 1_000 + 3600_000 + 1)).toBeUndefined();
    });

    it('pairing: holds at most 3 senders waiting per account; a fourth is ignored without a word until one lapses or is approved', async () => {
      const { deps, queues, sent } = setup();
      for (const [i, peer] of [801, 802, 803].entries()) expect((await post(deps, update(40 + i, 'hi', peer))).body).toMatchObject({ pairing: 'pending' });
      expect((await post(deps, update(43, 'me too', 804))).body).toMatchObject({ ignored: expect.stringMatching(/at their cap \(3 pending\)/) });
      expect(sent.map((m) => m.target.chatId)).toEqual(['801', '802', '803']);
      expect(deps.log.lines.some((l) => l.msg === 'update ignored' && String(l.reason).includes('cap'))).toBe(true);
      // A sender already waiting still gets their code again.
      expect((await post(deps, update(44, 'still me', 802))).body).toMatchObject({ pairing: 'pending' });
      await deps.pairings.approve('CODE1', 1_500);
      expect((await post(deps, update(45, 'now?', 804))).body).toMatchObject({ pairing: 'pending' });
      expect(sent.at(-1)).toMatchObject({ target: { chatId: '804' }, text: expect.stringMatching(/^Hi! .*\nYour pairing code: CODE\d/) });
      expect(queues.queues.size).toBe(0);
    });

    it('allowlist: ignores a sender who is not listed, without answering', async () => {
      const { deps, queues, sent } = setup({ edit: (c) => void (c.channels.telegram!.dmPolicy = 'allowlist') });
      expect((await post(deps, update(24, 'hi', 779))).body).toMatchObject({ ignored: 'sender not in allowFrom' });
      expect(sent).toEqual([]);
      expect(queues.queues.size).toBe(0);
      expect((await post(deps, update(25, 'hi', 4242))).body).toMatchObject({ envelopeId: 'tg.fran.25' });
    });

    it('open: lets anyone in; disabled: lets no one in, not even a listed sender', async () => {
      const open = setup({ edit: (c) => void (c.channels.telegram!.dmPolicy = 'open') });
      expect((await post(open.deps, update(26, 'hi', 780))).body).toMatchObject({ envelopeId: 'tg.fran.26' });
      const disabled = setup({ edit: (c) => void (c.channels.telegram!.accounts.fran!.dmPolicy = 'disabled') });
      expect((await post(disabled.deps, update(27, 'hi', 4242))).body).toMatchObject({ ignored: 'direct messages disabled' });
    });

    it('groups: only enabled groups, and only when the bot is mentioned unless requireMention is off', async () => {
      const group = { id: -100123, type: 'supergroup' };
      const none = setup();
      expect((await post(none.deps, update(30, 'hi all', 4242, group))).body).toMatchObject({ ignored: expect.stringContaining('group not enabled') });

      const { deps, queues } = setup({ edit: (c) => void (c.channels.telegram!.groups = { '-100123': {} }) });
      expect((await post(deps, update(31, 'hi all', 4242, group))).body).toMatchObject({ ignored: 'bot not mentioned' });
      const mention = { entities: [{ type: 'mention', offset: 3, length: 9 }] };
      expect((await post(deps, update(32, 'hi @fran_bot', 4242, group, mention))).body).toMatchObject({ envelopeId: 'tg.fran.32' });
      const reply = { reply_to_message: { from: { id: 1000002 } } };
      expect((await post(deps, update(33, 'and you?', 4242, group, reply))).body).toMatchObject({ envelopeId: 'tg.fran.33' });
      expect(JSON.parse(queues.queue('fran').bodies()[0]!).sessionKey).toBe('agent:fran:telegram:group:-100123');

      const relaxed = setup({ edit: (c) => void (c.channels.telegram!.groups = { '*': { requireMention: false } }) });
      expect((await post(relaxed.deps, update(34, 'hi all', 4242, group))).body).toMatchObject({ envelopeId: 'tg.fran.34' });
    });
  });
});
