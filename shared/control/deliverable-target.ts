// The checks every message the outbox sends for an agent passes (a reply, a block of a
// streamed reply, a file): its inbound is the sender's and in its session, it has somebody to
// answer, and that chat has not blocked the bot; and what a "bot was blocked" refusal records.
// One place, so the reply and file paths cannot drift apart.
import { errorFields, type Logger } from '../log.ts';
import type { ChannelTarget, Clock, InboundOrigin, InboundOrigins, PermanentDeliveryError, SessionRecord, SessionRegistry } from '../ports.ts';
import { answerableOrigin, sameTarget, type OriginCheck } from './origins.ts';

export type Deliverable =
  | { ok: true; origin: InboundOrigin; target: ChannelTarget; session: SessionRecord | undefined }
  /** Refused: the envelope goes to the DLQ with this code. */
  | Extract<OriginCheck, { ok: false }>
  /** Nothing to do, rightly: the inbound had nobody to answer (a hook), or its chat blocked the bot. */
  | { ok: false; code: 'NOBODY' | 'BLOCKED'; reason: string };

interface TargetDeps {
  origins: InboundOrigins;
  sessions: SessionRegistry;
}

/** Where an answer to `inboundId` from `sender` may go, if anywhere. */
export async function deliverableTarget(deps: TargetDeps, inboundId: string, sender: string, sessionKey: string | undefined): Promise<Deliverable> {
  const checked = await answerableOrigin(deps.origins, inboundId, sender, sessionKey);
  if (!checked.ok) return checked;
  const target = checked.origin.target;
  if (target.channel === 'none') return { ok: false, code: 'NOBODY', reason: 'its inbound has nobody to answer' };
  // A chat that blocked the bot is the session's last direct route until its user writes again.
  const session = await deps.sessions.get(checked.origin.sessionKey);
  if (session?.blockedAt !== undefined && sameTarget(session.target, target)) return { ok: false, code: 'BLOCKED', reason: 'the user blocked the bot' };
  return { ok: true, origin: checked.origin, target, session };
}

/** Whether a channel's permanent refusal means the user blocked the bot (Telegram's 403). */
export function isBlockedRefusal(err: PermanentDeliveryError): boolean {
  return /\b403\b|blocked/i.test(err.message);
}

/**
 * Records that the user blocked the bot, so later answers to this chat are dropped until they
 * write again (the webhook clears the mark). Best effort: a lost mark costs one more refused send.
 */
export async function recordBlocked(
  deps: TargetDeps & { clock: Clock; log: Logger },
  session: SessionRecord | undefined,
  target: ChannelTarget,
  ctx: Record<string, unknown>,
): Promise<void> {
  try {
    if (session && sameTarget(session.target, target)) await deps.sessions.put({ ...session, blockedAt: deps.clock.now() });
  } catch (err) {
    deps.log.warn('blocked bot not recorded', { ...ctx, ...errorFields(err) });
  }
  deps.log.warn('the user blocked the bot; answers to this chat are dropped until they write again', ctx);
}
