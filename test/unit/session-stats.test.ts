// /status's session length, context use and model: the runtime reports them in the status it
// sends after a turn (protocol 4), the outbox records them on the session — only on a session
// the sender owns, never going back in time — and /status renders them from the record, so a
// sleeping agent is not woken to say them.
import { describe, expect, it } from 'vitest';
import { InMemoryInboundOrigins, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { SqliteSessionRegistry } from '../../shared/adapters/sqlite/sqlite-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { statusText, tokenCount } from '../../shared/control/commands.ts';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import type { RecordedSessionStats, SessionRecord, SessionRegistry } from '../../shared/ports.ts';
import { PROTOCOL_VERSION, parseOutbound, type MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { assistantMessage, type ModelClient } from '../../runtime-image/src/model/model.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { franMessage, franTurnDeps } from '../support/fran-turn.ts';
import { memoryOutboxDeps } from '../support/outbox-deps.ts';

const config = loadConfigFile('clawfleet.json');
const ann = { channel: 'telegram' as const, accountId: 'fran', chatId: '4242' };
const stats = (over: Partial<RecordedSessionStats> = {}): RecordedSessionStats => ({
  turns: 7,
  messages: 14,
  contextTokens: 12_345,
  contextWindow: 200_000,
  model: 'openai/gpt-4.1-mini',
  at: 40_000,
  ...over,
});
const status = (session: SessionRecord | undefined) =>
  statusText({
    config,
    agentId: 'fran',
    sessionKey: 'agent:fran:main',
    record: undefined,
    session,
    queueDepth: 0,
    now: 100_000,
  });

describe('/status renders the session', () => {
  it('says the session’s length and context use as the runtime last reported them, and how long ago', () => {
    const text = status({ sessionKey: 'agent:fran:main', agentId: 'fran', target: ann, updatedAt: 90_000, stats: stats() });
    expect(text).toContain('Session length: 7 turns, 14 messages in context (as of 60 s ago)');
    expect(text).toContain('Context: 12.3k / 200k tokens (6%)');
    expect(text).toMatch(/^Model: openai\/gpt-4\.1-mini$/m);
  });

  it('names the session’s /model choice first, with the configured chain after it', () => {
    const text = status({
      sessionKey: 'agent:fran:main',
      agentId: 'fran',
      target: ann,
      updatedAt: 90_000,
      stats: stats({ model: 'anthropic/claude-sonnet-4-5', modelChosen: true }),
    });
    expect(text).toMatch(/^Model: anthropic\/claude-sonnet-4-5 \(chosen with \/model; configured: openai\/gpt-4\.1-mini\)$/m);
  });

  it('marks an estimated count, says "<1%" rather than 0% for a small one, and singular for one', () => {
    const text = status({
      sessionKey: 'agent:fran:main',
      agentId: 'fran',
      target: ann,
      updatedAt: 90_000,
      stats: stats({ turns: 1, messages: 1, contextTokens: 850, estimated: true }),
    });
    expect(text).toContain('Session length: 1 turn, 1 message in context');
    expect(text).toContain('Context: ~850 / 200k tokens (<1%)');
  });

  it('says it has not been reported rather than inventing numbers, for a session without a turn yet', () => {
    expect(status(undefined)).toContain('Session length: not reported yet (the agent reports it after a turn)');
    expect(status(undefined)).not.toMatch(/^Context:/m);
  });

  it('says an OpenClaw runtime does not report them, rather than that it has not yet', () => {
    const openclaw = structuredClone(config);
    const fran = openclaw.agents.list.find((a) => a.id === 'fran')!;
    fran.runtime = { ...fran.runtime, kind: 'openclaw' };
    const text = statusText({ config: openclaw, agentId: 'fran', sessionKey: 'agent:fran:main', record: undefined, session: undefined, queueDepth: 0, now: 1 });
    expect(text).toContain('Session length: not reported by this runtime kind');
  });

  it('says token counts as people do', () => {
    expect([0, 850, 1_000, 12_345, 128_000, 1_048_576].map(tokenCount)).toEqual(['0', '850', '1k', '12.3k', '128k', '1M']);
  });
});

// ── The outbox records them, against each real store ──────────────────────────
const stores: [string, () => SessionRegistry][] = [
  ['in memory', () => new InMemorySessionRegistry()],
  ['SQLite', () => new SqliteSessionRegistry(openStateDatabase(':memory:'))],
];
const outboxArn = (agent: string) => `arn:aws:sqs:us-east-1:000000000000:demo-outbox-${agent}.fifo`;

function outbox(sessions: SessionRegistry) {
  const { deps, dlq } = memoryOutboxDeps({
    config,
    origins: new InMemoryInboundOrigins(() => 5_000),
    sessions,
    channel: async () => ({ maxTextLength: 4096, sendText: async () => {}, sendTyping: async () => {} }),
    clock: { now: () => 5_000 },
  });
  const send = (agent: string, over: Record<string, unknown>) =>
    processOutboxRecord(
      {
        source: outboxArn(agent),
        messageId: 'm1',
        body: JSON.stringify({
          v: PROTOCOL_VERSION,
          kind: 'status',
          id: 'tg.fran.7.status.ended',
          agentId: agent,
          sessionKey: 'agent:fran:main',
          turn: 'ended',
          inboundId: 'tg.fran.7',
          ts: 40_000,
          ...over,
        }),
      },
      deps,
    );
  return { send, dlq };
}

const { at: _at, ...reported } = stats();

describe.each(stores)('the outbox records a session’s stats (%s store)', (_name, make) => {
  it('keeps what the runtime reported on the session, and a later message to the session keeps it', async () => {
    const sessions = make();
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: ann, updatedAt: 1 });
    await outbox(sessions).send('fran', { session: reported });
    expect((await sessions.get('agent:fran:main'))?.stats).toEqual(stats());
    // The webhook records each new message's route: the stats stay.
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: ann, updatedAt: 50_000 });
    expect(await sessions.get('agent:fran:main')).toMatchObject({ updatedAt: 50_000, stats: stats() });
    expect((await sessions.list('fran', 10))[0]?.stats).toEqual(stats());
  });

  it('never lets an older report (a redelivered status) overwrite a newer one', async () => {
    const sessions = make();
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: ann, updatedAt: 1 });
    const { send } = outbox(sessions);
    await send('fran', { session: { ...reported, turns: 8 }, ts: 50_000, id: 'tg.fran.8.status.ended', inboundId: 'tg.fran.8' });
    await send('fran', { session: reported, ts: 40_000 });
    expect((await sessions.get('agent:fran:main'))?.stats).toMatchObject({ turns: 8, at: 50_000 });
  });

  it('refuses to write one agent’s report onto another agent’s session, or to make a session up', async () => {
    const sessions = make();
    await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: ann, updatedAt: 1 });
    const { send } = outbox(sessions);
    // grif's runtime, from its own outbox, names fran's session: nothing is written there.
    await send('grif', { agentId: 'grif', session: { ...reported, turns: 999 } });
    expect((await sessions.get('agent:fran:main'))?.stats).toBeUndefined();
    // A session nobody has written to is not created by a report.
    await send('fran', { sessionKey: 'agent:fran:made-up', session: reported });
    expect(await sessions.get('agent:fran:made-up')).toBeUndefined();
    expect(await sessions.recordStats('agent:fran:main', 'grif', stats())).toBe(false);
  });
});

