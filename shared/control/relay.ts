// Agent-to-agent messages (sessions_send). A runtime asks with agent_send, naming the
// inbound of the turn that sends it; the control plane relays an agent_message to the
// target's queue only if agentToAgent.allow permits the pair. The target answers with an
// agent_send carrying inReplyTo, which may go only back to the asker, into the asker's
// session. A conversation carries its hop count from inbound to inbound, so maxHops bounds
// all of it; each inbound may start only a few relays, and each pair is rate-limited.
import { createHash } from 'node:crypto';
import type { FleetConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import type { AgentSendEnvelope } from '../protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../protocol/envelopes.ts';
import type { AgentQueues, Clock, InboundOrigin, InboundOrigins, RelayRates, SpendCounts } from '../ports.ts';
import { budgetRefusal, type BudgetRefusal } from './budget-gate.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';
import { answerableOrigin, newOrigin, type OriginCheck } from './origins.ts';
import { mainSessionKey } from '../routing/session-key.ts';

export interface RelayDeps {
  config: FleetConfig;
  queues: AgentQueues;
  origins: InboundOrigins;
  rates: RelayRates;
  lifecycle?: LifecycleDeps | undefined;
  /** Budgets (#31): a question to an agent over its cap is answered for it, with why. */
  spend?: () => SpendCounts;
  clock: Clock;
  log: Logger;
}

/** Why a relay is refused: the sender's outbox DLQ reason starts with it. */
export type RelayRefusalCode =
  | 'AGENT_UNKNOWN'
  | 'RELAY_TO_SELF'
  | 'RELAY_TOO_DEEP'
  | 'RELAY_ID_REUSED'
  | 'RELAY_NOT_OWNED'
  | 'RELAY_UNKNOWN'
  | 'SESSION_NOT_OWNED'
  | 'RELAY_NOT_ALLOWED'
  | 'RELAY_FANOUT_LIMIT'
  | 'RELAY_RATE_LIMITED'
  | Extract<OriginCheck, { ok: false }>['code'];

export type RelayOutcome = { ok: true; relayedId: string } | { ok: false; code: RelayRefusalCode; reason: string };

/** agentToAgent.rateLimit when the config gives none: per ordered pair of agents. */
export const DEFAULT_RELAY_RATE_LIMIT = { max: 20, perMinutes: 10 };

/**
 * How many relays one inbound may cause (questions and answers alike). An honest turn asks
 * a few agents; a runtime that names an old inbound again and again to restart its hop
 * count gets this many out of each, and no more.
 */
export const MAX_RELAYS_PER_INBOUND = 10;

/**
 * The relayed message's id, derived from the sender and its request's id, so a redelivered
 * request relays once and no agent can choose an id that lands on another agent's relay.
 */
export function relayedId(sender: string, sendId: string): string {
  const id = `am.${sender}.${sendId}`;
  return id.length <= 128 ? id : `am.${sender}.${createHash('sha256').update(sendId).digest('hex').slice(0, 40)}`;
}

type Refusal = Extract<RelayOutcome, { ok: false }>;
const refuse = (code: RelayRefusalCode, reason: string): Refusal => ({ ok: false, code, reason });

export async function relayAgentSend(send: AgentSendEnvelope, sender: string, deps: RelayDeps): Promise<RelayOutcome> {
  const a2a = deps.config.agentToAgent;
  const maxHops = a2a?.maxHops ?? 3;
  if (!deps.config.agents.list.some((a) => a.id === send.toAgentId)) return refuse('AGENT_UNKNOWN', `no agent "${send.toAgentId}"`);
  if (send.toAgentId === sender) return refuse('RELAY_TO_SELF', 'an agent cannot message itself');

  // The turn that sends this must be one this agent was given; a question must come from
  // that turn's session (an answer names the asker's session instead, checked below).
  const cause = await answerableOrigin(deps.origins, send.inboundId, sender, send.inReplyTo ? undefined : send.sessionKey);
  if (!cause.ok) return cause;
  const plan = send.inReplyTo ? planAnswer(send, cause.origin) : planQuestion(send, sender, cause.origin, deps.config);
  if (!plan.ok) return plan;

  const hops = (cause.origin.hops ?? 0) + 1;
  if (hops > maxHops) {
    return refuse('RELAY_TOO_DEEP', `the conversation ${conversationOf(cause.origin)} would reach ${hops} hops; agentToAgent.maxHops is ${maxHops}`);
  }

  const id = relayedId(sender, send.id);
  const now = deps.clock.now();
  const origin = newOrigin({
    id,
    agentId: send.toAgentId,
    sessionKey: plan.sessionKey,
    target: plan.target,
    createdAt: now,
    hops,
    conversationId: conversationOf(cause.origin),
    askedBy: plan.askedBy,
  });
  const earlier = await deps.origins.get(id);
  if (earlier) {
    // A redelivered request: relayed (and counted) before, so it is sent again as it was.
    if (earlier.agentId !== origin.agentId || earlier.sessionKey !== origin.sessionKey) {
      return refuse('RELAY_ID_REUSED', `request id "${send.id}" was already used for a message to "${earlier.agentId}"`);
    }
  } else {
    const limited = await takeBudgets(send, sender, now, deps);
    if (limited) return limited;
  }

  // Budgets (#31): a question for an agent over its cap is not queued for it (its runtime would
  // only say so); the asker gets that answer at once, as if the target had given it. An answer
  // to an asker over its cap is queued: the asker's runtime tells its person, without a model call.
  if (!send.inReplyTo && !earlier) {
    const refusal = await budgetRefusal(deps.config, send.toAgentId, deps.spend, now);
    if (refusal) return answerForTarget(send, sender, cause.origin, hops, refusal, deps);
  }

  // Recorded before queueing, so the target's answer always finds it. The budgets are
  // taken first: recorded first, a refused relay would pass as a redelivery next time.
  if (!earlier) await deps.origins.put(origin);
  await deps.queues.send({
    v: PROTOCOL_VERSION,
    kind: 'agent_message',
    id,
    agentId: send.toAgentId,
    sessionKey: plan.sessionKey,
    fromAgentId: sender,
    // Where the target's own answer would go: the asker's session; an answer names the session of the question it answers.
    replyTo: { sessionKey: send.inReplyTo ? cause.origin.sessionKey : send.sessionKey },
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
  deps.log.info('agent message relayed', {
    agentId: sender,
    toAgentId: send.toAgentId,
    envelopeId: send.id,
    relayedId: id,
    hops,
    conversationId: origin.conversationId,
  });
  return { ok: true, relayedId: id };
}

/**
 * The answer an agent over its budget would give a question, given by the control plane: an
 * agent_message to the asker, into the session it asked from, reaching whom its question was
 * for, with the cap, its reset and how it is raised. Its id derives from the question's, so a
 * redelivered question answers once.
 */
async function answerForTarget(
  send: AgentSendEnvelope,
  sender: string,
  cause: InboundOrigin,
  hops: number,
  refusal: BudgetRefusal,
  deps: RelayDeps,
): Promise<RelayOutcome> {
  const id = relayedId(send.toAgentId, `budget.${send.id}`);
  const now = deps.clock.now();
  if (!(await deps.origins.get(id))) {
    await deps.origins.put(
      newOrigin({ id, agentId: sender, sessionKey: send.sessionKey, target: cause.target, createdAt: now, hops, conversationId: conversationOf(cause) }),
    );
  }
  await deps.queues.send({
    v: PROTOCOL_VERSION,
    kind: 'agent_message',
    id,
    agentId: sender,
    sessionKey: send.sessionKey,
    fromAgentId: send.toAgentId,
    replyTo: { sessionKey: mainSessionKey(send.toAgentId) },
    text: refusal.text,
    hops,
    ts: send.ts,
    inReplyTo: relayedId(sender, send.id),
  });
  deps.log.info('agent message answered for its target: the target is over its budget', {
    agentId: sender,
    toAgentId: send.toAgentId,
    envelopeId: send.id,
    relayedId: id,
    period: refusal.reached.period,
  });
  return { ok: true, relayedId: id };
}

type Plan = { ok: true; sessionKey: string; target: InboundOrigin['target']; askedBy: InboundOrigin['askedBy'] } | Refusal;

/**
 * An answer: only to the question the turn itself is answering, only to the agent that
 * asked, into the session it asked from; it reaches whomever that agent's question was for.
 */
function planAnswer(send: AgentSendEnvelope, question: InboundOrigin): Plan {
  if (send.inReplyTo !== send.inboundId)
    return refuse('RELAY_NOT_OWNED', `an answer answers the turn's own inbound "${send.inboundId}", not "${send.inReplyTo}"`);
  const asker = question.askedBy;
  if (!asker) return refuse('RELAY_UNKNOWN', `inbound "${send.inboundId}" is not a question from another agent`);
  if (asker.agentId !== send.toAgentId) return refuse('RELAY_NOT_OWNED', `"${send.toAgentId}" did not ask "${send.inboundId}"; "${asker.agentId}" did`);
  if (send.sessionKey !== asker.sessionKey) return refuse('SESSION_NOT_OWNED', `an answer to "${send.inboundId}" must go to ${asker.sessionKey}`);
  return { ok: true, sessionKey: asker.sessionKey, target: asker.target, askedBy: undefined };
}

/** A question: to an agent the config lets this one message, into its main session; nobody hears the target's turn except the asker. */
function planQuestion(send: AgentSendEnvelope, sender: string, cause: InboundOrigin, config: FleetConfig): Plan {
  const allowed = config.agentToAgent?.allow.some((p) => p.from === sender && p.to === send.toAgentId) ?? false;
  if (!allowed) return refuse('RELAY_NOT_ALLOWED', `agentToAgent.allow does not let "${sender}" message "${send.toAgentId}"`);
  return {
    ok: true,
    sessionKey: mainSessionKey(send.toAgentId),
    target: { channel: 'none' },
    askedBy: { agentId: sender, sessionKey: send.sessionKey, target: cause.target },
  };
}

const conversationOf = (origin: InboundOrigin) => origin.conversationId ?? origin.id;

/** The per-inbound budget first, so a runtime replaying one old inbound never eats the pair's rate. */
async function takeBudgets(send: AgentSendEnvelope, sender: string, now: number, deps: RelayDeps): Promise<Refusal | undefined> {
  if (!(await deps.origins.takeRelay(send.inboundId, MAX_RELAYS_PER_INBOUND))) {
    return refuse('RELAY_FANOUT_LIMIT', `inbound "${send.inboundId}" has already caused ${MAX_RELAYS_PER_INBOUND} agent messages, the most one inbound may`);
  }
  const limit = deps.config.agentToAgent?.rateLimit ?? DEFAULT_RELAY_RATE_LIMIT;
  const windowMs = limit.perMinutes * 60_000;
  const windowStart = Math.floor(now / windowMs) * windowMs;
  if (!(await deps.rates.take(sender, send.toAgentId, windowStart, windowMs, limit.max))) {
    return refuse(
      'RELAY_RATE_LIMITED',
      `"${sender}" has sent "${send.toAgentId}" ${limit.max} messages in the current ${limit.perMinutes}-minute window (agentToAgent.rateLimit)`,
    );
  }
  return undefined;
}
