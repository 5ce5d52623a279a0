// Removing an agent from a local fleet's state directory (`clawfleet agents remove|prune`):
// its workspace, runtime bookkeeping and log move to <state>/archive/<id>-<date>/ (nothing is
// deleted), then the schedules and records in state.db that name it go. The fleet must be
// stopped: the state directory's lock (local/state-lock.ts) is held while this runs, so a
// fleet cannot start meanwhile and one that runs makes this refuse, naming its pid.
import { existsSync, mkdirSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStateDatabase, type StateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { localQueueNames } from '../../shared/adapters/sqlite/sqlite-queues.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { lockStateDir, type StateLock } from '../../local/state-lock.ts';
import { CliError, EXIT } from '../command.ts';
import type { RemovalPlan } from './removal.ts';
import type { StepResult } from '../steps.ts';

/** Where an agent's files live in the state directory, as local/supervisor.ts and local/runtime-logs.ts put them. */
const agentPaths = (stateDir: string, agentId: string) => ({
  workspace: join(stateDir, 'workspaces', agentId),
  runtime: join(stateDir, 'runtime', agentId),
  log: join(stateDir, 'logs', `${agentId}.log`),
});

export interface LocalRemovalOptions {
  /** The fleet's name, for the names in the plan (its secret clawfleet/<fleet>/agents/<id>). */
  fleet: string;
  /** Plan only: the state directory is read, not locked, so a running fleet does not stand in the way. */
  dryRun?: boolean;
  now?: () => Date;
}

export class LocalAgentRemoval {
  private constructor(
    private readonly stateDir: string,
    private readonly fleet: string,
    private readonly lock: StateLock | undefined,
    private readonly db: StateDatabase | undefined,
    private readonly now: () => Date,
    /** Why the removal itself could not run now (a fleet holds the directory); said in a dry run's plan. */
    private readonly inUse: string | undefined,
  ) {}

  /**
   * Takes the state directory (refusing while a fleet runs on it) and opens its database, if
   * it has one. A dry run only reads: it opens the database read-only, beside a running fleet.
   */
  static async open(stateDir: string, opts: LocalRemovalOptions): Promise<LocalAgentRemoval> {
    if (!existsSync(stateDir))
      throw new CliError(EXIT.failed, `no state directory ${stateDir}: nothing of a local fleet is there (pass --state, or --aws for the deployed fleet)`);
    let lock: StateLock | undefined;
    let inUse: string | undefined;
    try {
      lock = await lockStateDir(stateDir, { pid: process.pid, startedAt: Date.now() });
    } catch (err) {
      if (!(err instanceof ClawfleetError && err.code === 'STATE_DIR_IN_USE')) throw err;
      if (!opts.dryRun) throw new CliError(EXIT.failed, `${err.message}; agents are removed from a stopped fleet (--dry-run shows the plan meanwhile)`);
      inUse = err.message;
    }
    if (opts.dryRun) {
      // Taken only to learn whether a fleet holds the directory: a plan writes nothing.
      lock?.release();
      lock = undefined;
    }
    const dbFile = join(stateDir, 'state.db');
    const db = existsSync(dbFile) ? (opts.dryRun ? new Database(dbFile, { readonly: true, fileMustExist: true }) : openStateDatabase(dbFile)) : undefined;
    return new LocalAgentRemoval(stateDir, opts.fleet, lock, db, opts.now ?? (() => new Date()), inUse);
  }

  close(): void {
    this.db?.close();
    this.lock?.release();
  }

  /** Agents the state directory holds anything of: workspaces, logs, statuses, sessions, queued messages, schedules. */
  found(): { id: string; where: string }[] {
    const out: { id: string; where: string }[] = [];
    const dir = (sub: string) => (existsSync(join(this.stateDir, sub)) ? readdirSync(join(this.stateDir, sub)) : []);
    for (const id of dir('workspaces')) out.push({ id, where: 'workspace' });
    for (const file of dir('logs')) if (file.endsWith('.log')) out.push({ id: file.slice(0, -'.log'.length), where: 'log' });
    if (!this.db) return out;
    const ids = (sql: string) => (this.has(sql.match(/FROM (\w+)/)![1]!) ? (this.db!.prepare(sql).all() as { id: string }[]).map((r) => r.id) : []);
    for (const id of ids('SELECT DISTINCT agent_id AS id FROM agent_status')) out.push({ id, where: 'status' });
    for (const id of ids('SELECT DISTINCT agent_id AS id FROM sessions')) out.push({ id, where: 'sessions' });
    for (const id of ids("SELECT DISTINCT substr(queue, 7) AS id FROM queue_messages WHERE queue LIKE 'agent-%' AND queue NOT LIKE '%-dlq'"))
      out.push({ id, where: 'queued messages' });
    for (const id of ids("SELECT DISTINCT json_extract(input, '$.agentId') AS id FROM cron_schedules WHERE json_valid(input)"))
      if (id) out.push({ id, where: 'schedules' });
    return out;
  }

  plan(agentId: string): RemovalPlan {
    const paths = agentPaths(this.stateDir, agentId);
    const queued = this.count('queue_messages', 'queue = ?', localQueueNames(agentId).inbox);
    const parked = this.count('dead_letters', 'queue IN (?, ?)', localQueueNames(agentId).inboxDlq, localQueueNames(agentId).outboxDlq);
    const notes: string[] = [];
    if (queued) notes.push(`${queued} message(s) still waiting in its queue are deleted`);
    if (parked) notes.push(`${parked} message(s) parked in its DLQs are deleted`);
    notes.push(
      `its values in the secrets file (${agentSecretName(this.fleet, agentId)}) are left there: delete them with your editor if you will not add the agent back`,
    );
    if (this.inUse) notes.push(`${this.inUse}: stop it before removing (this plan only read the state directory)`);
    return {
      agentId,
      where: `fleet "${this.fleet}", state in ${this.stateDir}`,
      notes,
      steps: [
        {
          name: 'archive',
          plan: `move ${paths.workspace}, its runtime state and log to ${join(this.stateDir, 'archive')}/${agentId}-<date>/`,
          run: async () => this.archive(agentId),
        },
        {
          name: 'schedules',
          plan: `delete its schedules (agent-${agentId}-*, config-${agentId}-*, heartbeat-${agentId}) from state.db`,
          run: async () => this.deleteSchedules(agentId),
        },
        {
          name: 'records',
          plan: 'delete its queued and parked messages, sessions, origins, status, metrics and chat lines from state.db',
          run: async () => this.deleteRecords(agentId),
        },
      ],
    };
  }

  /** A dry run opened the directory to read it: nothing that writes may run on it. */
  private writable(): void {
    if (!this.lock) throw new CliError(EXIT.failed, 'the state directory was opened for a plan only (--dry-run): nothing was changed');
  }

  private archive(agentId: string): StepResult {
    this.writable();
    const paths = agentPaths(this.stateDir, agentId);
    const present = (Object.entries(paths) as [keyof typeof paths, string][]).filter(([, p]) => existsSync(p));
    if (present.length === 0) return { status: 'skipped', detail: 'no workspace, runtime state or log' };
    const to = join(this.stateDir, 'archive', `${agentId}-${this.now().toISOString().replace(/:/g, '-')}`);
    mkdirSync(to, { recursive: true, mode: 0o700 });
    for (const [kind, from] of present) renameSync(from, join(to, kind === 'log' ? `${agentId}.log` : kind));
    return { status: 'done', detail: `moved ${present.map(([k]) => k).join(', ')} to ${to}` };
  }

  private deleteSchedules(agentId: string): StepResult {
    this.writable();
    if (!this.db || !this.has('cron_schedules')) return { status: 'skipped', detail: 'none' };
    // By the trigger each passes: "agent-fran-" also starts fran-2's names.
    const rows = this.db.prepare("SELECT name FROM cron_schedules WHERE json_valid(input) AND json_extract(input, '$.agentId') = ?").all(agentId) as {
      name: string;
    }[];
    const del = this.db.prepare('DELETE FROM cron_schedules WHERE name = ?');
    this.db.transaction(() => rows.forEach((r) => del.run(r.name)))();
    return rows.length ? { status: 'done', detail: `deleted ${rows.map((r) => r.name).join(', ')}` } : { status: 'skipped', detail: 'none' };
  }

  private deleteRecords(agentId: string): StepResult {
    this.writable();
    if (!this.db) return { status: 'skipped', detail: 'no state.db' };
    const q = localQueueNames(agentId);
    const deletes: [table: string, where: string, args: unknown[]][] = [
      ['queue_messages', 'queue = ?', [q.inbox]],
      ['queue_dedup', 'queue = ?', [q.inbox]],
      ['dead_letters', 'queue IN (?, ?)', [q.inboxDlq, q.outboxDlq]],
      ['sessions', 'agent_id = ?', [agentId]],
      ['inbound_origins', "json_valid(record) AND json_extract(record, '$.agentId') = ?", [agentId]],
      ['relay_rates', 'substr(pair, 1, ?) = ? OR substr(pair, -?) = ?', [agentId.length + 1, `${agentId}>`, agentId.length + 1, `>${agentId}`]],
      ['agent_status', 'agent_id = ?', [agentId]],
      ['agent_activity', 'agent_id = ?', [agentId]],
      ['agent_turns', 'agent_id = ?', [agentId]],
      ['chat_lines', 'chat_id = ?', [agentId]],
    ];
    const counts: string[] = [];
    this.db.transaction(() => {
      for (const [table, where, args] of deletes) {
        if (!this.has(table)) continue;
        const n = this.db!.prepare(`DELETE FROM ${table} WHERE ${where}`).run(...args).changes;
        if (n) counts.push(`${n} ${table}`);
      }
    })();
    return counts.length ? { status: 'done', detail: `deleted ${counts.join(', ')}` } : { status: 'skipped', detail: 'none left' };
  }

  private has(table: string): boolean {
    return this.db?.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  }

  private count(table: string, where: string, ...args: unknown[]): number {
    if (!this.db || !this.has(table)) return 0;
    return (this.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where}`).get(...args) as { n: number }).n;
  }
}
