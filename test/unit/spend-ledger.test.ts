// The runtime's spend ledger (#31), as pure steps: a call's ceiling is held before the call and
// settled with its cost after; what fits goes, the budget's last call goes alone, the rest wait
// or are refused. And the bound it gives, checked over many random races: however many sessions
// race one budget, a period's spend passes its cap by at most one model call.
import { describe, expect, it } from 'vitest';
import { emptyMonth, reserveIn, settleIn, type LedgerMonth, type ReserveOutcome, type ReserveRequest } from '../../shared/budget/ledger.ts';
import { prng } from '../support/prng.ts';

const AT = Date.UTC(2026, 11, 3, 12);
const HOLD = 600_000;
const caps = { dayMicros: 1_000 };
const req = (callId: string, micros: number, over: Partial<ReserveRequest> = {}): ReserveRequest => ({ callId, micros, at: AT, caps, holdMs: HOLD, ...over });

function reserve(state: LedgerMonth, r: ReserveRequest): [LedgerMonth, ReserveOutcome] {
  const out = reserveIn(state, r);
  return [out.state, out.outcome];
}

describe('holding a call’s ceiling', () => {
  it('lets calls through while their ceilings fit beside the calls in flight, then makes the next one wait', () => {
    let s = emptyMonth('2026-12');
    let o: ReserveOutcome;
    [s, o] = reserve(s, req('a', 400));
    expect(o).toEqual({ kind: 'held', month: '2026-12', alone: false });
    [s, o] = reserve(s, req('b', 600));
    expect(o).toEqual({ kind: 'held', month: '2026-12', alone: false });
    [s, o] = reserve(s, req('c', 1));
    expect(o).toEqual({ kind: 'wait', inFlight: 2 });
    // Once one settles below its ceiling, its room is free again.
    s = settleIn(s, { callId: 'a', month: '2026-12', micros: 100, at: AT }).state;
    [s, o] = reserve(s, req('c', 300));
    expect(o.kind).toBe('held');
    expect(s.spentMicros).toBe(100);
    expect(s.days['03']).toBe(100);
  });

  it('lets the budget’s last call through alone when its ceiling does not fit and nothing else is in flight', () => {
    let s: LedgerMonth = { ...emptyMonth('2026-12'), spentMicros: 900, days: { '03': 900 } };
    let o: ReserveOutcome;
    [s, o] = reserve(s, req('last', 500));
    expect(o).toEqual({ kind: 'held', month: '2026-12', alone: true });
    // Nothing else goes while it is in flight, however small.
    [s, o] = reserve(s, req('tiny', 1));
    expect(o).toEqual({ kind: 'wait', inFlight: 1 });
    s = settleIn(s, { callId: 'last', month: '2026-12', micros: 150, at: AT }).state;
    [s, o] = reserve(s, req('tiny', 1));
    expect(o).toMatchObject({ kind: 'over', reached: { period: 'day', spentMicros: 1_050, capMicros: 1_000, resetsAt: Date.UTC(2026, 11, 4) } });
  });

  it('refuses every call once a cap is spent, the month’s as the day’s', () => {
    const s = { ...emptyMonth('2026-12'), spentMicros: 5_000, days: { '01': 5_000 } };
    expect(reserve(s, req('a', 1, { caps: { dayMicros: 1_000 } }))[1].kind).toBe('held'); // another day
    expect(reserve(s, req('a', 1, { caps: { dayMicros: 1_000, monthMicros: 5_000 } }))[1]).toMatchObject({ kind: 'over', reached: { period: 'month' } });
  });

  it('counts a new UTC day from nothing, while the month keeps adding up', () => {
    let s = emptyMonth('2026-12');
    s = reserve(s, req('a', 900))[0];
    s = settleIn(s, { callId: 'a', month: '2026-12', micros: 1_000, at: AT }).state;
    expect(reserve(s, req('b', 1))[1].kind).toBe('over');
    const tomorrow = AT + 24 * 3600_000;
    const [next, o] = reserve(s, req('b', 1, { at: tomorrow }));
    expect(o.kind).toBe('held');
    expect(next.holds.b!.dayOfMonth).toBe('04');
    expect(next.spentMicros).toBe(1_000);
  });

  it('holds a call once, settles it once, and lets a dead runtime’s hold lapse', () => {
    let s = emptyMonth('2026-12');
    s = reserve(s, req('a', 600))[0];
    // Asked again (a retried request): nothing more is held.
    const again = reserve(s, req('a', 600));
    expect(again[1].kind).toBe('held');
    expect(Object.keys(again[0].holds)).toEqual(['a']);
    const first = settleIn(s, { callId: 'a', month: '2026-12', micros: 200, at: AT });
    const second = settleIn(first.state, { callId: 'a', month: '2026-12', micros: 200, at: AT });
    expect([first.settled, second.settled]).toEqual([true, false]);
    expect(second.state.spentMicros).toBe(200);
    // A hold never settled (its runtime SIGKILLed) stops counting once past its lease.
    s = reserve(second.state, req('dead', 800))[0];
    expect(reserve(s, req('next', 100))[1].kind).toBe('wait');
    expect(reserve(s, req('next', 100, { at: AT + HOLD + 1 }))[1]).toEqual({ kind: 'held', month: '2026-12', alone: false });
  });

  it('refuses to apply a step to another month’s ledger', () => {
    expect(() => reserveIn(emptyMonth('2026-11'), req('a', 1))).toThrow(/2026-12 applied to the ledger of 2026-11/);
  });
});

