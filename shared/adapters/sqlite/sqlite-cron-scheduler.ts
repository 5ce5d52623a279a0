// The fleet's schedule group on local mode's SQLite file: what EventBridge Scheduler is on
// AWS. Each schedule keeps its next firing and its last one, so a firing happens once
// even across a restart, and firings missed while the fleet was down collapse into one.
// local/cron-loop.ts asks for what is due and reports what it fired.
import { nextFiring, parseSchedulerExpression } from '../local/scheduler-expression.ts';
import type { CronScheduler, Schedule } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS cron_schedules (
  name TEXT PRIMARY KEY,
  expression TEXT NOT NULL,
  timezone TEXT,
  input TEXT NOT NULL,
  -- When the schedule was made: rate() counts from here.
  created_at INTEGER NOT NULL,
  -- The next firing; NULL when the expression has none left.
  next_at INTEGER,
  last_fired_at INTEGER,
  -- A one-off at() that has fired: gone, as EventBridge deletes it after completion,
  -- but remembered so that putting the same one again does not fire it twice.
  completed_at INTEGER
);
CREATE INDEX IF NOT EXISTS cron_schedules_by_next ON cron_schedules (next_at);
`;

export interface StoredSchedule extends Schedule {
  createdAt: number;
  nextAt: number | undefined;
  lastFiredAt: number | undefined;
}

/** A firing that is due: the schedule and the time it was due at. */
export interface DueFiring {
  schedule: StoredSchedule;
  at: number;
}

interface Row {
  name: string;
  expression: string;
  timezone: string | null;
  input: string;
  created_at: number;
  next_at: number | null;
  last_fired_at: number | null;
  completed_at: number | null;
}

const toSchedule = (r: Row): StoredSchedule => ({
  name: r.name,
  expression: r.expression,
  timezone: r.timezone ?? undefined,
  input: r.input,
  createdAt: r.created_at,
  nextAt: r.next_at ?? undefined,
  lastFiredAt: r.last_fired_at ?? undefined,
});

export class SqliteCronScheduler implements CronScheduler {
  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {
    // Its own table, created on first use: older state files simply gain it.
    db.exec(SCHEMA);
  }

  /**
   * Creates or replaces a schedule. One whose expression and time zone are unchanged keeps
   * its next and last firing (a restart re-putting the config's schedules changes nothing);
   * a changed one starts over from now. Throws SCHEDULE_INVALID for what it cannot evaluate.
   */
  async put(s: Schedule): Promise<void> {
    this.putNow(s);
  }

  private putNow(s: Schedule): void {
    const parsed = parseSchedulerExpression(s.expression, s.timezone);
    const existing = this.row(s.name);
    if (existing && existing.expression === s.expression && (existing.timezone ?? undefined) === s.timezone) {
      this.db.prepare('UPDATE cron_schedules SET input = ? WHERE name = ?').run(s.input, s.name);
      return;
    }
    const now = this.now();
    // A one-off whose time has passed (say, while the fleet was down) is due at once.
    const next = parsed.kind === 'at' ? parsed.at : nextFiring(parsed, now, now);
    this.db
      .prepare(
        `INSERT OR REPLACE INTO cron_schedules (name, expression, timezone, input, created_at, next_at, last_fired_at, completed_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, NULL)`,
      )
      .run(s.name, s.expression, s.timezone ?? null, s.input, now, next ?? null);
  }

  async delete(name: string): Promise<boolean> {
    const row = this.row(name);
    this.db.prepare('DELETE FROM cron_schedules WHERE name = ?').run(name);
    return row !== undefined && row.completed_at === null;
  }

  async list(prefix: string): Promise<string[]> {
    const rows = this.db.prepare('SELECT name FROM cron_schedules WHERE completed_at IS NULL ORDER BY name').all() as { name: string }[];
    return rows.map((r) => r.name).filter((n) => n.startsWith(prefix));
  }

  get(name: string): StoredSchedule | undefined {
    const row = this.row(name);
    return row && row.completed_at === null ? toSchedule(row) : undefined;
  }

  /**
   * Makes the schedules whose names start with one of `prefixes` exactly `schedules`: the
   * config's own at every start, leaving agents' own jobs alone. All or nothing.
   */
  replace(prefixes: string[], schedules: Schedule[]): { removed: string[] } {
    const wanted = new Set(schedules.map((s) => s.name));
    const owned = (name: string) => prefixes.some((p) => name.startsWith(p));
    return this.db.transaction(() => {
      const removed = (this.db.prepare('SELECT name FROM cron_schedules').all() as { name: string }[])
        .map((r) => r.name)
        .filter((n) => owned(n) && !wanted.has(n));
      for (const name of removed) this.db.prepare('DELETE FROM cron_schedules WHERE name = ?').run(name);
      for (const s of schedules) this.putNow(s);
      return { removed };
    })();
  }

  /** Firings due at `now`, earliest first: each schedule at most once, however many it missed. */
  due(now: number): DueFiring[] {
    const rows = this.db.prepare('SELECT * FROM cron_schedules WHERE completed_at IS NULL AND next_at <= ? ORDER BY next_at, name').all(now) as Row[];
    return rows.map((r) => ({ schedule: toSchedule(r), at: r.next_at! }));
  }

  /**
   * Records that the firing due `at` was handled, at `now`: the next one is the first after
   * both, so firings missed meanwhile are skipped; a one-off is done. False if the schedule
   * was replaced or removed meanwhile (its new times stand).
   */
  fired(name: string, at: number, now: number): boolean {
    const row = this.row(name);
    if (!row || row.next_at !== at || row.completed_at !== null) return false;
    const parsed = parseSchedulerExpression(row.expression, row.timezone ?? undefined);
    if (parsed.kind === 'at') {
      this.db.prepare('UPDATE cron_schedules SET next_at = NULL, last_fired_at = ?, completed_at = ? WHERE name = ?').run(at, now, name);
    } else {
      const next = nextFiring(parsed, row.created_at, Math.max(at, now));
      this.db.prepare('UPDATE cron_schedules SET next_at = ?, last_fired_at = ? WHERE name = ?').run(next ?? null, at, name);
    }
    return true;
  }

  private row(name: string): Row | undefined {
    return this.db.prepare('SELECT * FROM cron_schedules WHERE name = ?').get(name) as Row | undefined;
  }
}
