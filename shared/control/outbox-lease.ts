// A delivery's claim in the ledger, shared by every kind the outbox delivers (replies, blocks,
// files): how long one attempt holds it, the write that marks a part sent, and what a send
// that failed does with it.
import type { OutboundEnvelope } from '../protocol/envelopes.ts';
import { errorFields } from '../log.ts';
import { PermanentDeliveryError, type ChannelTarget, type SessionRecord } from '../ports.ts';
import { isBlockedRefusal, recordBlocked } from './deliverable-target.ts';
import type { OutboxDeps, Reject } from './outbox-types.ts';

/** How long one delivery attempt may hold its claim before another may try. */
export const DELIVERY_LEASE_MS = 60_000;

/**
 * Marks a sent part delivered. This is the one write whose loss can double a message (the
 * claim would lapse and the part be sent again), so a passing failure is retried a few
 * times before the record is handed back for redelivery.
 */
export async function completeSoon(deps: OutboxDeps, key: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await deps.ledger.complete(key, deps.clock.now());
    } catch (err) {
      if (attempt >= 4) throw err;
      deps.log.warn('delivery not recorded yet; retrying', { key, attempt, ...errorFields(err) });
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    }
  }
}

/**
 * After a send under the claim `key` threw. Refused for good (blocked bot, gone chat): the
 * claim is kept so it is not retried, and the chat is marked blocked or the envelope rejected.
 * Anything else gives the claim back and is thrown: the edge logs it once, with the record's
 * ids, and has it retried.
 */
export async function settleFailedSend(
  err: unknown,
  key: string,
  deps: OutboxDeps,
  refused: { session: SessionRecord | undefined; target: ChannelTarget; ctx: Record<string, unknown>; reject: Reject; envelope: OutboundEnvelope },
): Promise<void> {
  if (!(err instanceof PermanentDeliveryError)) {
    await deps.ledger.release(key);
    throw err;
  }
  await deps.ledger.complete(key, deps.clock.now());
  if (isBlockedRefusal(err)) return recordBlocked(deps, refused.session, refused.target, refused.ctx);
  return refused.reject('DELIVERY_REFUSED', err.message, refused.envelope);
}