/**
 * Sessions racing one budget: each makes calls one after another until refused; every step of
 * every session (ask, then later settle with a cost at most its ceiling) is interleaved at random.
 * Returns what was spent and the dearest single call.
 */
function race(seed: number, sessions: number, cap: number, gate: typeof reserveIn): { spent: number; dearest: number; calls: number } {
  const rand = prng(seed);
  let state = emptyMonth('2026-12');
  let n = 0;
  let dearest = 0;
  type Session = { inFlight?: { id: string; ceiling: number }; done: boolean };
  const all: Session[] = Array.from({ length: sessions }, () => ({ done: false }));
  for (let steps = 0; steps < 100_000 && all.some((s) => !s.done); steps++) {
    const s = rand.pick(all.filter((x) => !x.done));
    if (s.inFlight) {
      // The provider answers: at most the ceiling, often far less.
      const cost = rand.int(0, s.inFlight.ceiling);
      dearest = Math.max(dearest, cost);
      state = settleIn(state, { callId: s.inFlight.id, month: '2026-12', micros: cost, at: AT }).state;
      s.inFlight = undefined;
      continue;
    }
    const ceiling = rand.int(1, Math.ceil(cap / 3));
    const id = `c${++n}`;
    const out = gate(state, { callId: id, micros: ceiling, at: AT, caps: { dayMicros: cap, monthMicros: cap * 10 }, holdMs: HOLD });
    state = out.state;
    if (out.outcome.kind === 'held') s.inFlight = { id, ceiling };
    else if (out.outcome.kind === 'over') s.done = true;
  }
  return { spent: state.days['03'] ?? 0, dearest, calls: n };
}

/** The gate without the rule: any call goes while the settled spend is below the cap (what a check of spend alone does). */
const naiveGate: typeof reserveIn = (state, r) => {
  const spent = state.days['03'] ?? 0;
  if (spent >= (r.caps.dayMicros ?? Number.POSITIVE_INFINITY))
    return { state, outcome: { kind: 'over', reached: { period: 'day', spentMicros: spent, capMicros: r.caps.dayMicros!, resetsAt: 0 } } };
  return {
    state: { ...state, holds: { ...state.holds, [r.callId]: { micros: r.micros, dayOfMonth: '03', until: r.at + r.holdMs } } },
    outcome: { kind: 'held', month: state.month, alone: false },
  };
};

describe('the bound: sessions racing one budget', () => {
  it('never pass the cap by more than one call, over 400 random races of 2 to 8 sessions', () => {
    const worst: number[] = [];
    for (let seed = 1; seed <= 400; seed++) {
      const cap = 10_000;
      const { spent, dearest, calls } = race(seed, 2 + (seed % 7), cap, reserveIn);
      expect(calls).toBeGreaterThan(2);
      // Over by at most one call's cost (the budget's last, let through alone).
      expect(spent - cap, `seed ${seed}`).toBeLessThanOrEqual(dearest);
      // And by less than one call's ceiling, the most one call can cost.
      expect(spent - cap, `seed ${seed}`).toBeLessThan(Math.ceil(cap / 3));
      worst.push(spent - cap);
    }
    // The races do reach the cap, and some end past it: the bound is what holds, not luck.
    expect(Math.max(...worst)).toBeGreaterThan(0);
  });

  it('is what the rule buys: checking the settled spend alone lets racing sessions overspend by several calls', () => {
    let beyondOneCall = 0;
    for (let seed = 1; seed <= 400; seed++) {
      const cap = 10_000;
      const { spent, dearest } = race(seed, 8, cap, naiveGate);
      if (spent - cap > dearest) beyondOneCall++;
    }
    expect(beyondOneCall).toBeGreaterThan(0);
  });
});
