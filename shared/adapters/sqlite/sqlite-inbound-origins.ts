// Inbound origins on local mode's SQLite file, with the DynamoDB adapter's semantics: an
// expired origin reads as absent, recording one again keeps its relay count and its status
// reaction's state (#31), and counting a relay or moving that state is one conditional statement.
import { InboundOriginSchema } from '../../control/origins.ts';
import type { InboundOrigin, InboundOrigins, StatusFrom, StatusState } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

export class SqliteInboundOrigins implements InboundOrigins {
  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  async get(id: string): Promise<InboundOrigin | undefined> {
    const row = this.db.prepare('SELECT record FROM inbound_origins WHERE id = ? AND expires_at > ?').get(id, this.now()) as { record: string } | undefined;
    return row ? InboundOriginSchema.parse(JSON.parse(row.record)) : undefined;
  }

  async put(origin: InboundOrigin): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO inbound_origins (id, record, expires_at) VALUES (?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET record = excluded.record, expires_at = excluded.expires_at`,
      )
      .run(origin.id, JSON.stringify(origin), origin.expiresAt);
    // As DynamoDB's TTL, lazily: the writer reaps a few expired rows each time.
    this.db.prepare('DELETE FROM inbound_origins WHERE id IN (SELECT id FROM inbound_origins WHERE expires_at <= ? LIMIT 100)').run(this.now());
  }

  async advanceStatus(id: string, to: StatusState, from: readonly StatusFrom[]): Promise<boolean> {
    if (from.length === 0) return false;
    // "unset": the column is empty.
    const state = "COALESCE(status_reaction, 'unset')";
    return (
      this.db
        .prepare(`UPDATE inbound_origins SET status_reaction = ? WHERE id = ? AND expires_at > ? AND ${state} IN (${from.map(() => '?').join(', ')})`)
        .run(to, id, this.now(), ...from).changes === 1
    );
  }

  async takeRelay(id: string, max: number): Promise<boolean> {
    return (
      this.db.prepare('UPDATE inbound_origins SET relays = relays + 1 WHERE id = ? AND expires_at > ? AND relays < ?').run(id, this.now(), max).changes === 1
    );
  }
}
