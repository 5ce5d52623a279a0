// Local mode's reading of EventBridge Scheduler expressions, so a schedule made for AWS
// (shared/cron/expression.ts) fires at the same times on one machine: `at(...)` wall-clock
// time in its time zone, `rate(N unit)` counted from when the schedule was made, and
// six-field `cron(...)` matched by the core's five-field matcher (shared/cron/next-run.ts) after translating
// EventBridge's day-of-week numbering (Sunday = 1) and names. Forms it cannot evaluate
// (L, W, #, a year) are refused when the schedule is put, never silently never fired.
import { nextCronMatch } from '../../cron/next-run.ts';
import { wallClockIn } from '../../cron/wall-clock.ts';
import { ClawfleetError } from '../../errors.ts';

export type ParsedSchedule =
  | { kind: 'at'; at: number }
  | { kind: 'rate'; everyMs: number }
  /** `expr` is five-field Unix cron (Sunday = 0), matched in `tz`. */
  | { kind: 'cron'; expr: string; tz: string };

/** How far ahead a cron expression is searched: a yearly job on 29 February fires within five years. */
const CRON_SEARCH_MINUTES = 5 * 366 * 24 * 60;

const bad = (message: string) => new ClawfleetError('SCHEDULE_INVALID', message);

const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

export function parseSchedulerExpression(expression: string, timezone: string | undefined): ParsedSchedule {
  const tz = timezone ?? 'UTC';
  checkTimeZone(tz);
  let m: RegExpExecArray | null;
  if ((m = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/.exec(expression))) {
    const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
    return { kind: 'at', at: wallClockInstant(tz, y, mo, d, h, mi, s) };
  }
  if ((m = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(expression))) {
    const n = Number(m[1]);
    if (n < 1) throw bad(`${expression}: the rate must be at least 1`);
    return { kind: 'rate', everyMs: n * UNIT_MS[m[2]!]! };
  }
  if ((m = /^cron\((.+)\)$/.exec(expression))) return { kind: 'cron', expr: toUnixCron(m[1]!, expression), tz };
  throw bad(`"${expression}" is not an at(), rate() or cron() expression`);
}

/**
 * The first firing strictly after `after`, or undefined when there is none (an `at` that has
 * passed, a cron expression that matches no day within five years). `anchor` is when the
 * schedule was made: rates count from there, as EventBridge Scheduler's do.
 */
export function nextFiring(schedule: ParsedSchedule, anchor: number, after: number): number | undefined {
  switch (schedule.kind) {
    case 'at':
      return schedule.at > after ? schedule.at : undefined;
    case 'rate': {
      const periods = Math.max(0, Math.floor((after - anchor) / schedule.everyMs)) + 1;
      return anchor + periods * schedule.everyMs;
    }
    case 'cron':
      return nextCronMatch(schedule.expr, schedule.tz, after, CRON_SEARCH_MINUTES).at;
  }
}

function checkTimeZone(tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw bad(`unknown time zone "${tz}"`);
  }
}

/** The instant a wall-clock time in `tz` names; a time a clock change skipped is read with the offset from before it. */
function wallClockInstant(tz: string, y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(wall) || new Date(wall).getUTCDate() !== d) throw bad(`${y}-${mo}-${d} is not a date`);
  // The offset at a guess, then at the corrected guess: right on both sides of a clock change.
  let at = wall - offsetMs(tz, wall);
  at = wall - offsetMs(tz, at);
  return at;
}

/** How far `tz`'s wall clock is ahead of UTC at `at`. */
function offsetMs(tz: string, at: number): number {
  const c = wallClockIn(tz, at);
  const wall = Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);
  return wall - Math.floor(at / 1000) * 1000;
}

/** "m h dom mon dow year" (EventBridge) → "m h dom mon dow" (Unix, Sunday = 0). */
function toUnixCron(fields: string, expression: string): string {
  const parts = fields.trim().split(/\s+/);
  if (parts.length !== 6) throw bad(`${expression}: EventBridge cron expressions have six fields`);
  const [minute, hour, dom, month, dow, year] = parts as [string, string, string, string, string, string];
  if (year !== '*') throw bad(`${expression}: local mode cannot evaluate a year field other than "*"`);
  if (/[LW#]/i.test(dom) || /[L#]/i.test(dow)) throw bad(`${expression}: local mode cannot evaluate L, W or # in cron expressions`);
  if (dom === '?' && dow === '?') throw bad(`${expression}: only one of day-of-month and day-of-week may be "?"`);
  const months = month.toUpperCase().replace(/[A-Z]{3}/g, (name) => {
    const i = MONTHS.indexOf(name);
    if (i < 0) throw bad(`${expression}: "${name}" is not a month`);
    return String(i + 1);
  });
  return [minute, hour, dom === '?' ? '*' : dom, months, weekdays(dow, expression)].join(' ');
}

/** EventBridge's day-of-week field (1–7 or SUN–SAT, Sunday first) as a Unix list (0–6). */
function weekdays(field: string, expression: string): string {
  if (field === '?' || field === '*') return '*';
  const named = field.toUpperCase().replace(/[A-Z]{3}/g, (name) => {
    const i = WEEKDAYS.indexOf(name);
    if (i < 0) throw bad(`${expression}: "${name}" is not a day of the week`);
    return String(i + 1);
  });
  const days = new Set<number>();
  for (const part of named.split(',')) {
    const m = /^(\*|(\d)(?:-(\d))?)(?:\/(\d+))?$/.exec(part);
    if (!m) throw bad(`${expression}: cannot read day of week "${part}"`);
    const from = m[1] === '*' ? 1 : Number(m[2]);
    const to = m[1] === '*' ? 7 : m[3] !== undefined ? Number(m[3]) : m[4] ? 7 : from;
    const step = m[4] ? Number(m[4]) : 1;
    if (from < 1 || to > 7 || from > to || step < 1) throw bad(`${expression}: day of week "${part}" is outside 1–7 (SUN–SAT)`);
    for (let d = from; d <= to; d += step) days.add(d - 1);
  }
  return [...days].sort((a, b) => a - b).join(',');
}
