// AgentMetrics on local mode's SQLite file: a counter row per agent and 15-minute bucket,
// and one row per finished turn (keyed by inbound id and outcome, so a redelivered status
// envelope counts once). Rows older than the retention are pruned by the writer.
import { bucketStart, METRICS_RETENTION_MS } from '../../metrics/buckets.ts';
import type { ActivityBucket, AgentMetrics, TurnEvent, TurnTiming } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS agent_activity (
  agent_id TEXT NOT NULL,
  bucket INTEGER NOT NULL,
  turns INTEGER NOT NULL DEFAULT 0,
  errors INTEGER NOT NULL DEFAULT 0,
  max_depth INTEGER,
  PRIMARY KEY (agent_id, bucket)
);
CREATE TABLE IF NOT EXISTS agent_turns (
  agent_id TEXT NOT NULL,
  inbound_id TEXT NOT NULL,
  outcome TEXT NOT NULL,
  at INTEGER NOT NULL,
  session_key TEXT,
  timing TEXT,
  error TEXT,
  PRIMARY KEY (agent_id, inbound_id, outcome)
);
CREATE INDEX IF NOT EXISTS agent_turns_by_time ON agent_turns (agent_id, at);
`;

export class SqliteAgentMetrics implements AgentMetrics {
  private writes = 0;

  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {
    // Its own tables, created on first use: older state files simply gain them.
    db.exec(SCHEMA);
  }

  async recordTurn(event: TurnEvent): Promise<void> {
    this.db.transaction(() => {
      const inserted = this.db
        .prepare('INSERT OR IGNORE INTO agent_turns (agent_id, inbound_id, outcome, at, session_key, timing, error) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(
          event.agentId,
          event.inboundId,
          event.outcome,
          event.at,
          event.sessionKey ?? null,
          event.timing ? JSON.stringify(event.timing) : null,
          event.error ?? null,
        ).changes;
      if (!inserted) return;
      this.db
        .prepare(
          `INSERT INTO agent_activity (agent_id, bucket, turns, errors) VALUES (?, ?, 1, ?)
           ON CONFLICT (agent_id, bucket) DO UPDATE SET turns = turns + 1, errors = errors + excluded.errors`,
        )
        .run(event.agentId, bucketStart(event.at), event.outcome === 'failed' ? 1 : 0);
    })();
    this.prune();
  }

  async recordQueueDepth(agentId: string, at: number, depth: number): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO agent_activity (agent_id, bucket, max_depth) VALUES (?, ?, ?)
         ON CONFLICT (agent_id, bucket) DO UPDATE SET max_depth = max(coalesce(max_depth, 0), excluded.max_depth)`,
      )
      .run(agentId, bucketStart(at), depth);
    this.prune();
  }

  async activity(agentId: string, from: number, to: number): Promise<ActivityBucket[]> {
    const rows = this.db
      .prepare('SELECT bucket, turns, errors, max_depth FROM agent_activity WHERE agent_id = ? AND bucket >= ? AND bucket < ? ORDER BY bucket')
      .all(agentId, bucketStart(from), to) as { bucket: number; turns: number; errors: number; max_depth: number | null }[];
    return rows.map((r) => ({ start: r.bucket, turns: r.turns, errors: r.errors, maxQueueDepth: r.max_depth ?? undefined }));
  }

  async recentTurns(agentId: string, from: number, limit: number): Promise<TurnEvent[]> {
    const rows = this.db
      .prepare('SELECT inbound_id, outcome, at, session_key, timing, error FROM agent_turns WHERE agent_id = ? AND at >= ? ORDER BY at DESC LIMIT ?')
      .all(agentId, from, limit) as {
      inbound_id: string;
      outcome: 'ended' | 'failed';
      at: number;
      session_key: string | null;
      timing: string | null;
      error: string | null;
    }[];
    return rows.map((r) => ({
      agentId,
      inboundId: r.inbound_id,
      outcome: r.outcome,
      at: r.at,
      sessionKey: r.session_key ?? undefined,
      timing: r.timing ? (JSON.parse(r.timing) as TurnTiming) : undefined,
      error: r.error ?? undefined,
    }));
  }

  /** Every hundredth write: cheap enough to keep the tables at about two days. */
  private prune(): void {
    if (this.writes++ % 100 !== 0) return;
    const before = this.now() - METRICS_RETENTION_MS;
    this.db.prepare('DELETE FROM agent_turns WHERE at < ?').run(before);
    this.db.prepare('DELETE FROM agent_activity WHERE bucket < ?').run(bucketStart(before));
  }
}
