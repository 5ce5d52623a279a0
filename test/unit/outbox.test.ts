import { describe, expect, it } from 'vitest';
import { InMemoryDeadLetters, InMemoryDeliveryLedger, InMemoryInboundOrigins, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { InMemoryAgentRegistry } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { processOutboxRecord, type OutboxDeps } from '../../shared/control/outbox.ts';
import { memoryLogger } from '../../shared/log.ts';
import { TelegramApiError, type BotApi } from '../../shared/adapters/telegram/bot-api.ts';
import { telegramSender } from '../../shared/adapters/telegram/telegram-sender.ts';
import { MIN_PROTOCOL_VERSION, PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const outboxArn = (agent: string) => `arn:aws:sqs:us-east-1:000000000000:demo-outbox-${agent}.fifo`;

function setup() {
  const sent: { method: string; params: Record<string, unknown> }[] = [];
  let failNext: TelegramApiError | undefined;
  const api: BotApi = {
    async call(method, params) {
      if (failNext) {
        const err = failNext;
        failNext = undefined;
        throw err;
      }
      sent.push({ method, params });
      return {} as never;
    },
  };
  const sessions = new InMemorySessionRegistry();
  const origins = new InMemoryInboundOrigins(() => 5_000);
  const dlq = new InMemoryDeadLetters();
  const deps: OutboxDeps & { log: ReturnType<typeof memoryLogger> } = {
    config: loadConfigFile('clawfleet.json'),
    origins,
    sessions,
    ledger: new InMemoryDeliveryLedger(),
    deadLetters: () => dlq,
    channel: async () => telegramSender(api),
    registry: new InMemoryAgentRegistry(),
    clock: { now: () => 5_000 },
    log: memoryLogger(),
  };
  const ann = { channel: 'telegram' as const, accountId: 'fran', chatId: '4242' };
  void sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: ann, updatedAt: 1 });
  // Ann's messages 7–9 were admitted for fran's main session, as the webhook records them.
  for (const n of [7, 8, 9])
    void origins.put({ id: `tg.fran.${n}`, agentId: 'fran', sessionKey: 'agent:fran:main', target: ann, createdAt: 1, expiresAt: 1_000_000 });
  return { deps, sent, dlq, origins, fail: (e: TelegramApiError) => (failNext = e) };
}

const reply = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    v: PROTOCOL_VERSION,
    kind: 'reply',
    id: 'tg.fran.7.reply.0',
    agentId: 'fran',
    sessionKey: 'agent:fran:main',
    inReplyTo: 'tg.fran.7',
    ts: 1,
    text: 'hi Ann',
    ...over,
  });

const record = (body: string, agent = 'fran') => ({ source: outboxArn(agent), body, messageId: 'm1' });

