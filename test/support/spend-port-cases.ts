// What every adapter of the spend ports (#31) must do — the control plane's count and the
// runtime's ledger — as one set of cases, run against the in-memory and SQLite adapters
// (test/unit/spend-adapters.test.ts) and the DynamoDB ones over the real SDK and the emulator
// (test/integration/spend-dynamo.test.ts). `make` may be called again for the same store: a
// restarted process must find what was counted and held.
import { expect, it } from 'vitest';
import type { SpendCounts, SpendLedger } from '../../shared/ports.ts';

const AT = Date.UTC(2026, 11, 3, 12);
const DAY = 24 * 3600_000;

export function spendCountsCases(make: () => SpendCounts | Promise<SpendCounts>): void {
  it('counts a report once however often it is delivered, and adds up the day and the month', async () => {
    const counts = await make();
    const first = await counts.add('fran', 'tg.fran.1.usage.a.1', 1_200, AT);
    expect(first).toEqual({ counted: true, totals: { day: '2026-12-03', dayMicros: 1_200, month: '2026-12', monthMicros: 1_200, alerted: [] } });
    const again = await counts.add('fran', 'tg.fran.1.usage.a.1', 1_200, AT + 1_000);
    expect(again.counted).toBe(false);
    expect(again.totals.dayMicros).toBe(1_200);
    await counts.add('fran', 'tg.fran.1.usage.a.2', 300, AT + 2_000);
    expect(await counts.totals('fran', AT)).toMatchObject({ dayMicros: 1_500, monthMicros: 1_500 });
  });

  it('starts a new day at midnight UTC and a new month on the first, and keeps agents apart', async () => {
    const counts = await make();
    await counts.add('sara', 'u1', 1_000, AT);
    await counts.add('sara', 'u2', 500, AT + DAY);
    await counts.add('tom', 'u1', 7_000, AT);
    expect(await counts.totals('sara', AT + DAY)).toEqual({ day: '2026-12-04', dayMicros: 500, month: '2026-12', monthMicros: 1_500, alerted: [] });
    expect(await counts.totals('tom', AT)).toMatchObject({ dayMicros: 7_000, monthMicros: 7_000 });
    // The same report id from another agent is that agent's own report.
    expect((await counts.add('tom', 'u2', 1, AT)).counted).toBe(true);
    const january = Date.UTC(2027, 0, 1, 0, 0, 1);
    expect(await counts.totals('sara', january)).toEqual({ day: '2027-01-01', dayMicros: 0, month: '2027-01', monthMicros: 0, alerted: [] });
  });

  it('marks an alarm told once per month, and a restarted control plane still knows the count and the alarms', async () => {
    const counts = await make();
    await counts.add('ray', 'u1', 900, AT);
    expect(await counts.markAlerted('ray', 'day:2026-12-03:80', AT)).toBe(true);
    expect(await counts.markAlerted('ray', 'day:2026-12-03:80', AT)).toBe(false);
    expect(await counts.markAlerted('ray', 'month:2026-12:80', AT)).toBe(true);
    const restarted = await make();
    expect(await restarted.totals('ray', AT)).toEqual({
      day: '2026-12-03',
      dayMicros: 900,
      month: '2026-12',
      monthMicros: 900,
      alerted: ['day:2026-12-03:80', 'month:2026-12:80'],
    });
    expect((await restarted.add('ray', 'u1', 900, AT)).counted).toBe(false);
  });
}

export function spendLedgerCases(make: () => SpendLedger | Promise<SpendLedger>): void {
  const caps = { dayMicros: 1_000 };
  const hold = (callId: string, micros: number, at = AT) => ({ callId, micros, at, caps, holdMs: 600_000 });

  it('holds, makes wait, refuses and settles as the ledger’s rule says, and a restarted runtime finds its month', async () => {
    const ledger = await make();
    expect(await ledger.reserve('fran', hold('a', 700))).toEqual({ kind: 'held', month: '2026-12', alone: false });
    expect(await ledger.reserve('fran', hold('b', 700))).toEqual({ kind: 'wait', inFlight: 1 });
    expect(await ledger.settle('fran', { callId: 'a', month: '2026-12', micros: 900, at: AT })).toBe(true);
    expect(await ledger.settle('fran', { callId: 'a', month: '2026-12', micros: 900, at: AT })).toBe(false);
    expect(await ledger.reserve('fran', hold('b', 700))).toEqual({ kind: 'held', month: '2026-12', alone: true });
    expect(await ledger.settle('fran', { callId: 'b', month: '2026-12', micros: 250, at: AT })).toBe(true);
    expect(await ledger.reserve('fran', hold('c', 1))).toMatchObject({ kind: 'over', reached: { period: 'day', spentMicros: 1_150, capMicros: 1_000 } });
    const restarted = await make();
    expect(await restarted.month('fran', '2026-12')).toEqual({ month: '2026-12', spentMicros: 1_150, days: { '03': 1_150 }, holds: {} });
  });

  it('serializes sessions racing one budget: with room for two ceilings, two of ten are held and the rest wait', async () => {
    const ledger = await make();
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => ledger.reserve('jerry', hold(`race.${i}`, 400))));
    expect(outcomes.filter((o) => o.kind === 'held')).toHaveLength(2);
    expect(outcomes.filter((o) => o.kind === 'wait')).toHaveLength(8);
    const month = await ledger.month('jerry', '2026-12');
    expect(Object.keys(month.holds)).toHaveLength(2);
    // Another agent's ledger is its own.
    expect(await ledger.reserve('grif', hold('race.0', 400))).toMatchObject({ kind: 'held' });
  });

  it('lets the hold of a runtime that died mid-call lapse', async () => {
    const ledger = await make();
    await ledger.reserve('ray', hold('dead', 900));
    expect(await ledger.reserve('ray', hold('next', 200))).toEqual({ kind: 'wait', inFlight: 1 });
    expect(await ledger.reserve('ray', hold('next', 200, AT + 600_001))).toEqual({ kind: 'held', month: '2026-12', alone: false });
  });
}
