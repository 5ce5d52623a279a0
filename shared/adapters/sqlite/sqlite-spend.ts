// Spend (#31) on local mode's SQLite file: the control plane's count (a row per agent and UTC
// day, and the usage reports already counted) and the runtime's ledger (a row per agent and
// month holding shared/budget/ledger.ts's state). Each step is one transaction, and the local
// control plane is the file's one writer, so two sessions racing one budget are serialized here.
import { emptyTotals, type SpendTotals } from '../../budget/budget.ts';
import { emptyMonth, reserveIn, settleIn, type LedgerMonth, type ReserveRequest, type SettleRequest } from '../../budget/ledger.ts';
import { periodsAt } from '../../budget/periods.ts';
import type { SpendCounts, SpendLedger } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

/** How long a counted report's id is remembered: longer than an outbox record is retried. */
export const USAGE_ID_TTL_MS = 15 * 24 * 3600_000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS spend_days (
  agent_id TEXT NOT NULL,
  day TEXT NOT NULL,
  micros INTEGER NOT NULL,
  PRIMARY KEY (agent_id, day)
);
CREATE TABLE IF NOT EXISTS spend_usage (
  agent_id TEXT NOT NULL,
  usage_id TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (agent_id, usage_id)
);
CREATE TABLE IF NOT EXISTS spend_alerts (
  agent_id TEXT NOT NULL,
  month TEXT NOT NULL,
  key TEXT NOT NULL,
  PRIMARY KEY (agent_id, month, key)
);
CREATE TABLE IF NOT EXISTS spend_ledger (
  agent_id TEXT NOT NULL,
  month TEXT NOT NULL,
  state TEXT NOT NULL,
  PRIMARY KEY (agent_id, month)
);
`;

export class SqliteSpendCounts implements SpendCounts {
  constructor(private readonly db: StateDatabase) {
    // Its own tables, created on first use: older state files simply gain them.
    db.exec(SCHEMA);
  }

  async add(agentId: string, usageId: string, micros: number, at: number) {
    const counted = this.db.transaction(() => {
      const fresh = this.db
        .prepare('INSERT OR IGNORE INTO spend_usage (agent_id, usage_id, expires_at) VALUES (?, ?, ?)')
        .run(agentId, usageId, at + USAGE_ID_TTL_MS).changes;
      if (!fresh) return false;
      this.db
        .prepare('INSERT INTO spend_days (agent_id, day, micros) VALUES (?, ?, ?) ON CONFLICT (agent_id, day) DO UPDATE SET micros = micros + excluded.micros')
        .run(agentId, periodsAt(at).day, micros);
      // Reports whose redelivery is long over are forgotten, a few at a time.
      this.db.prepare('DELETE FROM spend_usage WHERE rowid IN (SELECT rowid FROM spend_usage WHERE expires_at <= ? LIMIT 100)').run(at);
      return true;
    })();
    return { counted, totals: await this.totals(agentId, at) };
  }

  async totals(agentId: string, at: number): Promise<SpendTotals> {
    return this.totalsNow(agentId, at);
  }

  /** The same, at once: `clawfleet status` is answered from the fleet's memory and this file without waiting. */
  totalsNow(agentId: string, at: number): SpendTotals {
    const p = periodsAt(at);
    const month = this.db
      .prepare('SELECT COALESCE(SUM(micros), 0) AS micros FROM spend_days WHERE agent_id = ? AND day LIKE ?')
      .get(agentId, `${p.month}-%`) as {
      micros: number;
    };
    const day = this.db.prepare('SELECT micros FROM spend_days WHERE agent_id = ? AND day = ?').get(agentId, p.day) as { micros: number } | undefined;
    const alerted = this.db.prepare('SELECT key FROM spend_alerts WHERE agent_id = ? AND month = ? ORDER BY key').all(agentId, p.month) as { key: string }[];
    return { ...emptyTotals(at), dayMicros: day?.micros ?? 0, monthMicros: month.micros, alerted: alerted.map((a) => a.key) };
  }

  async markAlerted(agentId: string, key: string, at: number) {
    return this.db.prepare('INSERT OR IGNORE INTO spend_alerts (agent_id, month, key) VALUES (?, ?, ?)').run(agentId, periodsAt(at).month, key).changes === 1;
  }
}

export class SqliteSpendLedger implements SpendLedger {
  constructor(private readonly db: StateDatabase) {
    db.exec(SCHEMA);
  }

  /** Reads the agent's month, applies `step` and writes the result, in one transaction. */
  private apply<T>(agentId: string, month: string, step: (state: LedgerMonth) => { state: LedgerMonth; result: T }): T {
    return this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT state FROM spend_ledger WHERE agent_id = ? AND month = ?').get(agentId, month) as { state: string } | undefined;
        const { state, result } = step(row ? (JSON.parse(row.state) as LedgerMonth) : emptyMonth(month));
        this.db
          .prepare('INSERT INTO spend_ledger (agent_id, month, state) VALUES (?, ?, ?) ON CONFLICT (agent_id, month) DO UPDATE SET state = excluded.state')
          .run(agentId, month, JSON.stringify(state));
        return result;
      })
      .immediate();
  }

  async reserve(agentId: string, req: ReserveRequest) {
    return this.apply(agentId, periodsAt(req.at).month, (s) => {
      const { state, outcome } = reserveIn(s, req);
      return { state, result: outcome };
    });
  }

  async settle(agentId: string, req: SettleRequest) {
    return this.apply(agentId, req.month, (s) => {
      const { state, settled } = settleIn(s, req);
      return { state, result: settled };
    });
  }

  async month(agentId: string, month: string) {
    const row = this.db.prepare('SELECT state FROM spend_ledger WHERE agent_id = ? AND month = ?').get(agentId, month) as { state: string } | undefined;
    return row ? (JSON.parse(row.state) as LedgerMonth) : emptyMonth(month);
  }
}
