// What the dashboard's buttons do. On AWS every state change is a conditional write on
// the agent registry (shared/control/lifecycle.ts), so a button racing the health tick
// never acts twice; the compute call follows only the write that won. Locally the
// process supervisor carries the same actions out.
import * as z from '../zod.ts';
import { hibernate, wakeIfAsleep, type LifecycleDeps } from '../control/lifecycle.ts';
import { ClawfleetError } from '../errors.ts';
import type { AgentState, PairingRecord, PairingStore } from '../ports.ts';
import { actionsFor } from './fleet-view.ts';
import type { FleetAction } from './view.ts';

export const FleetActionSchema = z.enum(['wake', 'hibernate', 'restart']);
export const ApprovePairingSchema = z.strictObject({ code: z.string().check(z.trim(), z.minLength(1), z.maxLength(64)) });

export interface FleetActions {
  /** Carries the action out; resolves with the agent's state right after. */
  act(agentId: string, action: FleetAction): Promise<AgentState>;
}

export class ActionRefused extends ClawfleetError {
  override name = 'ActionRefused';
}

/** The AWS side: the registry's conditional transitions, then ECS. */
export function lifecycleActions(deps: LifecycleDeps): FleetActions {
  const stateOf = async (agentId: string): Promise<AgentState> => (await deps.registry.get(agentId))?.state ?? 'asleep';
  return {
    async act(agentId, action) {
      const rec = await deps.registry.get(agentId);
      const state = rec?.state ?? 'asleep';
      if (!actionsFor(state).includes(action)) {
        const allowed = actionsFor(state);
        throw new ActionRefused(
          'ACTION_NOT_AVAILABLE',
          allowed.length
            ? `${agentId} is ${state}: ${allowed.join(' or ')} only`
            : `${agentId} is ${state}: its workspace is being transferred; it wakes when that ends`,
        );
      }
      let won: boolean;
      switch (action) {
        case 'wake':
          won = await wakeIfAsleep(agentId, deps, 'operator (dashboard)');
          break;
        case 'hibernate':
          won = state === 'awake' ? await hibernate(agentId, rec?.lastActivityAt, deps) : await stopStarting(agentId, state, deps);
          break;
        case 'restart':
          won = await deps.registry.transition(agentId, [state], 'restarting', deps.clock.now());
          if (won) {
            await deps.compute.restart(agentId);
            deps.log.info('agent restarted by operator', { agentId, was: state, metric: 'RuntimeRestarts' });
          }
          break;
      }
      if (!won) throw new ActionRefused('ACTION_RACED', `${agentId} changed state meanwhile (now ${await stateOf(agentId)}); look again and retry`);
      return stateOf(agentId);
    },
  };
}

/**
 * Hibernates an agent that is not (yet) awake: one stuck waking, restarting or unhealthy.
 * As in lifecycle.hibernate, a message that is waiting wakes it straight back up.
 */
async function stopStarting(agentId: string, from: AgentState, deps: LifecycleDeps): Promise<boolean> {
  if (!(await deps.registry.transition(agentId, [from], 'asleep', deps.clock.now()))) return false;
  await deps.compute.setRunning(agentId, false);
  deps.log.info('agent hibernated by operator', { agentId, was: from, metric: 'AgentHibernated' });
  if ((await deps.depths.depth(agentId)) > 0) await wakeIfAsleep(agentId, deps, 'message waiting when hibernated');
  return true;
}

/** Approves a pending pairing by its code (codes are shown upper case; people type either). */
export async function approvePairing(pairings: Pick<PairingStore, 'approve'>, code: string, now: number): Promise<PairingRecord> {
  const approved = await pairings.approve(code.trim().toUpperCase(), now);
  if (!approved) throw new ActionRefused('PAIRING_UNKNOWN', `no pending pairing with code ${code.trim().toUpperCase()} (codes lapse after an hour)`);
  return approved;
}
