// The health tick (λ health, every minute): wakes sleeping agents that have work,
// restarts silent ones, and hibernates idle ones. Each agent is judged on its own;
// restarting one never touches another.
import type { FleetConfig } from '../config/schema.ts';
import { resolveAgent } from '../config/resolve.ts';
import { errorFields } from '../log.ts';
import type { AgentRecord } from '../ports.ts';
import { hibernate, wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';
import { HOLD_LEASE_MS, releaseLapsedHold } from './workspace-hold.ts';

export const HEALTH_DEFAULTS = {
  /** A running agent silent this long is restarted (runtimes heartbeat every 30 s). */
  staleHeartbeatMs: 3 * 60_000,
  /** An agent asked to start that has not heartbeated within this is restarted. */
  startTimeoutMs: 5 * 60_000,
  idleTimeoutMinutes: 30,
  /** A hold not renewed this long is released (its workspace task died): see workspace-hold.ts. */
  holdLeaseMs: HOLD_LEASE_MS,
};

export type HealthAction = 'woken' | 'restarted' | 'hibernated' | 'released' | 'none';

export async function healthTick(config: FleetConfig, deps: LifecycleDeps, opts = HEALTH_DEFAULTS): Promise<Record<string, HealthAction>> {
  const results: Record<string, HealthAction> = {};
  await Promise.all(
    config.agents.list.map(async ({ id }) => {
      try {
        results[id] = await checkAgent(config, id, deps, opts);
      } catch (err) {
        deps.log.error('health check failed for agent', { agentId: id, ...errorFields(err) });
        results[id] = 'none';
      }
    }),
  );
  return results;
}

async function checkAgent(config: FleetConfig, agentId: string, deps: LifecycleDeps, opts: typeof HEALTH_DEFAULTS): Promise<HealthAction> {
  const { runtime } = resolveAgent(config, agentId);
  const now = deps.clock.now();
  const rec: AgentRecord | undefined = await deps.registry.get(agentId);
  const state = rec?.state ?? 'asleep';

  // A workspace task has the workspace: no wake, no restart, until it ends or its lease lapses.
  if (state === 'held') return (await releaseLapsedHold(agentId, rec?.stateChangedAt ?? 0, opts.holdLeaseMs, deps)) ? 'released' : 'none';

  if (state === 'asleep') {
    // An always-on agent is never left asleep; any other wakes when work is waiting.
    const reason = runtime.alwaysOn ? 'always on' : (await deps.depths.depth(agentId)) > 0 ? 'messages waiting' : undefined;
    return reason && (await wakeIfAsleep(agentId, deps, reason)) ? 'woken' : 'none';
  }

  const sinceSign = Math.max(rec?.lastHeartbeatAt ?? 0, rec?.stateChangedAt ?? 0);
  const silentFor = now - sinceSign;
  const limit = state === 'awake' ? opts.staleHeartbeatMs : opts.startTimeoutMs;
  if (silentFor > limit) {
    const to = state === 'awake' ? 'restarting' : 'unhealthy';
    if (!(await deps.registry.transition(agentId, [state], to, now))) return 'none';
    await deps.compute.restart(agentId);
    deps.log.warn('agent restarted', { agentId, was: state, silentForMs: silentFor, metric: 'RuntimeRestarts' });
    return 'restarted';
  }

  if (state === 'awake' && !runtime.alwaysOn) {
    const idleMs = (runtime.idleTimeoutMinutes ?? opts.idleTimeoutMinutes) * 60_000;
    const lastWork = Math.max(rec?.lastActivityAt ?? 0, rec?.stateChangedAt ?? 0);
    if (now - lastWork > idleMs && (await deps.depths.depth(agentId)) === 0) {
      return (await hibernate(agentId, rec?.lastActivityAt, deps)) ? 'hibernated' : 'none';
    }
  }
  return 'none';
}
