// An in-memory FIFO queue with SQS's semantics that matter to us: deduplication by id,
// visibility timeouts, receive counts, and one in-flight message per group at a time.
// Unit tests use it; so can local mode until its queues are durable.
import { longPoll } from '../long-poll.ts';
import type { InboundEnvelope, OutboundEnvelope } from '../../protocol/envelopes.ts';
import { fifoGroup } from '../../protocol/ids.ts';
import type { AgentQueues, Inbox, Outbox, ReceivedMessage } from '../../ports.ts';

interface Item {
  seq: number;
  body: string;
  group: string;
  visibleAt: number;
  receiveCount: number;
  receipt?: string;
}

export class InMemoryFifoQueue implements Inbox {
  private items: Item[] = [];
  private readonly dedupIds = new Set<string>();
  private seq = 0;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly now: () => number = Date.now,
    private readonly visibilityMs = 60_000,
  ) {}

  push(body: string, group: string, dedupId: string): void {
    if (this.dedupIds.has(dedupId)) return;
    this.dedupIds.add(dedupId);
    this.items.push({ seq: this.seq++, body, group, visibleAt: 0, receiveCount: 0 });
    this.waiters.splice(0).forEach((w) => w());
  }

  get depth(): number {
    return this.items.length;
  }

  bodies(): string[] {
    return this.items.map((i) => i.body);
  }

  /** Makes every message in flight visible again: its consumer is known to be dead. */
  releaseInFlight(): number {
    const now = this.now();
    const taken = this.items.filter((i) => i.visibleAt > now);
    for (const i of taken) i.visibleAt = 0;
    if (taken.length) this.waiters.splice(0).forEach((w) => w());
    return taken.length;
  }

  private take(visibilityMs: number): ReceivedMessage | undefined {
    const now = this.now();
    const busy = new Set(this.items.filter((i) => i.visibleAt > now).map((i) => i.group));
    const item = this.items.find((i) => i.visibleAt <= now && !busy.has(i.group));
    if (!item) return undefined;
    item.visibleAt = now + visibilityMs;
    item.receiveCount++;
    item.receipt = `${item.seq}:${item.receiveCount}`;
    return { body: item.body, receipt: item.receipt, receiveCount: item.receiveCount };
  }

  async receive(waitSeconds: number, signal?: AbortSignal, visibilitySeconds?: number): Promise<ReceivedMessage[]> {
    const visibilityMs = visibilitySeconds === undefined ? this.visibilityMs : visibilitySeconds * 1000;
    const m = await longPoll(() => this.take(visibilityMs), { waitSeconds, now: this.now, signal, onWake: (w) => this.waiters.push(w), tickMs: 50 });
    return m ? [m] : [];
  }

  private byReceipt(receipt: string): Item | undefined {
    return this.items.find((i) => i.receipt === receipt);
  }

  async extend(receipt: string, seconds: number) {
    const item = this.byReceipt(receipt);
    if (!item) throw new Error('receipt handle is no longer valid');
    item.visibleAt = this.now() + seconds * 1000;
  }

  async delete(receipt: string) {
    this.items = this.items.filter((i) => i.receipt !== receipt);
  }

  async release(receipt: string) {
    const item = this.byReceipt(receipt);
    if (item) item.visibleAt = 0;
    this.waiters.splice(0).forEach((w) => w());
  }
}

export class InMemoryAgentQueues implements AgentQueues {
  readonly queues = new Map<string, InMemoryFifoQueue>();
  constructor(private readonly now: () => number = Date.now) {}
  queue(agentId: string): InMemoryFifoQueue {
    let q = this.queues.get(agentId);
    if (!q) this.queues.set(agentId, (q = new InMemoryFifoQueue(this.now)));
    return q;
  }
  async send(envelope: InboundEnvelope) {
    this.queue(envelope.agentId).push(JSON.stringify(envelope), fifoGroup(envelope), envelope.id);
  }
}

export class InMemoryOutbox implements Outbox {
  constructor(readonly queue: InMemoryFifoQueue = new InMemoryFifoQueue()) {}
  async send(envelope: OutboundEnvelope) {
    this.queue.push(JSON.stringify(envelope), fifoGroup(envelope), envelope.id);
  }
}
