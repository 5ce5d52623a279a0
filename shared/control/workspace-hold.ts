// Holding an agent for a workspace task (`clawfleet workspace push|pull`): the workspace
// must have one writer, so the agent is moved to `held` with a conditional write — which no
// wake path takes an agent out of (they wake only `asleep` agents), and which λ compute
// keeps at desired count 0 — and only then stopped. An awake agent is taken only when the
// operator said so (--hibernate). The holder renews the hold while it works; a hold not
// renewed within the lease (its holder died) is released by the health tick, so a crashed
// transfer never strands an agent. Releasing wakes the agent if it was awake before, or if
// messages waited meanwhile. Each hold carries an id its holder made: renewing and releasing
// are conditional on it, so a holder whose hold lapsed and was retaken by another transfer
// learns it lost the hold, and cannot release the other's.
import { ClawfleetError } from '../errors.ts';
import type { AgentState } from '../ports.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';

/** How long a hold lives without renewal; holders renew every HOLD_RENEW_MS. */
export const HOLD_LEASE_MS = 10 * 60_000;
export const HOLD_RENEW_MS = 60_000;

/** A hold that cannot be taken or kept; the code says why. */
export class HoldRefused extends ClawfleetError {
  override name = 'HoldRefused';
  constructor(code: 'AGENT_AWAKE' | 'AGENT_HELD' | 'HOLD_RACED' | 'HOLD_LOST', message: string) {
    super(code, message);
  }
}

/** What a hold id looks like: made at random by the CLI that takes the hold. */
export const HOLD_ID_PATTERN = /^[A-Za-z0-9-]{16,64}$/;

export interface Hold {
  agentId: string;
  /** The holder's own id, recorded with the `held` state: only it renews or releases the hold. */
  id: string;
  /** The state it was taken from: an agent that was running is woken again on release. */
  from: AgentState | 'absent';
}

/** States in which an agent has no runtime to stop: a hold takes it as it is. */
export const RESTING: readonly (AgentState | 'absent')[] = ['asleep', 'absent'];

/**
 * Whether the agent could be held now: the state it is in, or the refusal holdAgent would
 * give (a transfer checks this before work that needs no hold, such as staging a push).
 */
export async function checkHoldable(agentId: string, opts: { hibernate: boolean }, deps: Pick<LifecycleDeps, 'registry'>): Promise<AgentState | 'absent'> {
  const rec = await deps.registry.get(agentId);
  const from: AgentState | 'absent' = rec?.state ?? 'absent';
  if (from === 'held') {
    const since = new Date(rec!.stateChangedAt).toISOString();
    throw new HoldRefused(
      'AGENT_HELD',
      `${agentId} is held by another workspace transfer (last renewed ${since}); it is released when that ends, or ${HOLD_LEASE_MS / 60_000} minutes after its last renewal`,
    );
  }
  if (!RESTING.includes(from) && !opts.hibernate) {
    throw new HoldRefused(
      'AGENT_AWAKE',
      `${agentId} is ${from}: its runtime would write the workspace during the transfer. Pass --hibernate to stop it for the transfer (it is woken afterwards), or hibernate it first`,
    );
  }
  return from;
}

/**
 * Takes the agent for a workspace task and stops its compute. Refused while it runs unless
 * `hibernate`, and always while another task holds it.
 */
export async function holdAgent(agentId: string, opts: { hibernate: boolean; holdId: string }, deps: LifecycleDeps): Promise<Hold> {
  if (!HOLD_ID_PATTERN.test(opts.holdId)) throw new ClawfleetError('HOLD_INVALID', 'a hold id is 16 to 64 letters, digits or dashes');
  const from = await checkHoldable(agentId, opts, deps);
  if (!(await deps.registry.transition(agentId, [from], 'held', deps.clock.now(), { holdId: opts.holdId }))) {
    throw new HoldRefused('HOLD_RACED', `${agentId} changed state meanwhile (now ${(await deps.registry.get(agentId))?.state ?? 'unknown'}); try again`);
  }
  await deps.compute.setRunning(agentId, false);
  deps.log.info('agent held for a workspace transfer', { agentId, was: from });
  return { agentId, id: opts.holdId, from };
}

/** Renews the hold; false once it is no longer ours (released by its lease, by someone else, or retaken by another transfer). */
export async function renewHold(hold: Hold, deps: Pick<LifecycleDeps, 'registry' | 'clock'>): Promise<boolean> {
  return deps.registry.transition(hold.agentId, ['held'], 'held', deps.clock.now(), { holdId: hold.id });
}

/** Ends the hold: the agent is asleep again, and woken if it was running before or work is waiting. */
export async function releaseHold(hold: Hold, deps: LifecycleDeps): Promise<'asleep' | 'woken' | 'lost'> {
  if (!(await deps.registry.transition(hold.agentId, ['held'], 'asleep', deps.clock.now(), { holdId: hold.id }))) return 'lost';
  const wasRunning = !RESTING.includes(hold.from);
  const waiting = (await deps.depths.depth(hold.agentId)) > 0;
  if (
    (wasRunning || waiting) &&
    (await wakeIfAsleep(hold.agentId, deps, wasRunning ? 'workspace transfer done' : 'messages waited during a workspace transfer'))
  )
    return 'woken';
  return 'asleep';
}

/** The health tick's part: a hold past its lease is released, so a dead holder strands nothing. */
export async function releaseLapsedHold(agentId: string, renewedAt: number, leaseMs: number, deps: LifecycleDeps): Promise<boolean> {
  const now = deps.clock.now();
  if (now - renewedAt <= leaseMs) return false;
  if (!(await deps.registry.transition(agentId, ['held'], 'asleep', now))) return false;
  deps.log.warn('workspace hold lapsed: released', { agentId, heldForMs: now - renewedAt });
  // Asleep now: the same tick's next look (or the next tick) wakes it if work is waiting.
  if ((await deps.depths.depth(agentId)) > 0) await wakeIfAsleep(agentId, deps, 'messages waited during a lapsed workspace hold');
  return true;
}