describe('outbox', () => {
  it('delivers a reply to the origin of the inbound it answers', async () => {
    const { deps, sent } = setup();
    await processOutboxRecord(record(reply()), deps);
    expect(sent).toEqual([
      { method: 'sendMessage', params: { chat_id: '4242', text: 'hi Ann', parse_mode: 'HTML', link_preview_options: { is_disabled: true } } },
    ]);
  });

  it('delivers version 2 to 7 replies (a task of an earlier build still draining through an upgrade); refuses versions it does not read', async () => {
    const { deps, sent, dlq } = setup();
    await processOutboxRecord(record(reply({ v: MIN_PROTOCOL_VERSION })), deps);
    await processOutboxRecord(record(reply({ v: 3, id: 'tg.fran.1.reply.3', text: 'hi again' })), deps);
    await processOutboxRecord(record(reply({ v: 4, id: 'tg.fran.1.reply.4', text: 'and again' })), deps);
    await processOutboxRecord(record(reply({ v: 5, id: 'tg.fran.1.reply.5', text: 'once more' })), deps);
    await processOutboxRecord(record(reply({ v: 6, id: 'tg.fran.1.reply.6', text: 'and more' })), deps);
    expect(sent.map((c) => c.params.text)).toEqual(['hi Ann', 'hi again', 'and again', 'once more', 'and more']);
    await processOutboxRecord(record(reply({ v: 1, id: 'tg.fran.1.reply.1' })), deps);
    await processOutboxRecord(record(reply({ v: PROTOCOL_VERSION + 1, id: 'tg.fran.1.reply.2' })), deps);
    expect(dlq.letters.map((l) => l.reason)).toEqual([
      `ENVELOPE_VERSION: outbound envelope has protocol version 1; this build reads 2 to ${PROTOCOL_VERSION}`,
      `ENVELOPE_VERSION: outbound envelope has protocol version ${PROTOCOL_VERSION + 1}; this build reads 2 to ${PROTOCOL_VERSION}`,
    ]);
  });

  it('delivers to that origin even after someone else wrote to the session', async () => {
    const { deps, sent, origins } = setup();
    const bo = { channel: 'telegram' as const, accountId: 'fran', chatId: '5151' };
    await deps.sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: bo, updatedAt: 2 });
    await origins.put({ id: 'tg.fran.10', agentId: 'fran', sessionKey: 'agent:fran:main', target: bo, createdAt: 2, expiresAt: 1_000_000 });
    await processOutboxRecord(record(reply()), deps);
    await processOutboxRecord(record(reply({ id: 'tg.fran.10.reply.0', inReplyTo: 'tg.fran.10', text: 'hi Bo' })), deps);
    expect(sent.map((c) => [c.params.chat_id, c.params.text])).toEqual([
      ['4242', 'hi Ann'],
      ['5151', 'hi Bo'],
    ]);
  });

  it('logs, and delivers nowhere, a reply to an inbound that has nobody to answer', async () => {
    const { deps, sent, dlq, origins } = setup();
    await origins.put({ id: 'hook.h1', agentId: 'fran', sessionKey: 'agent:fran:main', target: { channel: 'none' }, createdAt: 1, expiresAt: 1_000_000 });
    await processOutboxRecord(record(reply({ id: 'hook.h1.reply.0', inReplyTo: 'hook.h1', text: 'done' })), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters).toEqual([]);
    expect(deps.log.lines.some((l) => l.msg === 'reply not delivered: its inbound has nobody to answer' && l.inReplyTo === 'hook.h1')).toBe(true);
  });

  it('refuses a reply to an inbound its agent never received, or whose origin has expired', async () => {
    const { deps, sent, dlq, origins } = setup();
    await processOutboxRecord(record(reply({ id: 'tg.fran.99.reply.0', inReplyTo: 'tg.fran.99' })), deps);
    await origins.put({
      id: 'tg.fran.1',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: { channel: 'telegram', accountId: 'fran', chatId: '4242' },
      createdAt: 1,
      expiresAt: 4_000,
    });
    await processOutboxRecord(record(reply({ id: 'tg.fran.1.reply.0', inReplyTo: 'tg.fran.1' })), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters.map((l) => l.reason)).toEqual([
      expect.stringMatching(/^ORIGIN_UNKNOWN: no inbound "tg\.fran\.99"/),
      expect.stringMatching(/^ORIGIN_UNKNOWN: no inbound "tg\.fran\.1"/),
    ]);
  });

  it('shows "typing…" to the origin of the turn’s inbound only, and refuses one for an inbound of another agent', async () => {
    const { deps, sent, dlq } = setup();
    const typing = (over: Record<string, unknown>) =>
      JSON.stringify({ v: PROTOCOL_VERSION, kind: 'typing', id: 't1', agentId: 'fran', sessionKey: 'agent:fran:main', inboundId: 'tg.fran.7', ts: 1, ...over });
    await processOutboxRecord(record(typing({})), deps);
    expect(sent).toEqual([{ method: 'sendChatAction', params: { chat_id: '4242', action: 'typing' } }]);
    await processOutboxRecord(record(typing({ agentId: 'grif', sessionKey: 'agent:grif:main' }), 'grif'), deps);
    expect(sent).toHaveLength(1);
    expect(dlq.letters[0]?.reason).toMatch(/^ORIGIN_NOT_OWNED: inbound "tg\.fran\.7" was queued for another agent/);
  });

  it('delivers a redelivered reply only once', async () => {
    const { deps, sent } = setup();
    await processOutboxRecord(record(reply()), deps);
    await processOutboxRecord(record(reply()), deps);
    expect(sent).toHaveLength(1);
  });

  it('splits a long reply into parts that arrive in order', async () => {
    const { deps, sent } = setup();
    const text = `${'a'.repeat(3000)}\n\n${'b'.repeat(2000)}`;
    await processOutboxRecord(record(reply({ text })), deps);
    expect(sent.map((s) => s.params.text)).toEqual(['a'.repeat(3000), 'b'.repeat(2000)]);
  });

  it('rejects an envelope that claims another agent than the outbox it came from', async () => {
    const { deps, sent, dlq } = setup();
    await processOutboxRecord(record(reply(), 'grif'), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters[0]?.reason).toMatch(/^AGENT_MISMATCH/);
    expect(deps.log.lines.some((l) => l.metric === 'OutboxRejected' && l.agentId === 'grif')).toBe(true);
  });

  it('rejects a reply to another agent’s inbound, into that agent’s session or its own', async () => {
    const { deps, sent, dlq } = setup();
    await processOutboxRecord(record(reply({ agentId: 'grif' }), 'grif'), deps);
    await processOutboxRecord(record(reply({ agentId: 'grif', sessionKey: 'agent:grif:main' }), 'grif'), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters.map((l) => l.reason.split(':')[0])).toEqual(['ORIGIN_NOT_OWNED', 'ORIGIN_NOT_OWNED']);
  });

  it.each([
    ['not JSON', '{', /^ENVELOPE_INVALID/],
    ['an unknown protocol version', reply({ v: 99 }), /^ENVELOPE_VERSION/],
    ['an unknown kind', reply({ kind: 'shout' }), /^ENVELOPE_INVALID/],
    [
      'a reply into another session than its inbound’s',
      reply({ sessionKey: 'agent:fran:telegram:group:1' }),
      /^ORIGIN_NOT_OWNED: inbound "tg\.fran\.7" belongs to session "agent:fran:main"/,
    ],
  ])('parks %s in the DLQ with its reason', async (_n, body, reason) => {
    const { deps, sent, dlq } = setup();
    await processOutboxRecord(record(body), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters).toHaveLength(1);
    expect(dlq.letters[0]).toMatchObject({ body, reason: expect.stringMatching(reason) });
  });

  it('retries a reply Telegram could not take right now, and then sends it once', async () => {
    const { deps, sent, fail } = setup();
    fail(new TelegramApiError('sendMessage', 429, 'Too Many Requests: retry after 1', 1));
    await expect(processOutboxRecord(record(reply()), deps)).rejects.toThrow(/429|retry after/);
    await processOutboxRecord(record(reply()), deps);
    expect(sent).toHaveLength(1);
  });

  it('stops replying into a session whose user blocked the bot, until they write again', async () => {
    const { deps, sent, dlq, fail } = setup();
    fail(new TelegramApiError('sendMessage', 403, 'Forbidden: bot was blocked by the user'));
    await processOutboxRecord(record(reply()), deps);
    await processOutboxRecord(record(reply({ id: 'tg.fran.8.reply.0', inReplyTo: 'tg.fran.8', text: 'second' })), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters).toEqual([]);
    expect((await deps.sessions.get('agent:fran:main'))?.blockedAt).toBe(5_000);
  });

  it('parks a reply Telegram refuses for another lasting reason', async () => {
    const { deps, sent, dlq, fail } = setup();
    fail(new TelegramApiError('sendMessage', 400, 'Bad Request: chat not found'));
    await processOutboxRecord(record(reply()), deps);
    await processOutboxRecord(record(reply()), deps);
    expect(sent).toEqual([]);
    expect(dlq.letters[0]?.reason).toMatch(/^DELIVERY_REFUSED.*chat not found/);
  });

  it('sends Markdown as Telegram HTML, and as plain text when Telegram cannot parse it', async () => {
    const { deps, sent, fail } = setup();
    await processOutboxRecord(record(reply({ text: '**Done** — see `notes.md`' })), deps);
    expect(sent[0]?.params).toMatchObject({ text: '<b>Done</b> — see <code>notes.md</code>', parse_mode: 'HTML' });
    fail(new TelegramApiError('sendMessage', 400, "Bad Request: can't parse entities: unexpected end tag"));
    await processOutboxRecord(record(reply({ id: 'tg.fran.9.reply.0', inReplyTo: 'tg.fran.9', text: '**odd** <markup>' })), deps);
    expect(sent[1]?.params).toEqual({ chat_id: '4242', text: '**odd** <markup>', link_preview_options: { is_disabled: true } });
  });

  it('asks to be retried no sooner than Telegram’s retry_after', async () => {
    const { deps, fail } = setup();
    fail(new TelegramApiError('sendMessage', 429, 'Too Many Requests: retry after 7', 7));
    await expect(processOutboxRecord(record(reply()), deps)).rejects.toMatchObject({ name: 'RetryLaterError', seconds: 7 });
  });

  it('records heartbeats, turn activity and failures in the agent registry', async () => {
    const { deps } = setup();
    const base = { v: PROTOCOL_VERSION, agentId: 'fran', ts: 1 };
    await processOutboxRecord(record(JSON.stringify({ ...base, kind: 'heartbeat', id: 'hb1', version: '0.2.0', inFlight: 0 })), deps);
    await processOutboxRecord(record(JSON.stringify({ ...base, kind: 'status', id: 's1', turn: 'failed', inboundId: 'tg.fran.9', error: 'model down' })), deps);
    expect(await deps.registry!.get('fran')).toMatchObject({
      state: 'awake',
      lastHeartbeatAt: 5_000,
      version: '0.2.0',
      lastActivityAt: 5_000,
      lastError: 'model down',
    });
  });
});

describe('recording a delivery', () => {
  it('retries a failed write of the delivered mark, so a passing fault does not send the part twice', async () => {
    const { deps, sent } = setup();
    const ledger = deps.ledger;
    let failures = 2;
    deps.ledger = {
      claim: (...a) => ledger.claim(...a),
      release: (k) => ledger.release(k),
      complete: async (k, n) => (failures-- > 0 ? Promise.reject(new Error('throttled')) : ledger.complete(k, n)),
    };
    await processOutboxRecord(record(reply()), deps);
    await processOutboxRecord(record(reply()), deps);
    expect(sent).toHaveLength(1);
  });
});
