// A delivery's claim in the ledger, shared by every kind the outbox delivers (replies, blocks,
// files): how long one attempt holds it, and the write that marks a part sent.
import { errorFields } from '../log.ts';
import type { OutboxDeps } from './outbox-types.ts';

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
