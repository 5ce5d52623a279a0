// What a time zone's wall clock reads at an instant, through Intl: the one reading behind the
// cron matcher (shared/cron/next-run.ts) and local mode's `at(...)` times
// (shared/adapters/local/scheduler-expression.ts). An unknown zone throws Intl's RangeError.

export interface WallClock {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  /** 0–23 */
  hour: number;
  minute: number;
  second: number;
  /** 0 = Sunday */
  weekday: number;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** One formatter per zone: the matcher reads the clock minute after minute, for days. */
const formatters = new Map<string, Intl.DateTimeFormat>();

export function wallClockIn(tz: string, at: number): WallClock {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(tz, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
    weekday: WEEKDAYS.indexOf(p.weekday!),
  };
}
