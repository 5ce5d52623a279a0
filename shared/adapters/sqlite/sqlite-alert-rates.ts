// Operator alerts counted per key and window locally, in the table the agent-to-agent rate
// counters use (under keys of their own, `alert-rate:<key>`, which no pair of agent ids spells).
import type { AlertRates } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

export class SqliteAlertRates implements AlertRates {
  constructor(private readonly db: StateDatabase) {}

  async take(key: string, windowStart: number, windowMs: number, max: number): Promise<number | undefined> {
    const pair = `alert-rate:${key}`;
    const taken = this.db
      .prepare(
        `INSERT INTO relay_rates (pair, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (pair, window_start) DO UPDATE SET count = count + 1 WHERE count < ?`,
      )
      .run(pair, windowStart, windowStart + windowMs, max).changes;
    if (taken !== 1) return undefined;
    const row = this.db.prepare('SELECT count FROM relay_rates WHERE pair = ? AND window_start = ?').get(pair, windowStart) as { count: number };
    return row.count;
  }
}
