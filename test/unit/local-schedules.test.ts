// Local mode reads the EventBridge Scheduler expressions the core makes (at, rate, six-field
// cron with a time zone) and finds their firings; the cron matcher it shares with the
// dashboard skips what cannot match, and must find exactly what a minute-by-minute search finds.
import { describe, expect, it } from 'vitest';
import { nextFiring, parseSchedulerExpression } from '../../shared/adapters/local/scheduler-expression.ts';
import { toScheduleExpression } from '../../shared/cron/expression.ts';
import { nextCronMatch } from '../../shared/cron/next-run.ts';

const T = Date.parse('2026-03-02T10:00:30Z'); // a Monday
const utc = (iso: string) => Date.parse(iso);
const firing = (expression: string, timezone: string | undefined, after: number, anchor = after) =>
  nextFiring(parseSchedulerExpression(expression, timezone), anchor, after);

describe('reading scheduler expressions', () => {
  it('reads at() as a wall-clock time in its time zone', () => {
    expect(parseSchedulerExpression('at(2026-03-02T12:00:00)', 'UTC')).toEqual({ kind: 'at', at: utc('2026-03-02T12:00:00Z') });
    expect(parseSchedulerExpression('at(2026-07-01T09:30:00)', 'Europe/Berlin')).toEqual({ kind: 'at', at: utc('2026-07-01T07:30:00Z') });
    expect(parseSchedulerExpression('at(2026-01-15T09:30:00)', 'America/New_York')).toEqual({ kind: 'at', at: utc('2026-01-15T14:30:00Z') });
    // Either side of Berlin's spring change (02:00 → 03:00 on 29 March 2026).
    expect(parseSchedulerExpression('at(2026-03-29T01:30:00)', 'Europe/Berlin')).toEqual({ kind: 'at', at: utc('2026-03-29T00:30:00Z') });
    expect(parseSchedulerExpression('at(2026-03-29T03:30:00)', 'Europe/Berlin')).toEqual({ kind: 'at', at: utc('2026-03-29T01:30:00Z') });
  });

  it('fires an at() once, and not after its time', () => {
    expect(firing('at(2026-03-02T12:00:00)', 'UTC', T)).toBe(utc('2026-03-02T12:00:00Z'));
    expect(firing('at(2026-03-02T12:00:00)', 'UTC', utc('2026-03-02T12:00:00Z'))).toBeUndefined();
  });

  it('counts rate() from when the schedule was made, whatever the time it is asked', () => {
    const anchor = T;
    expect(firing('rate(1 minute)', undefined, anchor, anchor)).toBe(anchor + 60_000);
    expect(firing('rate(5 minutes)', undefined, anchor + 7 * 60_000, anchor)).toBe(anchor + 10 * 60_000);
    expect(firing('rate(2 hours)', undefined, anchor + 2 * 3_600_000, anchor)).toBe(anchor + 4 * 3_600_000);
    expect(firing('rate(1 day)', undefined, anchor - 1, anchor)).toBe(anchor + 86_400_000);
  });

  it('matches cron() in its time zone, with EventBridge’s day-of-week numbering (Sunday = 1) and names', () => {
    expect(firing('cron(*/15 * ? * * *)', 'UTC', T)).toBe(utc('2026-03-02T10:15:00Z'));
    expect(firing('cron(30 7 ? * * *)', 'Europe/Berlin', T)).toBe(utc('2026-03-03T06:30:00Z'));
    // 1 is Sunday in EventBridge: the next Sunday 09:00 after Monday 2 March.
    expect(firing('cron(0 9 ? * 1 *)', 'UTC', T)).toBe(utc('2026-03-08T09:00:00Z'));
    expect(firing('cron(0 9 ? * SUN *)', 'UTC', T)).toBe(utc('2026-03-08T09:00:00Z'));
    expect(firing('cron(0 9 ? * MON-FRI *)', 'UTC', T)).toBe(utc('2026-03-03T09:00:00Z'));
    expect(firing('cron(0 0 1 JAN ? *)', 'UTC', T)).toBe(utc('2027-01-01T00:00:00Z'));
    // A step in the day-of-week field steps through EventBridge's days: */3 is SUN, WED, SAT.
    expect(firing('cron(0 12 ? * */3 *)', 'UTC', T)).toBe(utc('2026-03-04T12:00:00Z'));
  });

  it('fires what the core makes of the config’s forms at the times they mean', () => {
    const cron = toScheduleExpression({ kind: 'cron', expr: '30 8 * * 1-5', tz: 'America/New_York' });
    expect(firing(cron.expression, cron.timezone, T)).toBe(utc('2026-03-02T13:30:00Z'));
    const at = toScheduleExpression({ kind: 'at', at: '2026-03-02T15:00:00+01:00' });
    expect(firing(at.expression, at.timezone, T)).toBe(utc('2026-03-02T14:00:00Z'));
    const every = toScheduleExpression({ kind: 'every', everyMs: 90 * 60_000 });
    expect(firing(every.expression, every.timezone, T, T)).toBe(T + 90 * 60_000);
  });

  it('finds a leap-day job years ahead, and has no firing for a date that never comes', () => {
    expect(firing('cron(0 0 29 2 ? *)', 'UTC', T)).toBe(utc('2028-02-29T00:00:00Z'));
    expect(firing('cron(0 0 31 2 ? *)', 'UTC', T)).toBeUndefined();
  });

  it('refuses what it cannot evaluate, saying why', () => {
    expect(() => parseSchedulerExpression('cron(0 9 L * ? *)', 'UTC')).toThrow(/cannot evaluate L, W or #/);
    expect(() => parseSchedulerExpression('cron(0 9 ? * 2#1 *)', 'UTC')).toThrow(/cannot evaluate L, W or #/);
    expect(() => parseSchedulerExpression('cron(0 9 * * ? 2027)', 'UTC')).toThrow(/year field/);
    expect(() => parseSchedulerExpression('cron(0 9 * *)', 'UTC')).toThrow(/six fields/);
    expect(() => parseSchedulerExpression('cron(0 9 ? * FUNDAY *)', 'UTC')).toThrow();
    expect(() => parseSchedulerExpression('rate(0 minutes)', 'UTC')).toThrow(/at least 1/);
    expect(() => parseSchedulerExpression('every 5 minutes', 'UTC')).toThrow(/not an at\(\), rate\(\) or cron\(\)/);
    expect(() => parseSchedulerExpression('rate(5 minutes)', 'Mars/Olympus')).toThrow(/unknown time zone "Mars\/Olympus"/);
    expect(() => parseSchedulerExpression('at(2026-02-30T10:00:00)', 'UTC')).toThrow(/not a date/);
  });
});

/** The plain search the skipping matcher must agree with: every minute, one at a time. */
function minuteByMinute(expr: string, tz: string, after: number, minutes: number): number | undefined {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
  });
  const values = (text: string, min: number, max: number) => {
    const out = new Set<number>();
    for (const part of text.split(',')) {
      const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part)!;
      const from = m[1] === '*' ? min : Number(m[2]);
      const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] ? max : from;
      for (let v = from; v <= to; v += m[4] ? Number(m[4]) : 1) out.add(v);
    }
    return out;
  };
  const [mi, h, dom, mon, dow] = expr.split(' ') as [string, string, string, string, string];
  const [M, H, D, Mo, W] = [values(mi, 0, 59), values(h, 0, 23), values(dom, 1, 31), values(mon, 1, 12), values(dow, 0, 7)];
  if (W.has(7)) W.add(0);
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  for (let i = 0; i < minutes; i++, t += 60_000) {
    const p = Object.fromEntries(fmt.formatToParts(t).map((x) => [x.type, x.value]));
    const wd = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(p.weekday!);
    if (!M.has(Number(p.minute)) || !H.has(Number(p.hour)) || !Mo.has(Number(p.month))) continue;
    const [dm, wm] = [D.has(Number(p.day)), W.has(wd)];
    if (dom === '*' && dow === '*' ? true : dom === '*' ? wm : dow === '*' ? dm : dm || wm) return t;
  }
  return undefined;
}

