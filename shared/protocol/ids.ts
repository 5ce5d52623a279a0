// Deterministic envelope ids. Every retry of the same event yields the same id, which is
// what lets each step dedupe: SQS FIFO deduplication, the runtime's transcript and the
// outbox's delivery claims are all keyed by these.

import { controlGroupOf } from '../routing/session-key.ts';

/** A Telegram update, unique per bot account. */
export const telegramInboundId = (accountId: string, updateId: number) => `tg.${accountId}.${updateId}`;

/** The reply to an inbound envelope; `part` numbers replies when a turn sends several. */
export const replyId = (inboundId: string, part = 0) => `${inboundId}.reply.${part}`;

export const typingId = (inboundId: string, n: string) => `${inboundId}.typing.${n}`;

/**
 * The SQS FIFO message group of an envelope: its session, so one session's messages stay
 * in order while sessions run in parallel; session-less envelopes share a control group.
 */
export const fifoGroup = (e: { agentId: string; sessionKey?: string | undefined }) => e.sessionKey ?? controlGroupOf(e.agentId);
