// Shows a runtime's `draft` (the answer so far) in its inbound's chat. A draft is checked like
// a reply (the inbound must be the sender's, in the same session) but delivered best effort:
// it is never retried, never claims a delivery ledger entry, and never stands in for the
// final reply. It cannot double a reply: drafts travel in the session's FIFO group ahead of
// their reply (the runtime sends its last draft before the reply), a private chat's draft is
// an ephemeral bubble that the final sendMessage replaces, and a group's preview message is
// recorded with the inbound's origin, so the reply edits it into the final text once (under
// the reply's own exactly-once ledger) and marks it final, after which drafts are dropped. A
// progress status (#31, `progress: true`) is recorded so too, but the answer does not replace
// it: the reply goes as messages of its own and then deletes the status and marks it final.
import type { FleetConfig } from '../config/schema.ts';
import { errorFields, type Logger } from '../log.ts';
import type { DraftEnvelope, OutboundEnvelope } from '../protocol/envelopes.ts';
import { RetryLaterError, type ChannelSender, type ChannelTarget, type Clock, type InboundOrigins } from '../ports.ts';
import { answerableOrigin, type OriginCheck } from './origins.ts';
import { replyToMode } from './streaming.ts';

export interface DraftDeps {
  config: FleetConfig;
  origins: InboundOrigins;
  channel(target: ChannelTarget): Promise<ChannelSender>;
  /** Chats that said "slow down" to a draft, in this process. */
  draftPauses: DraftPauses;
  clock: Clock;
  log: Logger;
}

/** A draft is refused for the reasons a reply is: its inbound's origin does not answer. */
type Reject = (code: Extract<OriginCheck, { ok: false }>['code'], reason: string, envelope?: OutboundEnvelope) => Promise<void>;

/**
 * Chats whose drafts are paused after a 429: later drafts are dropped until the wait is over,
 * which slows the drafts while the final reply (not paused, retried as ever) goes out on time.
 * Per process: a paused chat may see one more draft from another instance, which is harmless.
 */
export class DraftPauses {
  private readonly until = new Map<string, number>();
  pause(target: ChannelTarget, until: number): void {
    this.until.set(chatKey(target), until);
    if (this.until.size > 10_000) this.until.delete(this.until.keys().next().value!);
  }
  paused(target: ChannelTarget, now: number): boolean {
    return (this.until.get(chatKey(target)) ?? 0) > now;
  }
}

const chatKey = (t: ChannelTarget) => (t.channel === 'telegram' ? `tg:${t.accountId}:${t.chatId}:${t.threadId ?? ''}` : `${t.channel}:${t.chatId}`);

/** A non-zero 31-bit draft id per inbound (FNV-1a), the same for every draft of its answer. */
export function draftIdFor(inboundId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < inboundId.length; i++) h = Math.imul(h ^ inboundId.charCodeAt(i), 0x01000193);
  return h & 0x7fffffff || 1;
}

/** Never throws for the channel's sake: a draft that cannot be shown is dropped, not retried. */
export async function showDraft(envelope: DraftEnvelope, sender: string, deps: DraftDeps, reject: Reject): Promise<void> {
  const checked = await answerableOrigin(deps.origins, envelope.inReplyTo, sender, envelope.sessionKey);
  if (!checked.ok) return reject(checked.code, checked.reason, envelope);
  const { origin } = checked;
  const target = origin.target;
  const ctx = { agentId: sender, envelopeId: envelope.id, sessionKey: envelope.sessionKey, inReplyTo: envelope.inReplyTo, seq: envelope.seq };
  if (target.channel === 'none') return;
  if (origin.preview?.final) {
    deps.log.info('draft dropped: the reply is already out', ctx);
    return;
  }
  if (deps.draftPauses.paused(target, deps.clock.now())) {
    deps.log.info('draft dropped: the chat asked us to slow down', ctx);
    return;
  }
  try {
    const channel = await deps.channel(target);
    if (!channel.showDraft) return;
    const text = envelope.text.length > channel.maxTextLength ? `${envelope.text.slice(0, channel.maxTextLength - 1)}…` : envelope.text;
    // A group's preview becomes the answer's first message, so it is threaded as that message would be.
    const threaded = target.channel === 'telegram' && origin.messageId !== undefined && replyToMode(deps.config, target.accountId) !== 'off';
    const shown = await channel.showDraft(target, {
      draftId: draftIdFor(envelope.inReplyTo),
      text,
      previewMessageId: origin.preview?.messageId,
      ...(threaded ? { replyToMessageId: origin.messageId } : {}),
    });
    if (shown.previewMessageId !== undefined && shown.previewMessageId !== origin.preview?.messageId) {
      // A progress status is removed once the answer is out rather than turned into it (#31).
      await deps.origins.put({ ...origin, preview: { messageId: shown.previewMessageId, ...(envelope.progress ? { progress: true } : {}) } });
    }
  } catch (err) {
    if (err instanceof RetryLaterError) {
      deps.draftPauses.pause(target, deps.clock.now() + err.seconds * 1000);
      deps.log.warn('drafts paused: the chat asked us to slow down', { ...ctx, seconds: err.seconds });
      return;
    }
    deps.log.warn('draft not shown', { ...ctx, ...errorFields(err) });
  }
}
