// The origin of each inbound envelope, and the one check every answer passes: an agent may
// answer (reply, show "typing…", relay to another agent) only an inbound that was queued
// for it, in the session it was queued into; the answer reaches that inbound's origin.
import * as z from '../zod.ts';
import type { InboundOrigin, InboundOrigins, SessionRegistry, SessionTarget } from '../ports.ts';

/**
 * How long an origin is kept: an inbound may wait in its queue for the queue's whole
 * retention (14 days), and its answer is delivered after that; a day more covers the turn
 * and the outbox's retries. Chat ids are personal data, so not longer than that.
 */
export const ORIGIN_TTL_MS = 15 * 24 * 3600 * 1000;

const TargetSchema = z.discriminatedUnion('channel', [
  z.object({ channel: z.literal('telegram'), accountId: z.string(), chatId: z.string(), threadId: z.optional(z.number().check(z.int())) }),
  z.object({ channel: z.literal('local'), chatId: z.string() }),
  z.object({ channel: z.literal('none') }),
]);

/** A stored InboundOrigin (shared/ports.ts), checked on the way back in. */
export const InboundOriginSchema = z.object({
  id: z.string(),
  agentId: z.string(),
  sessionKey: z.string(),
  target: TargetSchema,
  createdAt: z.number(),
  expiresAt: z.number(),
  hops: z.optional(z.number().check(z.int(), z.nonnegative())),
  conversationId: z.optional(z.string()),
  askedBy: z.optional(z.object({ agentId: z.string(), sessionKey: z.string(), target: TargetSchema })),
  messageId: z.optional(z.number().check(z.int())),
  ack: z.optional(z.string()),
  statusReactions: z.optional(z.boolean()),
  preview: z.optional(z.object({ messageId: z.number().check(z.int()), final: z.optional(z.boolean()), progress: z.optional(z.boolean()) })),
}) satisfies z.ZodMiniType<InboundOrigin>;

export type OriginCheck = { ok: true; origin: InboundOrigin } | { ok: false; code: 'ORIGIN_UNKNOWN' | 'ORIGIN_NOT_OWNED'; reason: string };

/** The origin of `inboundId`, if `agentId` may answer it (from `sessionKey`, when given). */
export async function answerableOrigin(origins: InboundOrigins, inboundId: string, agentId: string, sessionKey: string | undefined): Promise<OriginCheck> {
  const origin = await origins.get(inboundId);
  if (!origin)
    return {
      ok: false,
      code: 'ORIGIN_UNKNOWN',
      reason: `no inbound "${inboundId}" was queued (or its origin expired); an answer must name an inbound its agent received`,
    };
  if (origin.agentId !== agentId)
    return { ok: false, code: 'ORIGIN_NOT_OWNED', reason: `inbound "${inboundId}" was queued for another agent, not "${agentId}"` };
  if (sessionKey !== undefined && origin.sessionKey !== sessionKey) {
    return { ok: false, code: 'ORIGIN_NOT_OWNED', reason: `inbound "${inboundId}" belongs to session "${origin.sessionKey}", not "${sessionKey}"` };
  }
  return { ok: true, origin };
}

/** An origin that expires ORIGIN_TTL_MS after `createdAt`. */
export function newOrigin(fields: Omit<InboundOrigin, 'expiresAt'>): InboundOrigin {
  return { ...fields, expiresAt: fields.createdAt + ORIGIN_TTL_MS };
}

/**
 * Where a session last heard from someone directly (the session registry's target), for
 * turns without a sender of their own: heartbeats, cron jobs without a delivery target,
 * hooks into a session someone talks to. Nobody if the session has no chat.
 */
export async function lastDirectRoute(sessions: SessionRegistry, sessionKey: string): Promise<SessionTarget> {
  return (await sessions.get(sessionKey))?.target ?? { channel: 'none' };
}

/** Whether two targets name the same chat (and forum topic). */
export function sameTarget(a: SessionTarget, b: SessionTarget): boolean {
  if (a.channel !== b.channel) return false;
  if (a.channel === 'none' || b.channel === 'none') return true;
  if (a.channel === 'local' || b.channel === 'local') return a.chatId === b.chatId;
  return a.accountId === b.accountId && a.chatId === b.chatId && (a.threadId ?? null) === (b.threadId ?? null);
}
