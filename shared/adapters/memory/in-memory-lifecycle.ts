// In-memory adapters of the lifecycle ports, for unit tests of wake, hibernate and health.
import type { AgentCompute, AgentRecord, AgentRegistry, AgentState, McpServerState, QueueDepths, TransitionGuard } from '../../ports.ts';

export class InMemoryAgentRegistry implements AgentRegistry {
  readonly records = new Map<string, AgentRecord>();

  async get(agentId: string) {
    const r = this.records.get(agentId);
    return r && { ...r };
  }

  async transition(agentId: string, from: (AgentState | 'absent')[], to: AgentState, now: number, guard?: TransitionGuard) {
    const r = this.records.get(agentId);
    if (!from.includes(r?.state ?? 'absent')) return false;
    if (guard && 'activityAt' in guard && r?.lastActivityAt !== guard.activityAt) return false;
    if (guard?.holdId !== undefined && r?.state === 'held' && r.holdId !== guard.holdId) return false;
    const restarts = (r?.restarts ?? 0) + (to === 'restarting' || to === 'unhealthy' ? 1 : 0);
    const { holdId: _old, ...rest } = r ?? { agentId };
    const holdId = to === 'held' ? (guard?.holdId ?? r?.holdId) : undefined;
    this.records.set(agentId, { ...rest, agentId, state: to, stateChangedAt: now, restarts, ...(holdId !== undefined ? { holdId } : {}) });
    return true;
  }

  async recordHeartbeat(agentId: string, now: number, version: string, mcp?: Record<string, McpServerState>, warnings?: string[]) {
    const r = this.records.get(agentId) ?? { agentId, state: 'awake' as const, stateChangedAt: now };
    this.records.set(agentId, { ...r, lastHeartbeatAt: now, version, ...(mcp ? { mcp } : {}), ...(warnings ? { warnings } : {}) });
    await this.transition(agentId, ['waking', 'restarting', 'unhealthy'], 'awake', now);
  }

  async recordActivity(agentId: string, now: number) {
    const r = this.records.get(agentId) ?? { agentId, state: 'asleep' as const, stateChangedAt: 0 };
    if ((r.lastActivityAt ?? -Infinity) < now) this.records.set(agentId, { ...r, lastActivityAt: now });
  }

  async recordError(agentId: string, _now: number, error: string) {
    const r = this.records.get(agentId) ?? { agentId, state: 'asleep' as const, stateChangedAt: 0 };
    this.records.set(agentId, { ...r, lastError: error });
  }
}

export class InMemoryAgentCompute implements AgentCompute {
  readonly calls: { agentId: string; action: 'start' | 'stop' | 'restart' }[] = [];
  readonly running = new Set<string>();
  async setRunning(agentId: string, running: boolean) {
    this.calls.push({ agentId, action: running ? 'start' : 'stop' });
    if (running) this.running.add(agentId);
    else this.running.delete(agentId);
  }
  async restart(agentId: string) {
    this.calls.push({ agentId, action: 'restart' });
    this.running.add(agentId);
  }
}

export class InMemoryQueueDepths implements QueueDepths {
  readonly depths = new Map<string, number>();
  async depth(agentId: string) {
    return this.depths.get(agentId) ?? 0;
  }
}
