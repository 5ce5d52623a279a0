// λ outbox's file path (#16): a file an agent sends is delivered like a reply — to the origin
// of the inbound its turn answers, once (the delivery ledger) — and only from the agent's own
// out/ prefix: a key naming another agent's prefix, or its in/ prefix, is refused into the
// sender's DLQ, so no agent can make the control plane send another agent's files.
import type { FileEnvelope } from '../protocol/envelopes.ts';
import { isOwnMediaKey, mediaPrefix, TELEGRAM_UPLOAD_LIMIT_BYTES } from '../media/media-ref.ts';
import { deliverableTarget } from './deliverable-target.ts';
import { completeSoon, DELIVERY_LEASE_MS, settleFailedSend } from './outbox-lease.ts';
import type { OutboxDeps, Reject } from './outbox-types.ts';

export async function deliverFile(envelope: FileEnvelope, sender: string, deps: OutboxDeps, reject: Reject): Promise<void> {
  if (!deps.media) return reject('NOT_SUPPORTED', 'files are not wired in this control plane (it has no media store)', envelope);
  if (!isOwnMediaKey(sender, envelope.key, 'out')) {
    return reject('MEDIA_NOT_OWNED', `key "${envelope.key}" is not under the sender's own prefix ${mediaPrefix(sender, 'out')}`, envelope);
  }
  if (envelope.size > TELEGRAM_UPLOAD_LIMIT_BYTES)
    return reject('MEDIA_TOO_LARGE', `the file is ${envelope.size} bytes, over the ${TELEGRAM_UPLOAD_LIMIT_BYTES} a bot may send`, envelope);
  const ctx = { agentId: sender, envelopeId: envelope.id, sessionKey: envelope.sessionKey, inboundId: envelope.inboundId, fileKind: envelope.fileKind };
  const found = await deliverableTarget(deps, envelope.inboundId, sender, envelope.sessionKey);
  if (!found.ok) {
    if (found.code === 'NOBODY' || found.code === 'BLOCKED') return deps.log.info(`file not delivered: ${found.reason}`, ctx);
    return reject(found.code, found.reason, envelope);
  }
  const { target, session } = found;
  const channel = await deps.channel(target);
  if (!channel.sendFile) return reject('NOT_SUPPORTED', `the ${target.channel} channel cannot carry files`, envelope);

  const claim = await deps.ledger.claim(envelope.id, deps.clock.now(), DELIVERY_LEASE_MS);
  if (claim === 'delivered') return;
  if (claim === 'in-flight') throw new Error(`file ${envelope.id} is being delivered by another worker; retry later`);
  let stored;
  try {
    stored = await deps.media.get(envelope.key);
  } catch (err) {
    await deps.ledger.release(envelope.id);
    throw err;
  }
  if (!stored) {
    await deps.ledger.complete(envelope.id, deps.clock.now());
    return reject('MEDIA_MISSING', `nothing is kept at "${envelope.key}" (never written, or expired)`, envelope);
  }
  if (stored.bytes.byteLength > TELEGRAM_UPLOAD_LIMIT_BYTES) {
    await deps.ledger.complete(envelope.id, deps.clock.now());
    return reject(
      'MEDIA_TOO_LARGE',
      `the file kept at "${envelope.key}" is ${stored.bytes.byteLength} bytes, over the ${TELEGRAM_UPLOAD_LIMIT_BYTES} a bot may send`,
      envelope,
    );
  }
  try {
    await channel.sendFile(target, {
      kind: envelope.fileKind,
      fileName: envelope.fileName,
      mimeType: envelope.mimeType,
      bytes: stored.bytes,
      caption: envelope.caption,
      key: envelope.key,
    });
  } catch (err) {
    return settleFailedSend(err, envelope.id, deps, { session, target, ctx, reject, envelope });
  }
  await completeSoon(deps, envelope.id);
  deps.log.info('file delivered', { ...ctx, bytes: stored.bytes.byteLength });
}
