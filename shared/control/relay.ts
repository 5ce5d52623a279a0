// Agent-to-agent messages (sessions_send). A runtime asks with agent_send; the control
// plane relays an agent_message to the target's queue only if agentToAgent.allow permits
// the pair. The target answers with an agent_send carrying inReplyTo, which may go only
// back to the asker, into the asker's session; every exchange is bounded by maxHops.
import type { FleetConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import type { AgentSendEnvelope } from '../protocol/envelopes.ts';
import { agentOfSessionKey } from '../routing/session-key.ts';
import type { AgentQueues, Clock, RelayLog } from '../ports.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';

export interface RelayDeps {
  config: FleetConfig;
  queues: AgentQueues;
  relays: RelayLog;
  lifecycle?: LifecycleDeps | undefined;
  clock: Clock;
  log: Logger;
}

export type RelayOutcome = { ok: true; relayedId: string } | { ok: false; code: string; reason: string };

/** The relayed message's id, derived from the request's, so a redelivered request relays once. */
export const relayedId = (sendId: string) => `am.${sendId}`.slice(0, 128);

export async function relayAgentSend(send: AgentSendEnvelope, sender: string, deps: RelayDeps): Promise<RelayOutcome> {
  const maxHops = deps.config.agentToAgent?.maxHops ?? 3;
  const known = (id: string) => deps.config.agents.list.some((a) => a.id === id);
  if (!known(send.toAgentId)) return { ok: false, code: 'AGENT_UNKNOWN', reason: `no agent "${send.toAgentId}"` };
  if (send.toAgentId === sender) return { ok: false, code: 'RELAY_TO_SELF', reason: 'an agent cannot message itself' };

  let hops: number;
  let targetSession: string;
  let replyTo: string;
  if (send.inReplyTo) {
    // An answer: only to the agent that asked, only into the session it asked from.
    const asked = await deps.relays.get(send.inReplyTo);
    if (!asked) return { ok: false, code: 'RELAY_UNKNOWN', reason: `no relayed message "${send.inReplyTo}" to answer` };
    if (asked.toAgentId !== sender || asked.fromAgentId !== send.toAgentId) {
      return { ok: false, code: 'RELAY_NOT_OWNED', reason: `"${sender}" was not asked by "${send.toAgentId}" in ${send.inReplyTo}` };
    }
    if (send.sessionKey !== asked.replyToSessionKey) {
      return { ok: false, code: 'SESSION_NOT_OWNED', reason: `an answer to ${send.inReplyTo} must go to ${asked.replyToSessionKey}` };
    }
    hops = asked.hops + 1;
    targetSession = asked.replyToSessionKey;
    replyTo = `agent:${sender}:main`;
  } else {
    const allowed = deps.config.agentToAgent?.allow.some((p) => p.from === sender && p.to === send.toAgentId) ?? false;
    if (!allowed) return { ok: false, code: 'RELAY_NOT_ALLOWED', reason: `agentToAgent.allow does not let "${sender}" message "${send.toAgentId}"` };
    if (agentOfSessionKey(send.sessionKey) !== sender) {
      return { ok: false, code: 'SESSION_NOT_OWNED', reason: `session "${send.sessionKey}" does not belong to "${sender}"` };
    }
    hops = 1;
    targetSession = `agent:${send.toAgentId}:main`;
    replyTo = send.sessionKey;
  }
  if (hops > maxHops) return { ok: false, code: 'RELAY_TOO_DEEP', reason: `the exchange would reach ${hops} hops; agentToAgent.maxHops is ${maxHops}` };

  const id = relayedId(send.id);
  const now = deps.clock.now();
  await deps.relays.put({ id, fromAgentId: sender, toAgentId: send.toAgentId, replyToSessionKey: replyTo, hops, at: now });
  await deps.queues.send({
    v: 1,
    kind: 'agent_message',
    id,
    agentId: send.toAgentId,
    sessionKey: targetSession,
    fromAgentId: sender,
    replyTo: { sessionKey: replyTo },
    text: send.text,
    hops,
    // Deterministic, so a redelivered request makes a byte-identical message.
    ts: send.ts,
    ...(send.inReplyTo ? { inReplyTo: send.inReplyTo } : {}),
  });
  if (deps.lifecycle) {
    await deps.lifecycle.registry.recordActivity(send.toAgentId, now);
    await wakeIfAsleep(send.toAgentId, deps.lifecycle, 'agent message').catch((err) =>
      deps.log.warn('target not woken now; the health tick will', { agentId: send.toAgentId, error: String(err) }),
    );
  }
  deps.log.info('agent message relayed', { agentId: sender, toAgentId: send.toAgentId, envelopeId: send.id, relayedId: id, hops });
  return { ok: true, relayedId: id };
}