describe('the status envelope’s session field (protocol 4)', () => {
  const base = { v: PROTOCOL_VERSION, kind: 'status', id: 's1', agentId: 'fran', sessionKey: 'agent:fran:main', turn: 'ended', inboundId: 'tg.fran.7', ts: 1 };
  it('refuses impossible numbers and unknown fields rather than recording them', () => {
    expect(() => parseOutbound({ ...base, session: { ...reported, contextWindow: 0 } })).toThrow(/contextWindow/);
    expect(() => parseOutbound({ ...base, session: { ...reported, turns: -1 } })).toThrow(/turns/);
    expect(() => parseOutbound({ ...base, session: { ...reported, model: 'x'.repeat(257) } })).toThrow(/model/);
    expect(() => parseOutbound({ ...base, session: { ...reported, note: 'hi' } })).toThrow(/note|Unrecognized/);
    expect(parseOutbound({ ...base, session: reported })).toMatchObject({ session: reported });
  });
});

// ── The runtime reports them ───────────────────────────────────────────────────
describe('the runtime reports the session after each turn', () => {
  /** A model that counts its context the way a provider does (usage on its answer). */
  const counting = (label: string, contextWindow: number): ModelClient => ({
    label,
    contextWindow,
    async complete(req) {
      const message = assistantMessage(label, [{ type: 'text', text: `ok from ${label}` }]);
      const input = 1_000 * req.messages.length;
      message.usage = { ...message.usage, input, output: 20, totalTokens: input + 20 };
      return { ok: true, message };
    },
  });

  function runtime() {
    const primary = counting('openai/gpt-4.1-mini', 128_000);
    const other = counting('anthropic/claude-sonnet-4-5', 200_000);
    const { deps, outbox: sent } = franTurnDeps(primary, {
      models: { refs: ['openai/gpt-4.1-mini', 'anthropic/claude-sonnet-4-5'], forRef: (ref) => (ref === 'anthropic/claude-sonnet-4-5' ? other : primary) },
    });
    const turn = (n: number, text: string, command?: MessageEnvelope['command']) =>
      runTurn(turnRequestFor(franMessage(n, text, command ? { command } : {})), deps, new AbortController().signal);
    const lastSession = () =>
      sent.queue
        .bodies()
        .map((b) => parseOutbound(b))
        .filter((e) => e.kind === 'status' && e.turn !== 'started')
        .at(-1) as { session?: unknown; inboundId: string } | undefined;
    return { turn, lastSession };
  }

  it('sends turns, messages in context, the provider’s token count and the model’s window; /model and /new are reported too', async () => {
    const { turn, lastSession } = runtime();
    await turn(1, 'hello');
    expect(lastSession()).toMatchObject({
      inboundId: 'tg.fran.1',
      session: { turns: 1, messages: 2, contextTokens: 1_020, contextWindow: 128_000, model: 'openai/gpt-4.1-mini' },
    });
    expect(lastSession()?.session).not.toHaveProperty('estimated');
    await turn(2, 'and again');
    // The second call saw three messages (two earlier ones and the new one).
    expect(lastSession()?.session).toMatchObject({ turns: 2, messages: 4, contextTokens: 3_020 });

    await turn(3, '/model anthropic/claude-sonnet-4-5', { name: 'model', args: 'anthropic/claude-sonnet-4-5' });
    // A /model line is a setting, not a turn; the window is the chosen model's.
    expect(lastSession()).toMatchObject({
      inboundId: 'tg.fran.3',
      session: { turns: 2, messages: 4, contextWindow: 200_000, model: 'anthropic/claude-sonnet-4-5', modelChosen: true },
    });
    await turn(4, 'who are you?');
    expect(lastSession()?.session).toMatchObject({ turns: 3, messages: 6, contextTokens: 5_020, model: 'anthropic/claude-sonnet-4-5', modelChosen: true });

    await turn(5, '/new', { name: 'new', args: '' });
    expect(lastSession()).toMatchObject({
      inboundId: 'tg.fran.5',
      session: { turns: 0, messages: 0, contextTokens: 0, estimated: true, contextWindow: 128_000, model: 'openai/gpt-4.1-mini' },
    });
    expect(lastSession()?.session).not.toHaveProperty('modelChosen');
  });
});
