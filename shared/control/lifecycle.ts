// Waking and hibernating agents. Every state change is a conditional write on the agent
// registry, so two control-plane functions racing on one agent never both act; the
// compute call follows only the write that won.
import type { AgentCompute, AgentRegistry, Clock, QueueDepths } from '../ports.ts';
import type { Logger } from '../log.ts';

export interface LifecycleDeps {
  registry: AgentRegistry;
  compute: AgentCompute;
  depths: QueueDepths;
  clock: Clock;
  log: Logger;
}

/** Starts a sleeping agent. True if this call woke it (the caller may tell the user). */
export async function wakeIfAsleep(agentId: string, deps: LifecycleDeps, reason: string): Promise<boolean> {
  const now = deps.clock.now();
  if (!(await deps.registry.transition(agentId, ['asleep', 'absent'], 'waking', now))) return false;
  await deps.compute.setRunning(agentId, true);
  deps.log.info('agent waking', { agentId, reason, metric: 'AgentWoken' });
  return true;
}

/**
 * Puts an idle agent to sleep, unless work arrived meanwhile. The write is conditional on
 * the activity time read before, and the queue is checked again after it: a message that
 * slipped in between wakes the agent straight back up, so none is stranded.
 */
export async function hibernate(agentId: string, activityAt: number | undefined, deps: LifecycleDeps): Promise<boolean> {
  const now = deps.clock.now();
  if (!(await deps.registry.transition(agentId, ['awake'], 'asleep', now, { activityAt }))) return false;
  await deps.compute.setRunning(agentId, false);
  deps.log.info('agent hibernated', { agentId, idleSinceMs: activityAt === undefined ? undefined : now - activityAt, metric: 'AgentHibernated' });
  if ((await deps.depths.depth(agentId)) > 0) await wakeIfAsleep(agentId, deps, 'message arrived while hibernating');
  return true;
}