describe('the shared cron matcher', () => {
  it('finds what a minute-by-minute search finds, across clock changes and odd offsets', () => {
    // Days with a clock change (or a 30-minute one, or one at midnight), searched two days ahead.
    const days: [string, string][] = [
      ['Europe/Berlin', '2026-03-28T21:10:00Z'],
      ['Europe/Berlin', '2026-10-24T21:40:00Z'],
      ['America/New_York', '2026-03-07T22:05:00Z'],
      ['Australia/Lord_Howe', '2026-04-04T12:20:00Z'],
      ['Australia/Lord_Howe', '2026-10-03T12:50:00Z'],
      ['America/Santiago', '2026-04-04T21:00:00Z'],
      ['Asia/Kolkata', '2026-06-10T17:45:00Z'],
    ];
    const exprs = ['30 2 * * *', '0 0 * * *', '15 0,1,2,3 * * *', '*/20 1-3 * * *', '59 23 * * *', '0 3 * * 0', '5 * 28,29 * *', '0 12 * 3,10 1-5'];
    let compared = 0;
    for (const [tz, start] of days) {
      for (const expr of exprs) {
        for (const shift of [0, 251]) {
          const after = Date.parse(start) + shift * 60_000;
          expect(nextCronMatch(expr, tz, after, 2 * 1440).at, `${expr} in ${tz} after ${new Date(after).toISOString()}`).toBe(
            minuteByMinute(expr, tz, after, 2 * 1440),
          );
          compared++;
        }
      }
    }
    expect(compared).toBe(112);
  });
});
