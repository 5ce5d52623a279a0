// Asking the one holder of ECS power (λ compute) to start, stop or restart an agent. The
// other control-plane functions only ask: a request names an agent and what its caller
// wanted, nothing else, and the holder may only set that agent's desired count or force a
// new deployment of its service. Requests travel as asynchronous invocations, which Lambda
// may run late, out of order or side by side, so the holder does what the registry says
// rather than what the request said: every request follows a registry transition
// (lifecycle.ts), and the registry's state decides desired 0 (asleep) or 1 (anything
// else). After each change it reads the registry again and follows it until the two
// agree, so an ask whose change landed after a newer one puts the newer one back: the
// service ends where the last transition left the agent, whatever the order. A held agent
// (a workspace task has its workspace) stays at desired 0 like a sleeping one.
import * as z from '../zod.ts';
import type { FleetConfig } from '../config/schema.ts';
import { ClawfleetError, formatPath } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { AgentCompute, AgentRegistry, AgentState } from '../ports.ts';

export const ComputeRequestSchema = z.strictObject({
  v: z.literal(1),
  agentId: z.string().check(z.regex(/^[a-z][a-z0-9-]{0,23}$/, 'must be an agent id')),
  /** What the caller's registry transition wanted: run (wake), stop (hibernate) or restart. */
  action: z.enum(['run', 'stop', 'restart']),
});
export type ComputeRequest = z.infer<typeof ComputeRequestSchema>;

/** What the holder did: the agent's desired count is now 1 (started, restarted) or 0 (stopped). */
export type ComputeOutcome = 'started' | 'stopped' | 'restarted';

/** A request the holder will not carry out; its code says why (a DLQ keeps the request). */
export class ComputeRequestRefused extends ClawfleetError {
  override name = 'ComputeRequestRefused';
  constructor(code: 'COMPUTE_REQUEST_INVALID' | 'AGENT_UNKNOWN', message: string) {
    super(code, message);
  }
}

/** Changes of one request before it gives up on a registry that keeps moving (the request is retried). */
export const MAX_SETTLE_ROUNDS = 4;

export interface ComputeHolderDeps {
  config: FleetConfig;
  registry: Pick<AgentRegistry, 'get'>;
  /** The holder's own ECS adapter: desired count and force-new-deployment, nothing more. */
  compute: AgentCompute;
  log: Logger;
}

/** Parses a request; anything but a well-formed request for an agent of this fleet is refused. */
function parseComputeRequest(input: unknown, config: FleetConfig): ComputeRequest {
  const parsed = ComputeRequestSchema.safeParse(input);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`).join('; ');
    throw new ComputeRequestRefused('COMPUTE_REQUEST_INVALID', `not a compute request: ${reason}`);
  }
  if (!config.agents.list.some((a) => a.id === parsed.data.agentId)) {
    throw new ComputeRequestRefused('AGENT_UNKNOWN', `no agent "${parsed.data.agentId}" in fleet "${config.fleet}"`);
  }
  return parsed.data;
}

export async function handleComputeRequest(
  input: unknown,
  deps: ComputeHolderDeps,
): Promise<{ request: ComputeRequest; outcome: ComputeOutcome; state: string }> {
  const request = parseComputeRequest(input, deps.config);
  const { agentId } = request;
  const stateOf = async (): Promise<AgentState> => (await deps.registry.get(agentId))?.state ?? 'asleep';
  let state = await stateOf();
  let outcome: ComputeOutcome;
  if (stopped(state)) {
    await deps.compute.setRunning(agentId, false);
    outcome = 'stopped';
  } else if (request.action === 'restart') {
    await deps.compute.restart(agentId);
    outcome = 'restarted';
  } else {
    await deps.compute.setRunning(agentId, true);
    outcome = 'started';
  }
  // A request overtaken by a later transition: say so, since the log shows what was asked.
  if ((request.action === 'stop') !== (outcome === 'stopped'))
    deps.log.info('compute request superseded by the registry', { agentId, asked: request.action, state, did: outcome });
  // Another ask for this agent may have changed the service after our read; if the registry
  // has moved since, follow it (the last writer then always ends on the registry's word).
  for (let round = 0; ; round++) {
    const now = await stateOf();
    if (stopped(now) === (outcome === 'stopped')) return { request, outcome, state: now };
    if (round === MAX_SETTLE_ROUNDS) {
      throw new ClawfleetError('COMPUTE_UNSETTLED', `agent ${agentId}'s registry state kept changing (now ${now}); its service may not match it`);
    }
    deps.log.info('compute followed a newer registry state', { agentId, was: state, now });
    state = now;
    outcome = stopped(now) ? 'stopped' : 'started';
    await deps.compute.setRunning(agentId, outcome === 'started');
  }
}

/** The states whose service runs no task: asleep, and held for a workspace task. */
const stopped = (state: AgentState): boolean => state === 'asleep' || state === 'held';
