// The per-pair agent-to-agent rate limit on local mode's SQLite file: one counter row per
// ordered pair and window, raised only while below the limit, in one statement.
import type { RelayRates } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

export class SqliteRelayRates implements RelayRates {
  constructor(private readonly db: StateDatabase) {}

  async take(fromAgentId: string, toAgentId: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    const taken = this.db
      .prepare(
        `INSERT INTO relay_rates (pair, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (pair, window_start) DO UPDATE SET count = count + 1 WHERE count < ?`,
      )
      .run(`${fromAgentId}>${toAgentId}`, windowStart, windowStart + windowMs, max).changes;
    // Windows that have ended are counted no more; the writer drops a few each time.
    this.db.prepare('DELETE FROM relay_rates WHERE rowid IN (SELECT rowid FROM relay_rates WHERE expires_at <= ? LIMIT 100)').run(windowStart);
    return taken === 1;
  }
}
