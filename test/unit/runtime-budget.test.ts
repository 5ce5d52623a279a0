// The runtime's side of a budget (#31), in-process with a scripted model that reports usage:
// each call's ceiling held before it and settled after, its usage reported on the outbox under
// an id derived from the turn, a turn stopped before its next model call once the cap is spent
// (the asker told why; scheduled work silent), a call that waits for the one in flight, and a
// ledger that cannot be reached stopping the call rather than letting it through unmetered.
import { describe, expect, it } from 'vitest';
import { InMemorySpendLedger } from '../../shared/adapters/memory/in-memory-spend.ts';
import { callCostMicros, DEFAULT_MODEL_PRICES, type TokenUsage } from '../../shared/budget/prices.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { Outbox, SpendLedger } from '../../shared/ports.ts';
import { PROTOCOL_VERSION, type OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { modelChain } from '../../runtime-image/src/model/model-chain.ts';
import { assistantMessage, type ModelClient, type ModelRequest, type ModelResult } from '../../runtime-image/src/model/model.ts';
import { meteredModel, type SpendMeter } from '../../runtime-image/src/spend/metered-model.ts';
import { defineTool } from '../../runtime-image/src/tools/tool.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { z } from 'zod';
import { franMessage, franTurnDeps } from '../support/fran-turn.ts';

const MINI = 'openai/gpt-4.1-mini';
const PRICE = DEFAULT_MODEL_PRICES[MINI]!;
const NOW = Date.UTC(2026, 11, 3, 20, 48);
const clock = { now: () => NOW };
const usage = (input: number, output: number): TokenUsage => ({ input, output, cacheRead: 0, cacheWrite: 0 });

type Step = { text?: string; tool?: string; usage?: TokenUsage } | ((req: ModelRequest) => Promise<ModelResult>);

/** A model of the agent's: answers from a script, reports the usage the script says, is sent with an output cap of 1000 tokens. */
function provider(...script: Step[]): ModelClient & { calls: number } {
  const model = {
    label: MINI,
    contextWindow: 100_000,
    calls: 0,
    outputCap: () => 1_000,
    async complete(req: ModelRequest): Promise<ModelResult> {
      model.calls++;
      const step = script.shift() ?? { text: 'done' };
      if (typeof step === 'function') return step(req);
      const content = [
        ...(step.text ? [{ type: 'text' as const, text: step.text }] : []),
        ...(step.tool ? [{ type: 'toolCall' as const, id: `call_${model.calls}`, name: step.tool, arguments: {} }] : []),
      ];
      const message = assistantMessage(MINI, content, NOW);
      const u = step.usage ?? usage(1_000, 100);
      message.usage = { ...u, totalTokens: u.input + u.output, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
      return { ok: true, message };
    },
  };
  return model;
}

function meter(ledger: SpendLedger, outbox: Outbox, caps: SpendMeter['caps'], over: Partial<SpendMeter> = {}): SpendMeter {
  return { agent: { id: 'fran', name: 'Fran' }, caps, prices: { [MINI]: PRICE }, ledger, outbox, clock, log: memoryLogger(), holdMs: 660_000, ...over };
}

const noop = defineTool({ name: 'noop', description: 'does nothing', schema: z.object({}), run: async () => ({ text: 'ok' }) });

function setup(script: Step[], caps: SpendMeter['caps'], ledger: SpendLedger = new InMemorySpendLedger()) {
  const inner = provider(...script);
  let metered: ModelClient;
  const { deps, outbox } = franTurnDeps(inner, (workspace) => ({ clock, tools: () => [noop], workspace }));
  metered = meteredModel(inner, MINI, meter(ledger, outbox, caps));
  deps.model = metered;
  const sent = () => outbox.queue.bodies().map((b) => JSON.parse(b) as OutboundEnvelope);
  return {
    deps,
    inner,
    ledger,
    sent,
    of: <K extends OutboundEnvelope['kind']>(kind: K) => sent().filter((e) => e.kind === kind) as Extract<OutboundEnvelope, { kind: K }>[],
  };
}

describe('a metered agent’s model calls', () => {
  it('reports each call’s usage under an id derived from its turn, and settles its hold with what it cost', async () => {
    const t = setup(
      [
        { tool: 'noop', usage: usage(2_000, 50) },
        { text: 'all done', usage: usage(2_500, 120) },
      ],
      { dayMicros: 1_000_000 },
    );
    expect(await runTurn(turnRequestFor(franMessage(1, 'go')), t.deps, new AbortController().signal)).toBe('replied');
    const reports = t.of('usage');
    expect(reports).toHaveLength(2);
    expect(reports[0]).toEqual({
      v: PROTOCOL_VERSION,
      kind: 'usage',
      id: expect.stringMatching(/^tg\.fran\.1\.usage\.[0-9a-z]+\.1$/),
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      inboundId: 'tg.fran.1',
      ts: NOW,
      model: MINI,
      tokens: { input: 2_000, output: 50, cacheRead: 0, cacheWrite: 0 },
    });
    expect(reports[1]!.id).toMatch(/\.2$/);
    const month = await t.ledger.month('fran', '2026-12');
    expect(month.holds).toEqual({});
    expect(month.spentMicros).toBe(callCostMicros(usage(2_000, 50), PRICE) + callCostMicros(usage(2_500, 120), PRICE));
    expect(t.of('reply')[0]!.text).toBe('all done');
  });

  it('answers with the cap, its reset and how to raise it — asking no model — once the day’s budget is spent', async () => {
    const ledger = new InMemorySpendLedger();
    await ledger.reserve('fran', { callId: 'earlier', micros: 10, at: NOW, caps: { dayMicros: 1_000 }, holdMs: 1_000 });
    await ledger.settle('fran', { callId: 'earlier', month: '2026-12', micros: 1_020, at: NOW });
    const t = setup([], { dayMicros: 1_000 }, ledger);
    expect(await runTurn(turnRequestFor(franMessage(2, 'hello?')), t.deps, new AbortController().signal)).toBe('replied');
    expect(t.inner.calls).toBe(0);
    expect(t.of('usage')).toEqual([]);
    const [reply] = t.of('reply');
    expect(reply!.text).toContain('Fran has reached its daily budget: $0.001 spent of $0.001 today (UTC)');
    expect(reply!.text).toContain('answers again from 00:00 UTC (in 3 h 12 min)');
    expect(reply!.text).toContain('budget.dailyUsd of agent "fran"');
    expect(t.of('status').at(-1)).toMatchObject({ turn: 'failed', error: 'the agent’s budget is spent' });
    // Redelivered, the recorded note is sent again, and still no model is asked.
    expect(await runTurn(turnRequestFor(franMessage(2, 'hello?')), t.deps, new AbortController().signal)).toBe('resent');
    expect(t.inner.calls).toBe(0);
  });

  it('stops a long tool loop before its next model call when a call has spent the cap, and says so', async () => {
    // The first call's ceiling fits ($0.0021 in, up to 1000 out), its cost ($0.0064) spends the cap.
    const t = setup([{ tool: 'noop', usage: usage(10_000, 1_500) }, { tool: 'noop' }, { text: 'never' }], { dayMicros: 6_000 });
    expect(await runTurn(turnRequestFor(franMessage(3, 'loop')), t.deps, new AbortController().signal)).toBe('replied');
    expect(t.inner.calls).toBe(1);
    expect(t.of('usage')).toHaveLength(1);
    expect(t.of('reply')[0]!.text).toMatch(/^⛔ Fran has reached its daily budget: \$0\.0064 spent of \$0\.006 /);
    // The session remembers the question and the note, not the unfinished loop.
    const record = await t.deps.transcripts.find('agent:fran:main', 'tg.fran.3');
    expect(record?.messages).toBeUndefined();
    expect(record?.reply).toMatch(/^⛔/);
  });

  it('says nothing for scheduled work the budget stops: a heartbeat or cron job is skipped, its status failed', async () => {
    const ledger = new InMemorySpendLedger();
    await ledger.reserve('fran', { callId: 'earlier', micros: 10, at: NOW, caps: { dayMicros: 1_000 }, holdMs: 1_000 });
    await ledger.settle('fran', { callId: 'earlier', month: '2026-12', micros: 5_000, at: NOW });
    const t = setup([], { dayMicros: 1_000 }, ledger);
    const beat = { v: PROTOCOL_VERSION, kind: 'system_event', id: 'hb.fran.1', agentId: 'fran', sessionKey: 'agent:fran:main', ts: 1, text: '' } as const;
    expect(await runTurn(turnRequestFor(beat), t.deps, new AbortController().signal)).toBe('silent');
    expect(t.of('reply')).toEqual([]);
    expect(t.of('status').at(-1)).toMatchObject({ turn: 'failed', inboundId: 'hb.fran.1' });
  });

  it('holds a call that does not fit beside one in flight until that one settles', async () => {
    const ledger = new InMemorySpendLedger();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let waited = 0;
    const slow = provider(async () => {
      await gate;
      const m = assistantMessage(MINI, [{ type: 'text', text: 'first' }], NOW);
      m.usage = { ...usage(100, 10), totalTokens: 110, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
      return { ok: true, message: m };
    });
    const outbox = { send: async () => {} };
    // Room for about one ceiling: the second call must wait for the first.
    const caps = { dayMicros: 3_000 };
    const sleep = async () => {
      waited++;
      if (waited === 3) release();
      await new Promise((r) => setTimeout(r, 1));
    };
    const a = meteredModel(slow, MINI, meter(ledger, outbox, caps, { sleep }));
    const b = meteredModel(provider({ text: 'second', usage: usage(100, 10) }), MINI, meter(ledger, outbox, caps, { sleep }));
    const call = (id: string) => ({ inboundId: id, sessionKey: `agent:fran:${id}`, nextCallId: () => `${id}.usage.x.1` });
    const req = (id: string): ModelRequest => ({ systemPrompt: 'be brief', messages: [], tools: [], call: call(id) });
    const first = a.complete(req('s1'));
    await new Promise((r) => setTimeout(r, 5));
    const second = await b.complete(req('s2'));
    expect(waited).toBeGreaterThanOrEqual(3);
    expect((await first).ok).toBe(true);
    expect(second.ok).toBe(true);
    expect((await ledger.month('fran', '2026-12')).holds).toEqual({});
  });

  it('makes no call it cannot hold: a ledger that cannot be reached fails the call, to be retried', async () => {
    const broken: SpendLedger = {
      reserve: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:4566');
      },
      settle: async () => true,
      month: async () => ({ month: '2026-12', spentMicros: 0, days: {}, holds: {} }),
    };
    const inner = provider({ text: 'hi' });
    const m = meteredModel(inner, MINI, meter(broken, { send: async () => {} }, { dayMicros: 1_000_000 }));
    const result = await m.complete({ systemPrompt: '', messages: [], tools: [], call: { inboundId: 'x', sessionKey: 'k', nextCallId: () => 'x.usage.a.1' } });
    expect(result).toMatchObject({ ok: false, retriable: true, error: expect.stringMatching(/spend ledger could not be reached/) });
    expect(inner.calls).toBe(0);
  });

  it('refuses a call that names no turn, or whose model has no price or no output cap, rather than make it unmetered', async () => {
    const out = { send: async () => {} };
    const ledger = new InMemorySpendLedger();
    const named = { inboundId: 'x', sessionKey: 'k', nextCallId: () => 'x.u.1' };
    const bare = { systemPrompt: '', messages: [], tools: [] };
    expect(await meteredModel(provider(), MINI, meter(ledger, out, { dayMicros: 1 })).complete(bare)).toMatchObject({ ok: false, error: /names no turn/ });
    expect(await meteredModel(provider(), 'openai/o9', meter(ledger, out, { dayMicros: 1 })).complete({ ...bare, call: named })).toMatchObject({
      ok: false,
      error: /has no price/,
    });
    const { outputCap: _, ...uncapped } = provider();
    expect(await meteredModel(uncapped, MINI, meter(ledger, out, { dayMicros: 1 })).complete({ ...bare, call: named })).toMatchObject({
      ok: false,
      error: /has no output cap/,
    });
  });

  it('reports and settles what a failed call was billed for, and asks no fallback once the budget is spent', async () => {
    const ledger = new InMemorySpendLedger();
    const sent: OutboundEnvelope[] = [];
    const out = { send: async (e: OutboundEnvelope) => void sent.push(e) };
    const cut: ModelResult = { ok: false, retriable: false, error: 'stream cut', usage: usage(3_000, 200) };
    const primary = meteredModel(
      provider(async () => cut),
      MINI,
      meter(ledger, out, { dayMicros: 1_000 }),
    );
    const fallback = provider({ text: 'from the fallback' });
    const chain = modelChain([primary, meteredModel(fallback, MINI, meter(ledger, out, { dayMicros: 1_000 }))], {
      attemptsPerModel: 1,
      baseDelayMs: 0,
      maxDelayMs: 0,
    });
    const result = await chain.complete({
      systemPrompt: '',
      messages: [],
      tools: [],
      call: {
        inboundId: 'x',
        sessionKey: 'k',
        nextCallId: (() => {
          let n = 0;
          return () => `x.usage.a.${++n}`;
        })(),
      },
    });
    expect(sent).toEqual([expect.objectContaining({ kind: 'usage', id: 'x.usage.a.1', tokens: { input: 3_000, output: 200, cacheRead: 0, cacheWrite: 0 } })]);
    expect((await ledger.month('fran', '2026-12')).spentMicros).toBe(callCostMicros(usage(3_000, 200), PRICE));
    // The primary's cut-off call spent the cap: the fallback is not asked, the result says why.
    expect(result).toMatchObject({ ok: false, overBudget: { reached: { period: 'day' } } });
    expect(fallback.calls).toBe(0);
  });
});
