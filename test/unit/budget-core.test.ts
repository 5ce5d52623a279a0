// The budget's pure core (#31): what a call costs, the UTC periods and their rollover, when a cap
// is reached and what the person and the operator are told.
import { describe, expect, it } from 'vitest';
import { alarmKey, alarmsDue, budgetReachedText, capReached, capsOf, emptyTotals, spendText, type SpendTotals } from '../../shared/budget/budget.ts';
import { periodsAt, untilText } from '../../shared/budget/periods.ts';
import { callCeilingMicros, callCostMicros, DEFAULT_MODEL_PRICES, priceOf, usdText } from '../../shared/budget/prices.ts';

const SONNET = DEFAULT_MODEL_PRICES['anthropic/claude-sonnet-4-5']!;
const MINI = DEFAULT_MODEL_PRICES['openai/gpt-4.1-mini']!;

describe('pricing a call', () => {
  it('prices each kind of token at its own rate, in micro-dollars', () => {
    // 1000 fresh prompt tokens at $3/M, 200 written at $15/M, 5000 read from the cache at $0.30/M, 2000 written to it at $3.75/M.
    expect(callCostMicros({ input: 1000, output: 200, cacheRead: 5000, cacheWrite: 2000 }, SONNET)).toBe(3000 + 3000 + 1500 + 7500);
    expect(callCostMicros({ input: 10_000, output: 1_000, cacheRead: 0, cacheWrite: 0 }, MINI)).toBe(4000 + 1600);
  });

  it('prices cache tokens at the input rate where the table gives no cache price, and rounds a part of a micro-dollar up, never float noise', () => {
    expect(callCostMicros({ input: 0, output: 0, cacheRead: 100, cacheWrite: 100 }, { input: 2, output: 8 })).toBe(400);
    expect(callCostMicros({ input: 1, output: 0, cacheRead: 0, cacheWrite: 0 }, { input: 0.1, output: 0 })).toBe(1);
    expect(callCostMicros({ input: 3, output: 0, cacheRead: 0, cacheWrite: 0 }, { input: 0.1, output: 0 })).toBe(1);
    expect(callCostMicros({ input: 30, output: 0, cacheRead: 0, cacheWrite: 0 }, { input: 0.1, output: 0 })).toBe(3);
    expect(callCostMicros({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, SONNET)).toBe(0);
  });

  it('bounds a call before it is made by its request bytes at the dearest prompt rate and its output cap', () => {
    expect(callCeilingMicros(10_000, 8_192, SONNET)).toBe(10_000 * 3.75 + 8_192 * 15);
    expect(callCeilingMicros(10_000, 8_192, MINI)).toBe(Math.ceil(10_000 * 0.4 + 8_192 * 1.6));
    // A ceiling is never below what the same call can cost: a token is at least a byte.
    const usage = { input: 2000, output: 8192, cacheRead: 3000, cacheWrite: 1000 };
    expect(callCeilingMicros(6000, 8192, SONNET)).toBeGreaterThanOrEqual(callCostMicros(usage, SONNET));
  });

  it('finds a price in the config first, then the defaults', () => {
    expect(priceOf('openai/gpt-4.1-mini', undefined)).toEqual(MINI);
    expect(priceOf('openai/gpt-4.1-mini', { 'openai/gpt-4.1-mini': { input: 1, output: 2 } })).toEqual({ input: 1, output: 2 });
    expect(priceOf('openai/o9', undefined)).toBeUndefined();
  });

  it('writes dollars as people read them', () => {
    expect(usdText(420_000)).toBe('$0.42');
    expect(usdText(12_000_000)).toBe('$12.00');
    expect(usdText(3_100)).toBe('$0.0031');
    expect(usdText(11_200)).toBe('$0.0112');
    expect(usdText(100_000)).toBe('$0.10');
    expect(usdText(0)).toBe('$0.00');
  });
});

describe('the periods: the UTC day and month', () => {
  it('starts a new day at midnight UTC and a new month on the first', () => {
    const before = Date.UTC(2026, 11, 31, 23, 59, 59, 999);
    const after = before + 1;
    expect(periodsAt(before)).toMatchObject({ day: '2026-12-31', month: '2026-12', dayOfMonth: '31', dayResetsAt: after, monthResetsAt: after });
    expect(periodsAt(after)).toMatchObject({ day: '2027-01-01', month: '2027-01', dayOfMonth: '01', dayResetsAt: Date.UTC(2027, 0, 2) });
    // A leap year's February ends on the 29th.
    expect(periodsAt(Date.UTC(2028, 1, 29, 12)).monthResetsAt).toBe(Date.UTC(2028, 2, 1));
  });

  it('says how far off a reset is', () => {
    expect(untilText(0, 5 * 60_000)).toBe('in 5 min');
    expect(untilText(0, 3 * 3_600_000 + 12 * 60_000)).toBe('in 3 h 12 min');
    expect(untilText(0, 5 * 24 * 3_600_000)).toBe('in 5 days');
  });
});

describe('a cap reached, and what is said about it', () => {
  const at = Date.UTC(2026, 11, 3, 20, 48);
  const totals = (day: number, month: number): SpendTotals => ({ ...emptyTotals(at), dayMicros: day, monthMicros: month });

  it('takes a budget in dollars as caps in micro-dollars; no budget is no caps', () => {
    expect(capsOf({ dailyUsd: 1.5 })).toEqual({ dayMicros: 1_500_000 });
    expect(capsOf({ dailyUsd: 1, monthlyUsd: 20 })).toEqual({ dayMicros: 1_000_000, monthMicros: 20_000_000 });
    expect(capsOf(undefined)).toBeUndefined();
    expect(capsOf({})).toBeUndefined();
  });

  it('is reached at the cap, not before; with both reached it is the month’s, which resets later', () => {
    const caps = { dayMicros: 1_000_000, monthMicros: 5_000_000 };
    expect(capReached(caps, totals(999_999, 999_999), at)).toBeUndefined();
    expect(capReached(caps, totals(1_000_000, 1_000_000), at)).toEqual({
      period: 'day',
      spentMicros: 1_000_000,
      capMicros: 1_000_000,
      resetsAt: Date.UTC(2026, 11, 4),
    });
    expect(capReached(caps, totals(1_200_000, 5_000_000), at)).toMatchObject({ period: 'month', resetsAt: Date.UTC(2027, 0, 1) });
  });

  it('tells the person the cap, what was spent, when it resets and how it is raised', () => {
    const reached = capReached({ dayMicros: 1_000_000 }, totals(1_020_000, 1_020_000), at)!;
    const text = budgetReachedText({ id: 'fran', name: 'Fran' }, reached, at);
    expect(text).toContain('Fran has reached its daily budget: $1.02 spent of $1.00 today (UTC)');
    expect(text).toContain('answers again from 00:00 UTC (in 3 h 12 min)');
    expect(text).toContain('budget.dailyUsd of agent "fran" in clawfleet.json');
    const monthly = budgetReachedText({ id: 'fran' }, capReached({ monthMicros: 20_000_000 }, totals(0, 20_000_000), at)!, at);
    expect(monthly).toContain('fran has reached its monthly budget: $20.00 spent of $20.00 this month (UTC)');
    expect(monthly).toContain('from 00:00 UTC on 1 January (in 28 days)');
    expect(monthly).toContain('budget.monthlyUsd');
  });

  it('says spend against the caps for /status', () => {
    expect(spendText({ dayMicros: 1_000_000, monthMicros: 20_000_000 }, totals(420_000, 3_100_000))).toBe(
      '$0.42 of $1.00 today · $3.10 of $20.00 this month (UTC)',
    );
    expect(spendText({ monthMicros: 20_000_000 }, totals(420_000, 3_100_000))).toBe('$0.42 today · $3.10 of $20.00 this month (UTC)');
  });

  it('sets off the 80 % and the 100 % alarm once per period each, the highest share reached only', () => {
    const caps = { dayMicros: 1_000_000, monthMicros: 10_000_000 };
    expect(alarmsDue(caps, totals(799_999, 799_999))).toEqual([]);
    const at80 = alarmsDue(caps, totals(800_000, 800_000));
    expect(at80.map(alarmKey)).toEqual(['day:2026-12-03:80']);
    // Once told, it is not due again; 100 % is its own alarm.
    expect(alarmsDue(caps, { ...totals(900_000, 900_000), alerted: ['day:2026-12-03:80'] })).toEqual([]);
    expect(alarmsDue(caps, { ...totals(1_000_000, 1_000_000), alerted: ['day:2026-12-03:80'] }).map(alarmKey)).toEqual(['day:2026-12-03:100']);
    // A jump past both says 100 % only, and 80 % is not said after it.
    expect(alarmsDue(caps, totals(1_500_000, 1_500_000)).map(alarmKey)).toEqual(['day:2026-12-03:100']);
    expect(alarmsDue(caps, { ...totals(1_500_000, 1_500_000), alerted: ['day:2026-12-03:100'] })).toEqual([]);
    // The month's alarms are counted apart from the day's.
    expect(alarmsDue(caps, { ...totals(0, 8_000_000), alerted: [] }).map(alarmKey)).toEqual(['month:2026-12:80']);
  });
});
