// In-memory AgentMetrics for unit tests of the outbox and the dashboard read model.
import { bucketStart, TURNS_PER_BUCKET } from '../../metrics/buckets.ts';
import type { ActivityBucket, AgentMetrics, TurnEvent } from '../../ports.ts';

export class InMemoryAgentMetrics implements AgentMetrics {
  readonly buckets = new Map<string, ActivityBucket & { turnList: TurnEvent[] }>();
  private readonly seen = new Set<string>();

  private bucket(agentId: string, at: number) {
    const start = bucketStart(at);
    const key = `${agentId}:${start}`;
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { start, turns: 0, errors: 0, turnList: [] }));
    return b;
  }

  async recordTurn(event: TurnEvent) {
    const id = `${event.agentId}:${event.inboundId}:${event.outcome}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const b = this.bucket(event.agentId, event.at);
    b.turns++;
    if (event.outcome === 'failed') b.errors++;
    if (b.turnList.length < TURNS_PER_BUCKET) b.turnList.push(event);
  }

  async recordQueueDepth(agentId: string, at: number, depth: number) {
    const b = this.bucket(agentId, at);
    b.maxQueueDepth = Math.max(b.maxQueueDepth ?? 0, depth);
  }

  async activity(agentId: string, from: number, to: number) {
    return [...this.buckets.entries()]
      .filter(([k, b]) => k.startsWith(`${agentId}:`) && b.start >= bucketStart(from) && b.start < to)
      .map(([, { turnList: _t, ...b }]) => b)
      .sort((a, b) => a.start - b.start);
  }

  async recentTurns(agentId: string, from: number, limit: number) {
    return [...this.buckets.entries()]
      .filter(([k]) => k.startsWith(`${agentId}:`))
      .flatMap(([, b]) => b.turnList)
      .filter((t) => t.at >= from)
      .sort((a, b) => b.at - a.at)
      .slice(0, limit);
  }
}
