// The agent registry (state, heartbeat, activity, errors) on local mode's SQLite file, with
// the DynamoDB registry's semantics: every state change is a compare-and-set, so the wake
// and hibernate cores decide races the same way locally. It lives in the agent status table
// that `clawfleet status` reads (SqliteAgentStatus: last heartbeat and error, the same
// columns), grown by the registry's own.
import type { AgentRecord, AgentRegistry, AgentState, TransitionGuard } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

const COLUMNS: Record<string, string> = {
  state: 'TEXT',
  state_changed_at: 'INTEGER',
  last_activity_at: 'INTEGER',
  version: 'TEXT',
  restarts: 'INTEGER',
  /** The runtime's warnings at its last heartbeat, as a JSON list. */
  warnings: 'TEXT',
  /** While held: the id of the workspace transfer's hold. */
  hold_id: 'TEXT',
};

interface Row {
  state: AgentState | null;
  state_changed_at: number | null;
  last_heartbeat: number | null;
  last_activity_at: number | null;
  last_error: string | null;
  version: string | null;
  restarts: number | null;
  warnings: string | null;
  hold_id: string | null;
}

export class SqliteAgentRegistry implements AgentRegistry {
  constructor(private readonly db: StateDatabase) {
    // State files from before the registry gain its columns; nothing else changes.
    const have = new Set((db.prepare('PRAGMA table_info(agent_status)').all() as { name: string }[]).map((c) => c.name));
    for (const [name, type] of Object.entries(COLUMNS)) {
      if (!have.has(name)) db.exec(`ALTER TABLE agent_status ADD COLUMN ${name} ${type}`);
    }
  }

  async get(agentId: string): Promise<AgentRecord | undefined> {
    return this.record(agentId);
  }

  /** The registry's record, synchronously (local mode reads it in one process). */
  record(agentId: string): AgentRecord | undefined {
    const row = this.db
      .prepare(
        'SELECT state, state_changed_at, last_heartbeat, last_activity_at, last_error, version, restarts, warnings, hold_id FROM agent_status WHERE agent_id = ?',
      )
      .get(agentId) as Row | undefined;
    if (!row) return undefined;
    // Activity or an error can be recorded before any state: such an agent was never started.
    return {
      agentId,
      state: row.state ?? 'asleep',
      stateChangedAt: row.state_changed_at ?? 0,
      lastHeartbeatAt: row.last_heartbeat ?? undefined,
      lastActivityAt: row.last_activity_at ?? undefined,
      lastError: row.last_error ?? undefined,
      version: row.version ?? undefined,
      restarts: row.restarts ?? undefined,
      warnings: warningsOf(row.warnings),
      ...(row.hold_id !== null ? { holdId: row.hold_id } : {}),
    };
  }

  async transition(agentId: string, from: (AgentState | 'absent')[], to: AgentState, now: number, guard?: TransitionGuard): Promise<boolean> {
    return this.db
      .transaction(() => {
        const row = this.db.prepare('SELECT state, last_activity_at, hold_id FROM agent_status WHERE agent_id = ?').get(agentId) as
          | Pick<Row, 'state' | 'last_activity_at' | 'hold_id'>
          | undefined;
        // 'absent': no state recorded yet (activity or errors may have been).
        if (!from.includes(row?.state ?? 'absent')) return false;
        if (guard && 'activityAt' in guard && (row?.last_activity_at ?? undefined) !== guard.activityAt) return false;
        // A hold is renewed or released only by the transfer that took it.
        if (guard?.holdId !== undefined && row?.state === 'held' && row.hold_id !== guard.holdId) return false;
        const restart = to === 'restarting' || to === 'unhealthy' ? 1 : 0;
        const holdId = to === 'held' ? (guard?.holdId ?? row?.hold_id ?? null) : null;
        this.db
          .prepare(
            `INSERT INTO agent_status (agent_id, state, state_changed_at, restarts, hold_id) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (agent_id) DO UPDATE SET state = excluded.state, state_changed_at = excluded.state_changed_at,
             restarts = coalesce(agent_status.restarts, 0) + ?, hold_id = excluded.hold_id`,
          )
          .run(agentId, to, now, restart, holdId, restart);
        return true;
      })
      .immediate();
  }

  async recordHeartbeat(agentId: string, now: number, version: string, _mcp?: unknown, warnings?: string[]): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO agent_status (agent_id, last_heartbeat, version, state, state_changed_at, warnings) VALUES (?, ?, ?, 'awake', ?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET last_heartbeat = excluded.last_heartbeat, version = excluded.version,
           state = coalesce(agent_status.state, 'awake'), state_changed_at = coalesce(agent_status.state_changed_at, excluded.state_changed_at),
           warnings = coalesce(excluded.warnings, agent_status.warnings)`,
      )
      .run(agentId, now, version, now, warnings ? JSON.stringify(warnings) : null);
    // A heartbeat proves a starting agent is up; a sleeping one is on its way down and stays asleep.
    await this.transition(agentId, ['waking', 'restarting', 'unhealthy'], 'awake', now);
  }

  async recordActivity(agentId: string, now: number): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO agent_status (agent_id, last_activity_at) VALUES (?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET last_activity_at = max(coalesce(agent_status.last_activity_at, 0), excluded.last_activity_at)`,
      )
      .run(agentId, now);
  }

  async recordError(agentId: string, now: number, error: string): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO agent_status (agent_id, last_error, last_error_at) VALUES (?, ?, ?)
         ON CONFLICT (agent_id) DO UPDATE SET last_error = excluded.last_error, last_error_at = excluded.last_error_at`,
      )
      .run(agentId, error.slice(0, 2000), now);
  }
}

/** The stored JSON list, or undefined for none or an unreadable value (never a reason to fail a read). */
function warningsOf(json: string | null): string[] | undefined {
  if (!json) return undefined;
  try {
    const list: unknown = JSON.parse(json);
    return Array.isArray(list) ? list.filter((w): w is string => typeof w === 'string') : undefined;
  } catch {
    return undefined;
  }
}
