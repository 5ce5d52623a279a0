// Pairings for local mode, with the DynamoDB store's semantics: one record per sender and
// account; a live pending code is kept rather than replaced; approval needs a live code;
// at most the given number of live pending senders per account (counted in the transaction).
import { PairingRecordSchema } from '../../control/access.ts';
import type { PairingRecord, PairingStore } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

const read = (row: { record: string } | undefined): PairingRecord | undefined => (row ? PairingRecordSchema.parse(JSON.parse(row.record)) : undefined);

export class SqlitePairingStore implements PairingStore {
  constructor(private readonly db: StateDatabase) {}

  async get(accountId: string, peerId: string): Promise<PairingRecord | undefined> {
    return read(this.db.prepare('SELECT record FROM pairings WHERE account_id = ? AND peer_id = ?').get(accountId, peerId) as { record: string } | undefined);
  }

  async createPending(record: PairingRecord, opts: { maxPerAccount?: number } = {}): Promise<PairingRecord | 'full'> {
    return this.db
      .transaction((): PairingRecord | 'full' => {
        const existing = read(
          this.db.prepare('SELECT record FROM pairings WHERE account_id = ? AND peer_id = ?').get(record.accountId, record.peerId) as
            | { record: string }
            | undefined,
        );
        if (existing && (existing.status === 'approved' || existing.expiresAt > record.createdAt)) return existing;
        if (opts.maxPerAccount !== undefined) {
          const waiting = (
            this.db
              .prepare("SELECT count(*) AS n FROM pairings WHERE account_id = ? AND status = 'pending' AND expires_at > ?")
              .get(record.accountId, record.createdAt) as { n: number }
          ).n;
          if (waiting >= opts.maxPerAccount) return 'full';
        }
        this.db
          .prepare('INSERT OR REPLACE INTO pairings (account_id, peer_id, code, status, expires_at, record) VALUES (?, ?, ?, ?, ?, ?)')
          .run(record.accountId, record.peerId, record.code, record.status, record.expiresAt, JSON.stringify(record));
        return record;
      })
      .immediate();
  }

  async approve(code: string, now: number): Promise<PairingRecord | undefined> {
    return this.db
      .transaction((): PairingRecord | undefined => {
        const found = read(
          this.db.prepare("SELECT record FROM pairings WHERE code = ? AND status = 'pending' AND expires_at > ?").get(code, now) as
            | { record: string }
            | undefined,
        );
        if (!found) return undefined;
        const approved: PairingRecord = { ...found, status: 'approved' };
        this.db
          .prepare("UPDATE pairings SET status = 'approved', record = ? WHERE account_id = ? AND peer_id = ?")
          .run(JSON.stringify(approved), found.accountId, found.peerId);
        return approved;
      })
      .immediate();
  }

  async listPending(now: number): Promise<PairingRecord[]> {
    const rows = this.db.prepare("SELECT record FROM pairings WHERE status = 'pending' AND expires_at > ? ORDER BY expires_at").all(now) as {
      record: string;
    }[];
    return rows.map((r) => read(r)!);
  }
}
