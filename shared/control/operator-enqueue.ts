// An envelope the operator asked for (`clawfleet cron run`, locally through the admin API or
// straight onto SQS with --aws): queued with its origin recorded as the scheduler or an
// admitter would record it, so the agent's answer is delivered like any other, and only
// to where the operator's config says.
import type { FleetConfig } from '../config/schema.ts';
import type { InboundEnvelope } from '../protocol/envelopes.ts';
import type { AgentQueues, Clock, InboundOrigins, SessionRegistry, SessionTarget } from '../ports.ts';
import { cronJobTarget } from './cron-dispatch.ts';
import { lastDirectRoute, newOrigin } from './origins.ts';

export interface OperatorEnqueueDeps {
  config: FleetConfig;
  queues: AgentQueues;
  sessions: SessionRegistry;
  origins: InboundOrigins;
  clock: Clock;
}

/** Records the envelope's origin (a control envelope has none: nobody answers it), then queues it. */
export async function enqueueForOperator(envelope: InboundEnvelope, deps: OperatorEnqueueDeps): Promise<void> {
  if (envelope.kind !== 'control') {
    await deps.origins.put(
      newOrigin({
        id: envelope.id,
        agentId: envelope.agentId,
        sessionKey: envelope.sessionKey,
        target: await operatorTarget(envelope, deps),
        createdAt: deps.clock.now(),
        ...(envelope.kind === 'agent_message' ? { hops: envelope.hops } : {}),
      }),
    );
  }
  await deps.queues.send(envelope);
}

/** A cron job's delivery as the config has it for that job; anything else answers the session's last direct route. */
async function operatorTarget(envelope: Exclude<InboundEnvelope, { kind: 'control' }>, deps: OperatorEnqueueDeps): Promise<SessionTarget> {
  if (envelope.kind !== 'cron') return lastDirectRoute(deps.sessions, envelope.sessionKey);
  const job = deps.config.cron?.jobs.find((j) => j.id === envelope.jobId && j.agentId === envelope.agentId);
  return cronJobTarget(envelope.agentId, envelope.sessionTarget ?? 'main', job?.delivery, deps);
}
