// Cron job schedules as EventBridge Scheduler expressions: `at(...)`, `rate(...)` and
// six-field `cron(...)`. Users write OpenClaw's forms (an ISO time, an interval, a
// five-field Unix cron line); this converts them and says exactly what it cannot.
import { ClawfleetError } from '../errors.ts';

export type JobSchedule = { kind: 'at'; at: string } | { kind: 'every'; everyMs: number } | { kind: 'cron'; expr: string; tz?: string | undefined };

export interface ScheduleExpression {
  expression: string;
  timezone?: string | undefined;
  /** The shortest gap between two runs, in ms (Infinity for a one-off). */
  minIntervalMs: number;
}

const bad = (message: string) => new ClawfleetError('SCHEDULE_INVALID', message);

export function toScheduleExpression(s: JobSchedule): ScheduleExpression {
  switch (s.kind) {
    case 'at': {
      const when = new Date(s.at);
      if (Number.isNaN(when.getTime())) throw bad(`"${s.at}" is not a time`);
      // at() takes a wall-clock time without offset; giving it in UTC keeps the instant exact.
      return { expression: `at(${when.toISOString().slice(0, 19)})`, timezone: 'UTC', minIntervalMs: Infinity };
    }
    case 'every': {
      const minutes = s.everyMs / 60_000;
      if (!Number.isInteger(minutes) || minutes < 1) throw bad(`every ${s.everyMs} ms: intervals must be whole minutes, at least 1`);
      const [n, unit] = minutes % 1440 === 0 ? [minutes / 1440, 'day'] : minutes % 60 === 0 ? [minutes / 60, 'hour'] : [minutes, 'minute'];
      return { expression: `rate(${n} ${unit}${n === 1 ? '' : 's'})`, minIntervalMs: s.everyMs };
    }
    case 'cron':
      return { ...unixCronToScheduler(s.expr), timezone: s.tz };
  }
}

/** "m h dom mon dow" → "cron(m h dom mon dow year)", where one of dom/dow must be "?" and Sunday is 1, not 0. */
function unixCronToScheduler(expr: string): { expression: string; minIntervalMs: number } {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) throw bad(`cron "${expr}" must have five fields: minute hour day-of-month month day-of-week`);
  let [minute, hour, dom, month, dow] = fields as [string, string, string, string, string];
  if (dom !== '*' && dow !== '*') throw bad(`cron "${expr}": EventBridge cannot restrict both day-of-month and day-of-week`);
  if (dow === '*') dow = '?';
  else {
    dom = '?';
    // Renumber the days (Unix 0–6 from Sunday → 1–7), never a step's count after "/".
    dow = dow
      .split(',')
      .map((part) => {
        const [range, step] = part.split('/');
        const days = range!.replace(/\d+/g, (d) => String((Number(d) % 7) + 1));
        return step === undefined ? days : `${days}/${step}`;
      })
      .join(',');
  }
  return { expression: `cron(${minute} ${hour} ${dom} ${month} ${dow} *)`, minIntervalMs: minInterval(minute, hour) };
}

/** A conservative guess of the shortest gap, from the minute and hour fields. */
function minInterval(minute: string, hour: string): number {
  const step = (field: string, span: number): number => {
    if (field === '*') return 1;
    const every = /^\*\/(\d+)$/.exec(field) ?? /^\d+-\d+\/(\d+)$/.exec(field);
    if (every) return Number(every[1]);
    if (/[,-]/.test(field)) {
      const values = field.split(',').flatMap((part) => {
        const [a, b] = part.split('-').map(Number);
        return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i);
      });
      const sorted = [...new Set(values)].sort((x, y) => x - y);
      const gaps = sorted.slice(1).map((v, i) => v - sorted[i]!);
      return Math.min(...gaps, span - sorted.at(-1)! + sorted[0]!);
    }
    return span;
  };
  const minuteGap = step(minute, 60);
  return (minuteGap < 60 ? minuteGap : 60 * step(hour, 24)) * 60_000;
}

/** "30m", "2h", "1d", "45s" (config durations) in ms. */
export function durationMs(text: string): number {
  const m = /^(\d+)(s|m|h|d)$/.exec(text);
  if (!m) throw bad(`"${text}" is not a duration`);
  return Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
}
