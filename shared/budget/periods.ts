// The periods a budget counts in: the UTC day and the UTC month. UTC rather than a fleet's
// timezone because the fleet has none (cron jobs and active hours each name their own), and
// one clock for every agent, the control plane and the runtime means one reset everybody can
// state: midnight UTC, and the first of the month at midnight UTC.

export interface SpendPeriods {
  /** "2026-12-03". */
  day: string;
  /** "2026-12". */
  month: string;
  /** The day of the month, "03": how a day's figure is keyed within its month. */
  dayOfMonth: string;
  /** When the day's count starts again (epoch ms, the next midnight UTC). */
  dayResetsAt: number;
  /** When the month's count starts again (epoch ms, the first of next month, midnight UTC). */
  monthResetsAt: number;
}

export function periodsAt(at: number): SpendPeriods {
  const d = new Date(at);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const iso = d.toISOString();
  return {
    day: iso.slice(0, 10),
    month: iso.slice(0, 7),
    dayOfMonth: iso.slice(8, 10),
    dayResetsAt: Date.UTC(y, m, d.getUTCDate() + 1),
    monthResetsAt: Date.UTC(y, m + 1, 1),
  };
}

/** "in 3 h 12 min", "in 5 min", "in 2 days": how far off a reset is. */
export function untilText(from: number, to: number): string {
  const minutes = Math.max(1, Math.ceil((to - from) / 60_000));
  if (minutes < 60) return `in ${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `in ${hours} h${minutes % 60 ? ` ${minutes % 60} min` : ''}`;
  return `in ${Math.round(hours / 24)} days`;
}

/** "00:00 UTC" for a reset today-or-tomorrow, "00:00 UTC on 1 January" for a month's. */
export function resetText(at: number, monthly: boolean): string {
  if (!monthly) return '00:00 UTC';
  return `00:00 UTC on ${new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' }).format(new Date(at))}`;
}
