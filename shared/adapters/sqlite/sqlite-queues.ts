// SQS FIFO semantics on SQLite, for local mode: deduplication by id within a window,
// one in-flight message per group (so a session stays in order), visibility timeouts,
// receive counts, and a dead-letter queue after `maxReceiveCount` receives, with the
// reason recorded. Messages survive a restart of the process that holds them.
import { longPoll } from '../long-poll.ts';
import { randomBytes } from 'node:crypto';
import type { InboundEnvelope } from '../../protocol/envelopes.ts';
import { fifoGroup } from '../../protocol/ids.ts';
import type { AgentQueues, DeadLetters, Inbox, ReceivedMessage } from '../../ports.ts';
import type { StateDatabase } from './sqlite-database.ts';

/** SQS FIFO's deduplication interval. */
const DEDUP_WINDOW_MS = 5 * 60_000;

export interface DeadLetter {
  id: number;
  body: string;
  reason: string;
  groupId: string | undefined;
  at: number;
}

/** A named dead-letter queue: what could not be processed, with why. */
export class SqliteDeadLetters implements DeadLetters {
  constructor(
    private readonly db: StateDatabase,
    readonly queue: string,
    private readonly now: () => number = Date.now,
  ) {}

  async put(body: string, reason: string, groupId?: string): Promise<void> {
    this.add(body, reason, groupId);
  }

  /** Synchronous, so a queue can park a message inside its own transaction. */
  add(body: string, reason: string, groupId?: string): void {
    this.db
      .prepare('INSERT INTO dead_letters (queue, body, reason, group_id, at) VALUES (?, ?, ?, ?, ?)')
      .run(this.queue, body, reason, groupId ?? null, this.now());
  }

  get depth(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM dead_letters WHERE queue = ?').get(this.queue) as { n: number }).n;
  }

  list(limit = 100): DeadLetter[] {
    const rows = this.db.prepare('SELECT id, body, reason, group_id, at FROM dead_letters WHERE queue = ? ORDER BY id DESC LIMIT ?').all(this.queue, limit) as {
      id: number;
      body: string;
      reason: string;
      group_id: string | null;
      at: number;
    }[];
    return rows.map((r) => ({ id: r.id, body: r.body, reason: r.reason, groupId: r.group_id ?? undefined, at: r.at }));
  }
}

export interface SqliteFifoQueueOptions {
  now?: () => number;
  /** Default visibility timeout of a received message. */
  visibilityMs?: number;
  /** After this many receives without a delete, the next receive moves it to `deadLetters`. */
  maxReceiveCount?: number;
  deadLetters?: SqliteDeadLetters;
  dedupWindowMs?: number;
}

interface Row {
  seq: number;
  group_id: string;
  body: string;
  visible_at: number;
  receive_count: number;
}

export class SqliteFifoQueue implements Inbox {
  private readonly now: () => number;
  private readonly visibilityMs: number;
  private waiters: (() => void)[] = [];
  private readonly stmts;

  constructor(
    private readonly db: StateDatabase,
    readonly name: string,
    private readonly opts: SqliteFifoQueueOptions = {},
  ) {
    this.now = opts.now ?? Date.now;
    this.visibilityMs = opts.visibilityMs ?? 60_000;
    this.stmts = {
      dedupSeen: db.prepare('SELECT 1 FROM queue_dedup WHERE queue = ? AND dedup_id = ? AND expires_at > ?'),
      dedupPut: db.prepare('INSERT OR REPLACE INTO queue_dedup (queue, dedup_id, expires_at) VALUES (?, ?, ?)'),
      dedupSweep: db.prepare('DELETE FROM queue_dedup WHERE queue = ? AND expires_at <= ?'),
      insert: db.prepare('INSERT INTO queue_messages (queue, group_id, body, sent_at) VALUES (?, ?, ?, ?)'),
      candidates: db.prepare(
        // The head of every group that has nothing in flight, oldest first.
        `SELECT seq, group_id, body, visible_at, receive_count FROM queue_messages m
         WHERE queue = ? AND visible_at <= ?
           AND NOT EXISTS (SELECT 1 FROM queue_messages b WHERE b.queue = m.queue AND b.group_id = m.group_id AND b.visible_at > ?)
         ORDER BY seq LIMIT 20`,
      ),
      take: db.prepare('UPDATE queue_messages SET visible_at = ?, receive_count = receive_count + 1, receipt = ? WHERE seq = ?'),
      remove: db.prepare('DELETE FROM queue_messages WHERE seq = ?'),
      byReceipt: db.prepare('SELECT seq FROM queue_messages WHERE receipt = ? AND queue = ?'),
      setVisible: db.prepare('UPDATE queue_messages SET visible_at = ? WHERE receipt = ? AND queue = ?'),
      deleteByReceipt: db.prepare('DELETE FROM queue_messages WHERE receipt = ? AND queue = ?'),
      releaseInFlight: db.prepare('UPDATE queue_messages SET visible_at = 0 WHERE queue = ? AND visible_at > ?'),
      counts: db.prepare(
        'SELECT count(*) AS total, coalesce(sum(CASE WHEN visible_at > ? THEN 1 ELSE 0 END), 0) AS inFlight FROM queue_messages WHERE queue = ?',
      ),
      bodies: db.prepare('SELECT body FROM queue_messages WHERE queue = ? ORDER BY seq'),
    };
  }

