// The users' reactions per chat and fixed window (#31) on local mode's SQLite file: one counter row
// per chat and window, raised only while below the limit, in one statement.
import type { ReactionRates } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

export class SqliteReactionRates implements ReactionRates {
  constructor(private readonly db: StateDatabase) {}

  async take(chat: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    const taken = this.db
      .prepare(
        `INSERT INTO reaction_rates (chat, window_start, count, expires_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (chat, window_start) DO UPDATE SET count = count + 1 WHERE count < ?`,
      )
      .run(chat, windowStart, windowStart + windowMs, max).changes;
    // Windows that have ended are counted no more; the writer drops a few each time.
    this.db.prepare('DELETE FROM reaction_rates WHERE rowid IN (SELECT rowid FROM reaction_rates WHERE expires_at <= ? LIMIT 100)').run(windowStart);
    return taken === 1;
  }
}
