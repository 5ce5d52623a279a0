// A sender's request to talk to a bot, as the pairing store keeps it while the owner has not
// yet approved it: for tests that need one waiting (an overview that lists it, a code to approve).
import type { PairingRecord } from '../../shared/ports.ts';

/** `who` asked `accountId`'s bot at `now`; the code lapses an hour later. */
export function pendingPairing(who: Pick<PairingRecord, 'accountId' | 'peerId' | 'code' | 'displayName'>, now = Date.now()): PairingRecord {
  return { channel: 'telegram', ...who, status: 'pending', createdAt: now, expiresAt: now + 3_600_000 };
}
