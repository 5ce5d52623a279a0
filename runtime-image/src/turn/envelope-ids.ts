// Ids of the envelopes a turn sends, derived from its inbound envelope id, so that a turn
// redone after a crash sends the same ids and the outbox's deduplication absorbs repeats.
import { sha256Hex } from '../../../shared/lazy-crypto.ts';

const MAX_ID = 128;

/** `<inboundId>.<suffix>`, hashing the inbound id when the whole would pass 128 characters. */
export function derivedId(inboundId: string, suffix: string): string {
  const id = `${inboundId}.${suffix}`;
  if (id.length <= MAX_ID) return id;
  return `${sha256Hex(inboundId).slice(0, 40)}.${suffix}`.slice(0, MAX_ID);
}