  /** Queues a message; a dedup id seen within the window is accepted and dropped, as on SQS. */
  push(body: string, group: string, dedupId: string): void {
    const now = this.now();
    const added = this.db.transaction(() => {
      this.stmts.dedupSweep.run(this.name, now);
      if (this.stmts.dedupSeen.get(this.name, dedupId, now)) return false;
      this.stmts.dedupPut.run(this.name, dedupId, now + (this.opts.dedupWindowMs ?? DEDUP_WINDOW_MS));
      this.stmts.insert.run(this.name, group, body, now);
      return true;
    })();
    if (added) this.wake();
  }

  /** Messages in the queue, in flight included. */
  get depth(): number {
    return this.counts().total;
  }

  counts(): { total: number; inFlight: number; visible: number } {
    const { total, inFlight } = this.stmts.counts.get(this.now(), this.name) as { total: number; inFlight: number };
    return { total, inFlight, visible: total - inFlight };
  }

  bodies(): string[] {
    return (this.stmts.bodies.all(this.name) as { body: string }[]).map((r) => r.body);
  }

  /** Makes every message in flight visible again: its consumer is known to be dead. */
  releaseInFlight(): number {
    const released = this.stmts.releaseInFlight.run(this.name, this.now()).changes;
    if (released) this.wake();
    return released;
  }

  private take(visibilityMs: number): ReceivedMessage | undefined {
    return this.db.transaction((): ReceivedMessage | undefined => {
      for (;;) {
        const now = this.now();
        const rows = this.stmts.candidates.all(this.name, now, now) as Row[];
        if (rows.length === 0) return undefined;
        for (const row of rows) {
          const max = this.opts.maxReceiveCount;
          if (max !== undefined && row.receive_count >= max && this.opts.deadLetters) {
            // As SQS redrive: the receive after the last allowed one parks it instead.
            this.stmts.remove.run(row.seq);
            this.opts.deadLetters.add(
              row.body,
              `MAX_RECEIVES: received ${row.receive_count} times without being deleted (maxReceiveCount ${max})`,
              row.group_id,
            );
            continue;
          }
          const receiveCount = row.receive_count + 1;
          const receipt = `${row.seq}.${receiveCount}.${randomBytes(6).toString('hex')}`;
          this.stmts.take.run(now + visibilityMs, receipt, row.seq);
          return { body: row.body, receipt, receiveCount };
        }
        // Every candidate went to the DLQ; their groups may hold more.
      }
    })();
  }

  async receive(waitSeconds: number, signal?: AbortSignal, visibilitySeconds?: number): Promise<ReceivedMessage[]> {
    const visibilityMs = visibilitySeconds === undefined ? this.visibilityMs : visibilitySeconds * 1000;
    const m = await longPoll(() => this.take(visibilityMs), { waitSeconds, now: this.now, signal, onWake: (w) => this.waiters.push(w), tickMs: 250 });
    return m ? [m] : [];
  }

  async extend(receipt: string, seconds: number): Promise<void> {
    const changed = this.stmts.setVisible.run(this.now() + seconds * 1000, receipt, this.name).changes;
    if (!changed) throw new Error('receipt handle is no longer valid');
    if (seconds === 0) this.wake();
  }

  async delete(receipt: string): Promise<void> {
    this.stmts.deleteByReceipt.run(receipt, this.name);
  }

  async release(receipt: string): Promise<void> {
    this.stmts.setVisible.run(0, receipt, this.name);
    this.wake();
  }

  private wake(): void {
    this.waiters.splice(0).forEach((w) => w());
  }
}

/** Local names of an agent's queues, mirroring <fleet>-agent-<id>.fifo and its DLQ on AWS. */
export const localQueueNames = (agentId: string) => ({
  inbox: `agent-${agentId}`,
  inboxDlq: `agent-${agentId}-dlq`,
  outboxDlq: `outbox-${agentId}-dlq`,
});

export class SqliteAgentQueues implements AgentQueues {
  private readonly queues = new Map<string, SqliteFifoQueue>();
  private readonly dlqs = new Map<string, SqliteDeadLetters>();

  constructor(
    private readonly db: StateDatabase,
    private readonly opts: { now?: () => number; maxReceiveCount?: number } = {},
  ) {}

  deadLetters(queue: string): SqliteDeadLetters {
    let d = this.dlqs.get(queue);
    if (!d) this.dlqs.set(queue, (d = new SqliteDeadLetters(this.db, queue, this.opts.now)));
    return d;
  }

  queue(agentId: string): SqliteFifoQueue {
    let q = this.queues.get(agentId);
    if (!q) {
      const names = localQueueNames(agentId);
      q = new SqliteFifoQueue(this.db, names.inbox, {
        now: this.opts.now,
        maxReceiveCount: this.opts.maxReceiveCount,
        deadLetters: this.deadLetters(names.inboxDlq),
      });
      this.queues.set(agentId, q);
    }
    return q;
  }

  async send(envelope: InboundEnvelope): Promise<void> {
    this.queue(envelope.agentId).push(JSON.stringify(envelope), fifoGroup(envelope), envelope.id);
  }
}
