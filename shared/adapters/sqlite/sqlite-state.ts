// SQLite adapters of the control plane's state ports for local mode, with the semantics
// of the DynamoDB ones: expired dedupe keys read as absent, a session never changes
// hands, and a delivery claim is exclusive until it is completed or its lease runs out.
import { ClawfleetError } from '../../errors.ts';
import type { ChannelTarget, ClaimResult, DeliveryLedger, InboundDedupe, RecordedSessionStats, SessionRecord, SessionRegistry } from '../../ports.ts';
import { readRecordedStats } from '../session-stats-item.ts';
import type { StateDatabase } from './sqlite-database.ts';

export class SqliteInboundDedupe implements InboundDedupe {
  constructor(
    private readonly db: StateDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  async seen(key: string): Promise<boolean> {
    return this.db.prepare('SELECT 1 FROM inbound_dedupe WHERE key = ? AND expires_at > ?').get(key, this.now()) !== undefined;
  }

  async remember(key: string, expiresAt: number): Promise<void> {
    this.db.prepare('INSERT OR REPLACE INTO inbound_dedupe (key, expires_at) VALUES (?, ?)').run(key, expiresAt);
    // DynamoDB's TTL reaps lazily; here the writer does, a little at a time.
    this.db.prepare('DELETE FROM inbound_dedupe WHERE key IN (SELECT key FROM inbound_dedupe WHERE expires_at <= ? LIMIT 100)').run(this.now());
  }
}

export class SqliteSessionRegistry implements SessionRegistry {
  constructor(private readonly db: StateDatabase) {}

  async get(sessionKey: string): Promise<SessionRecord | undefined> {
    const row = this.db.prepare('SELECT agent_id, target, updated_at, blocked_at, stats FROM sessions WHERE session_key = ?').get(sessionKey) as
      | { agent_id: string; target: string; updated_at: number; blocked_at: number | null; stats: string | null }
      | undefined;
    if (!row) return undefined;
    const stats = parseStats(row.stats);
    return {
      sessionKey,
      agentId: row.agent_id,
      target: JSON.parse(row.target) as ChannelTarget,
      updatedAt: row.updated_at,
      ...(row.blocked_at !== null ? { blockedAt: row.blocked_at } : {}),
      ...(stats ? { stats } : {}),
    };
  }

  async put(record: Omit<SessionRecord, 'stats'>): Promise<void> {
    const changed = this.db
      .prepare(
        `INSERT INTO sessions (session_key, agent_id, target, updated_at, blocked_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (session_key) DO UPDATE SET target = excluded.target, updated_at = excluded.updated_at, blocked_at = excluded.blocked_at
         WHERE sessions.agent_id = excluded.agent_id`,
      )
      .run(record.sessionKey, record.agentId, JSON.stringify(record.target), record.updatedAt, record.blockedAt ?? null).changes;
    if (!changed) {
      // Routing derives the key from the agent id, so a move to another agent is a bug.
      throw new ClawfleetError('SESSION_NOT_OWNED', `session ${record.sessionKey} belongs to another agent than ${record.agentId}`);
    }
  }

  async recordStats(sessionKey: string, agentId: string, stats: RecordedSessionStats): Promise<boolean> {
    const changed = this.db
      .prepare(
        `UPDATE sessions SET stats = ? WHERE session_key = ? AND agent_id = ?
         AND (stats IS NULL OR json_extract(stats, '$.at') IS NULL OR json_extract(stats, '$.at') <= ?)`,
      )
      .run(JSON.stringify(stats), sessionKey, agentId, stats.at).changes;
    return changed > 0;
  }

  async list(agentId: string, limit: number): Promise<SessionRecord[]> {
    const rows = this.db
      .prepare('SELECT session_key, target, updated_at, stats FROM sessions WHERE agent_id = ? ORDER BY updated_at DESC LIMIT ?')
      .all(agentId, limit) as { session_key: string; target: string; updated_at: number; stats: string | null }[];
    return rows.map((r) => {
      const stats = parseStats(r.stats);
      return { sessionKey: r.session_key, agentId, target: JSON.parse(r.target) as ChannelTarget, updatedAt: r.updated_at, ...(stats ? { stats } : {}) };
    });
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  }
}

/** Stats as stored; a row this build cannot read shows none rather than failing /status. */
function parseStats(raw: string | null): RecordedSessionStats | undefined {
  if (raw === null) return undefined;
  try {
    return readRecordedStats(JSON.parse(raw));
  } catch {
    return undefined;
  }
}

export class SqliteDeliveryLedger implements DeliveryLedger {
  constructor(private readonly db: StateDatabase) {}

  async claim(key: string, now: number, leaseMs: number): Promise<ClaimResult> {
    return this.db
      .transaction((): ClaimResult => {
        const row = this.db.prepare('SELECT state, lease_until FROM deliveries WHERE key = ?').get(key) as { state: string; lease_until: number } | undefined;
        if (row?.state === 'delivered') return 'delivered';
        if (row && row.lease_until >= now) return 'in-flight';
        this.db.prepare("INSERT OR REPLACE INTO deliveries (key, state, lease_until) VALUES (?, 'sending', ?)").run(key, now + leaseMs);
        return 'claimed';
      })
      .immediate();
  }

  async complete(key: string, now: number): Promise<void> {
    this.db
      .prepare(
        "INSERT INTO deliveries (key, state, lease_until, delivered_at) VALUES (?, 'delivered', 0, ?) ON CONFLICT (key) DO UPDATE SET state = 'delivered', delivered_at = excluded.delivered_at",
      )
      .run(key, now);
  }

  async release(key: string): Promise<void> {
    this.db.prepare("DELETE FROM deliveries WHERE key = ? AND state = 'sending'").run(key);
  }
}

export interface AgentStatusRecord {
  agentId: string;
  lastHeartbeat: number | undefined;
  lastError: string | undefined;
  lastErrorAt: number | undefined;
}

/** What `clawfleet status` shows beyond the process state: when an agent was last heard from, and its last error. */
export class SqliteAgentStatus {
  constructor(private readonly db: StateDatabase) {}

  heartbeat(agentId: string, at: number): void {
    this.db
      .prepare(
        'INSERT INTO agent_status (agent_id, last_heartbeat) VALUES (?, ?) ON CONFLICT (agent_id) DO UPDATE SET last_heartbeat = excluded.last_heartbeat',
      )
      .run(agentId, at);
  }

  error(agentId: string, message: string, at: number): void {
    this.db
      .prepare(
        'INSERT INTO agent_status (agent_id, last_error, last_error_at) VALUES (?, ?, ?) ON CONFLICT (agent_id) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at',
      )
      .run(agentId, message.slice(0, 2000), at);
  }

  get(agentId: string): AgentStatusRecord {
    const row = this.db.prepare('SELECT last_heartbeat, last_error, last_error_at FROM agent_status WHERE agent_id = ?').get(agentId) as
      | { last_heartbeat: number | null; last_error: string | null; last_error_at: number | null }
      | undefined;
    return { agentId, lastHeartbeat: row?.last_heartbeat ?? undefined, lastError: row?.last_error ?? undefined, lastErrorAt: row?.last_error_at ?? undefined };
  }
}
