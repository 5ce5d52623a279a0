// When a cron job runs next. The five-field cron matcher (nextCronMatch) serves local mode's
// scheduler and the dashboard alike; nextRun answers for a configured job from the config
// alone: `at` is its time, a cron expression is matched in its time zone for up to eight
// days (enough for daily and weekly jobs), and `every` is anchored where the scheduler
// created it, which the config does not know.
import type { FleetConfig } from '../config/schema.ts';
import { wallClockIn } from './wall-clock.ts';

type Schedule = NonNullable<FleetConfig['cron']>['jobs'][number]['schedule'];

const SEARCH_MINUTES = 8 * 24 * 60;
const FIELDS: [min: number, max: number][] = [
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 7],
];

/** The set of values one cron field allows, or undefined when it is not a form we read. */
function field(text: string, [min, max]: [number, number]): Set<number> | undefined {
  const out = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|(\d+)(?:-(\d+))?)(?:\/(\d+))?$/.exec(part);
    if (!m) return undefined;
    const from = m[1] === '*' ? min : Number(m[2]);
    const to = m[1] === '*' ? max : m[3] !== undefined ? Number(m[3]) : m[4] ? max : from;
    const step = m[4] ? Number(m[4]) : 1;
    if (from < min || to > max || from > to || step < 1) return undefined;
    for (let v = from; v <= to; v += step) out.add(v);
  }
  return out;
}

export function nextRun(schedule: Schedule, now: number): { at: number | undefined; note: string | undefined } {
  if (schedule.kind === 'at') {
    const at = Date.parse(schedule.at);
    return at > now ? { at, note: undefined } : { at: undefined, note: 'ran (one-shot in the past)' };
  }
  if (schedule.kind === 'every') return { at: undefined, note: 'counted from when the schedule was created' };
  return nextCronMatch(schedule.expr, schedule.tz ?? 'UTC', now);
}

/**
 * The first whole minute after `after` that a five-field cron expression matches in `tz`,
 * looking `searchMinutes` ahead. Days, hours and minutes that cannot match are skipped
 * rather than stepped through, never past a minute that could: a jump towards midnight
 * stops an hour short (a clock change moves midnight by at most that), and time zones
 * change their offset only on the hour.
 */
export function nextCronMatch(expr: string, tz: string, after: number, searchMinutes = SEARCH_MINUTES): { at: number | undefined; note: string | undefined } {
  const texts = expr.trim().split(/\s+/);
  const sets = texts.length === 5 ? texts.map((t, i) => field(t, FIELDS[i]!)) : [];
  if (sets.length !== 5 || sets.some((s) => !s)) return { at: undefined, note: 'expression not read here' };
  const [minutes, hours, days, months, weekdays] = sets as Set<number>[];
  if (weekdays!.has(7)) weekdays!.add(0);
  // Classic cron: when both day fields are restricted, either may match.
  const domAny = texts[2] === '*';
  const dowAny = texts[4] === '*';
  try {
    wallClockIn(tz, after);
  } catch {
    return { at: undefined, note: `unknown time zone ${tz}` };
  }
  const minuteList = [...minutes!].sort((a, b) => a - b);
  let t = Math.floor(after / 60_000) * 60_000 + 60_000;
  const end = t + searchMinutes * 60_000;
  while (t < end) {
    const p = wallClockIn(tz, t);
    const dom = days!.has(p.day);
    const dow = weekdays!.has(p.weekday);
    const dayMatches = months!.has(p.month) && (domAny && dowAny ? true : domAny ? dow : dowAny ? dom : dom || dow);
    const toNextHour = 60 - p.minute;
    if (!dayMatches) {
      const toMidnight = (23 - p.hour) * 60 + toNextHour;
      t += (toMidnight > 120 ? toMidnight - 60 : toNextHour) * 60_000;
    } else if (!hours!.has(p.hour)) {
      t += toNextHour * 60_000;
    } else if (!minutes!.has(p.minute)) {
      const next = minuteList.find((m) => m > p.minute);
      t += (next === undefined ? toNextHour : next - p.minute) * 60_000;
    } else {
      return { at: t, note: undefined };
    }
  }
  return { at: undefined, note: searchMinutes === SEARCH_MINUTES ? 'more than a week away' : `not within ${Math.round(searchMinutes / 1440)} days` };
}
