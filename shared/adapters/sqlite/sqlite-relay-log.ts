// Relayed agent messages on local mode's SQLite file, kept for a day as in DynamoDB: long
// enough for any answer, short enough that the table does not grow.
import type { RelayLog, RelayRecord } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

const DAY_MS = 24 * 3600 * 1000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS relays (
  id TEXT PRIMARY KEY,
  record TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);
`;

export class SqliteRelayLog implements RelayLog {
  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {
    // Its own table, created on first use: older state files simply gain it.
    db.exec(SCHEMA);
  }

  async get(id: string): Promise<RelayRecord | undefined> {
    const row = this.db.prepare('SELECT record FROM relays WHERE id = ? AND expires_at > ?').get(id, this.now()) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as RelayRecord) : undefined;
  }

  async put(record: RelayRecord): Promise<void> {
    this.db.prepare('INSERT OR REPLACE INTO relays (id, record, expires_at) VALUES (?, ?, ?)').run(record.id, JSON.stringify(record), record.at + DAY_MS);
    // As DynamoDB's TTL, lazily: the writer reaps a few expired rows each time.
    this.db.prepare('DELETE FROM relays WHERE id IN (SELECT id FROM relays WHERE expires_at <= ? LIMIT 100)').run(this.now());
  }
}
