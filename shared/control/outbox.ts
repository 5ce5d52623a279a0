// Handles one envelope from an agent's outbox. Runtime output is evidence, not command:
// the sender is the agent whose outbox queue the record came from, every claim in the
// envelope is checked against that and the inbound origins, and only then do we act. A
// reply reaches the origin of the inbound it answers, never the session's latest sender.
import { agentIdFromOutbox } from '../config/names.ts';
import { EnvelopeError } from '../errors.ts';
import { errorFields } from '../log.ts';
import {
  parseOutbound,
  type BlockEnvelope,
  type OutboundEnvelope,
  type ReplyEnvelope,
  type StatusEnvelope,
  type TypingEnvelope,
} from '../protocol/envelopes.ts';
import type { ChannelSender, ChannelTarget, InboundOrigin, SentMessage, StatusState } from '../ports.ts';
import { chunkText } from '../telegram/chunk.ts';
import type { AgentMetrics } from '../ports.ts';
import { turnEventFrom } from '../metrics/turn-event.ts';
import { answerableOrigin, type OriginCheck } from './origins.ts';
import { deliverableTarget } from './deliverable-target.ts';
import { isOwnMediaKey, mediaPrefix } from '../media/media-ref.ts';
import { endsText, replyMessages, sendSpoken } from './outbox-voice.ts';
import { DraftPauses, showDraft } from './drafts.ts';
import { replyToMode } from './streaming.ts';
import { anyStatusReactions, ReactionPacer, showStatus, type StatusReactionDeps } from './status-reactions.ts';
import { recordSent } from './sent-messages.ts';

/** Where no composition hands one in: this process's memory of chats that asked drafts to slow down. */
const processDraftPauses = new DraftPauses();
/** Where no composition hands one in: this process's pace of status reactions per chat (#31). */
const processReactionPacer = new ReactionPacer();
import { completeSoon, DELIVERY_LEASE_MS, settleFailedSend } from './outbox-lease.ts';
import { countUsage } from './spend-count.ts';
import type { OutboxDeps, Reject } from './outbox-types.ts';

export type { OutboxDeps, Reject } from './outbox-types.ts';

export interface OutboxRecord {
  /** The queue the record arrived on (ARN or URL): the sender's identity. */
  source: string;
  body: string;
  messageId: string;
}

/** Resolves when the record is done with (delivered, or rejected into the DLQ); throws to retry it. */
export async function processOutboxRecord(record: OutboxRecord, deps: OutboxDeps): Promise<void> {
  const sender = agentIdFromOutbox(deps.config.fleet, record.source);
  const reject: Reject = async (code, reason, envelope) => {
    deps.log.warn('outbox envelope rejected', {
      agentId: sender,
      code,
      reason,
      messageId: record.messageId,
      envelopeId: envelope?.id,
      sessionKey: envelope && 'sessionKey' in envelope ? envelope.sessionKey : undefined,
      metric: 'OutboxRejected',
    });
    await deps.deadLetters(sender).put(record.body, `${code}: ${reason}`, envelope && 'sessionKey' in envelope ? envelope.sessionKey : undefined);
  };

  if (!sender || !deps.config.agents.list.some((a) => a.id === sender)) {
    return reject('UNKNOWN_OUTBOX', `record came from ${record.source}, which is no agent's outbox in fleet "${deps.config.fleet}"`);
  }
  let envelope: OutboundEnvelope;
  try {
    envelope = parseOutbound(record.body);
  } catch (err) {
    if (err instanceof EnvelopeError) return reject(err.code, err.message);
    throw err;
  }
  if (envelope.agentId !== sender) {
    return reject('AGENT_MISMATCH', `envelope claims agent "${envelope.agentId}" but came from the outbox of "${sender}"`, envelope);
  }

  switch (envelope.kind) {
    case 'reply':
    case 'block':
      return deliverReply(envelope, sender, deps, reject);
    case 'draft':
      return showDraft(envelope, sender, { ...deps, draftPauses: deps.draftPauses ?? processDraftPauses }, reject);
    case 'typing':
      return sendTyping(envelope, sender, deps, reject);
    case 'heartbeat':
      await deps.registry?.recordHeartbeat(sender, deps.clock.now(), envelope.version, envelope.mcp, envelope.warnings);
      return;
    case 'status':
      // Turns count as activity, so a busy agent is never hibernated mid-conversation.
      await deps.registry?.recordActivity(sender, deps.clock.now());
      if (envelope.turn === 'failed') await deps.registry?.recordError(sender, deps.clock.now(), envelope.error ?? 'turn failed');
      if (deps.metrics) await recordTurnMetrics(deps.metrics, envelope, sender, deps.clock.now());
      await recordSessionStats(envelope, sender, deps);
      await clearAckOfSilentTurn(envelope, sender, deps);
      await reactToStatus(envelope, sender, deps);
      deps.log.info('runtime status', {
        agentId: sender,
        envelopeId: envelope.id,
        turn: envelope.turn,
        inboundId: envelope.inboundId,
        turnError: envelope.error,
      });
      return;
    case 'agent_send': {
      if (!deps.relay) return reject('NOT_SUPPORTED', 'agent_send is not wired in this control plane', envelope);
      // Agent-to-agent, cron and file envelopes are a few of the outbox's records: their code is
      // imported on their path (in a Lambda bundle, chunks a reply never loads).
      const { relayAgentSend } = await import('./relay.ts');
      const outcome = await relayAgentSend(envelope, sender, { ...deps.relay, origins: deps.origins, config: deps.config, clock: deps.clock, log: deps.log });
      if (!outcome.ok) return reject(outcome.code, outcome.reason, envelope);
      return;
    }
    case 'file':
      return (await import('./outbox-file.ts')).deliverFile(envelope, sender, deps, reject);
    case 'usage': {
      if (!deps.spend) return reject('NOT_SUPPORTED', 'usage reports are not counted in this control plane', envelope);
      const outcome = await countUsage(envelope, sender, {
        spend: deps.spend.counts(),
        alertSpend: deps.spend.alertSpend,
        config: deps.config,
        clock: deps.clock,
        log: deps.log,
      });
      if (!outcome.ok) return reject(outcome.code, outcome.reason, envelope);
      return;
    }
    case 'cron_upsert':
    case 'cron_delete': {
      if (!deps.scheduler) return reject('NOT_SUPPORTED', `${envelope.kind} is not wired in this control plane`, envelope);
      const { applyCronDelete, applyCronUpsert } = await import('./cron-requests.ts');
      const outcome =
        envelope.kind === 'cron_upsert'
          ? await applyCronUpsert(envelope, sender, deps.scheduler, deps.clock)
          : await applyCronDelete(envelope, sender, deps.scheduler);
      if (!outcome.ok) return reject(outcome.code, outcome.reason, envelope);
      deps.log.info(`agent ${envelope.kind === 'cron_upsert' ? 'scheduled' : 'removed'} a cron job`, {
        agentId: sender,
        jobId: envelope.jobId,
        schedule: outcome.schedule,
      });
      return;
    }
  }
}

/**
 * Sends a reply, or a block of a streamed one, to the origin of the inbound it answers, each
 * part at most once (claimed in the delivery ledger under the envelope's id and the part's
 * index). A block is a message like any other, without a reply's extras: it never becomes a
 * group's preview, carries no buttons and leaves the ack reaction to the reply.
 */
async function deliverReply(envelope: ReplyEnvelope | BlockEnvelope, sender: string, deps: OutboxDeps, reject: Reject): Promise<void> {
  const ctx = { agentId: sender, envelopeId: envelope.id, sessionKey: envelope.sessionKey, inReplyTo: envelope.inReplyTo };
  // Where the inbound it answers came from: the one place this reply may go.
  const found = await deliverableTarget(deps, envelope.inReplyTo, sender, envelope.sessionKey);
  if (!found.ok) {
    if (found.code === 'NOBODY' || found.code === 'BLOCKED')
      return deps.log.info(`${envelope.kind} not delivered: ${found.reason}`, { ...ctx, chars: envelope.text.length });
    return reject(found.code, found.reason, envelope);
  }
  const { origin, target, session } = found;
  const isReply = envelope.kind === 'reply';
  if (isReply && isHeartbeatOk(envelope.text)) {
    deps.log.info('heartbeat answered HEARTBEAT_OK; nothing to deliver', ctx);
    return;
  }
  const channel = await deps.channel(target);
  const parts = channel.chunk ? await channel.chunk(envelope.text) : chunkText(envelope.text, channel.maxTextLength);
  const threading = target.channel === 'telegram' && origin.messageId !== undefined ? replyToMode(deps.config, target.accountId) : 'off';
  // The answer's first message is its first block when blocks went out before the reply.
  const firstOfAnswer = isReply ? envelope.afterBlocks === undefined : envelope.index === 1;
  const preview = isReply ? origin.preview : undefined;
  // A streamed answer in a group already has a preview message: its first part becomes that message.
  // A progress status (#31) is not the answer: the answer goes as messages of its own, and the status is removed.
  // The layout of a spoken reply follows whether the answer has a preview at all: after a crash the
  // preview may already be final, and the same reply must still find its voice where it was.
  const answerShown = preview !== undefined && !preview.progress && channel.finishPreview !== undefined;
  const answerPreview = answerShown && !preview.final;
  // Spoken replies (#31): the voice is read only from the sender's own out/ prefix.
  const voice = isReply ? envelope.voice : undefined;
  if (voice && !isOwnMediaKey(sender, voice.key, 'out')) {
    return reject('MEDIA_NOT_OWNED', `voice key "${voice.key}" is not under the sender's own prefix ${mediaPrefix(sender, 'out')}`, envelope);
  }
  if (voice && !deps.media) deps.log.warn('voice not sent: this control plane has no media store; the reply goes as text', ctx);
  const messages = await replyMessages(envelope.id, parts, deps.media ? voice : undefined, channel, answerShown);

  for (const [m, message] of messages.entries()) {
    const claim = await deps.ledger.claim(message.key, deps.clock.now(), DELIVERY_LEASE_MS);
    if (claim === 'delivered') continue;
    if (claim === 'in-flight') throw new Error(`${message.key} of ${envelope.id} is being delivered by another worker; retry later`);
    const intoPreview = message.kind === 'text' && message.part === 0 && answerPreview;
    let sent: SentMessage | void;
    try {
      // Buttons go under the end of the text, where the user reads to.
      const buttons = isReply && endsText(message, parts.length) && envelope.buttons ? { buttons: envelope.buttons } : {};
      const thread = threading === 'all' || (threading === 'first' && firstOfAnswer && m === 0) ? { replyToMessageId: origin.messageId } : {};
      // The preview was threaded when it was sent; the thread here is for a preview gone, sent anew.
      if (message.kind === 'voice')
        sent = await sendSpoken(message, voice!, target, channel, { ...thread, ...buttons }, { media: deps.media!, log: deps.log }, ctx);
      else if (intoPreview) sent = await channel.finishPreview!(target, preview!.messageId, message.text, { ...thread, ...buttons });
      else sent = await channel.sendText(target, message.text, { ...thread, ...buttons });
    } catch (err) {
      return settleFailedSend(err, message.key, deps, { session, target, ctx, reject, envelope });
    }
    await completeSoon(deps, message.key);
    if (intoPreview) await markPreviewFinal(origin, deps);
    // Whose message it is, for the users' reactions to it (#31).
    await recordSent(origin, target, sent, deps);
  }
  deps.log.info(`${envelope.kind} delivered`, { ...ctx, parts: parts.length, ...(voice ? { voice: true } : {}) });
  if (isReply && preview?.progress && !preview.final) await removeStatus(channel, target, origin, deps);
  if (isReply && origin.ack && origin.messageId !== undefined) await clearAck(channel, target, origin.messageId, deps);
  if (isReply) await showStatus(origin, envelope.failed ? 'error' : 'done', statusReactionDeps(deps));
}

const statusReactionDeps = (deps: OutboxDeps): StatusReactionDeps => ({ ...deps, pacer: deps.reactionPacer ?? processReactionPacer });

/**
 * Status reactions (#31): a turn's started status is "thinking", its tool status "tool", a failed
 * turn "error", one ended without a reply "done" (a reply sets done itself, when delivered). The
 * origin is read only where some account has them on, and only if the inbound is the sender's.
 */
async function reactToStatus(envelope: StatusEnvelope, sender: string, deps: OutboxDeps): Promise<void> {
  if (!anyStatusReactions(deps.config)) return;
  const to = { started: 'thinking', tool: 'tool', failed: 'error', ended: envelope.replied === false ? 'done' : undefined }[envelope.turn] as
    | Exclude<StatusState, 'queued'>
    | undefined;
  if (!to) return;
  let checked: OriginCheck;
  try {
    checked = await answerableOrigin(deps.origins, envelope.inboundId, sender, envelope.sessionKey);
  } catch (err) {
    // Best effort: the status's other records stand; a reaction is never a reason to retry it.
    deps.log.warn('status reaction not set: the origin could not be read', { agentId: sender, inboundId: envelope.inboundId, ...errorFields(err) });
    return;
  }
  if (!checked.ok) {
    deps.log.info('status reaction not set: the status names an inbound its sender may not answer', { agentId: sender, reason: checked.reason });
    return;
  }
  await showStatus(checked.origin, to, statusReactionDeps(deps));
}

/**
 * Progress streaming (#31): the group's status message has done its job once the answer is out.
 * Removed best effort (a failure leaves a stale status, never a lost answer), then marked final
 * so a late draft does not bring it back; a redelivered reply finds it final and leaves it.
 */
async function removeStatus(channel: ChannelSender, target: ChannelTarget, origin: InboundOrigin, deps: OutboxDeps): Promise<void> {
  try {
    await channel.clearPreview?.(target, origin.preview!.messageId);
  } catch (err) {
    deps.log.warn('progress status not removed', { envelopeId: origin.id, ...errorFields(err) });
  }
  await markPreviewFinal(origin, deps);
}

/**
 * What the runtime says about the session after a turn, kept on the session for /status. Only
 * on a session the sender owns (the store's condition: a runtime cannot write onto another
 * agent's session, nor make one up); a refused one is logged, not dead-lettered: it is
 * information, and the turn it reports is done either way.
 */
async function recordSessionStats(envelope: StatusEnvelope, sender: string, deps: OutboxDeps): Promise<void> {
  if (!envelope.session || envelope.sessionKey === undefined) return;
  const recorded = await deps.sessions.recordStats(envelope.sessionKey, sender, { ...envelope.session, at: envelope.ts });
  if (!recorded)
    deps.log.info('session stats not recorded: no such session of this agent, or a newer report is there', {
      agentId: sender,
      sessionKey: envelope.sessionKey,
      envelopeId: envelope.id,
    });
}

/**
 * A turn that ended without a reply (NO_REPLY, or said whole in blocks) still had its message
 * acknowledged, and may have shown a progress status (#31): clear both, as a reply would.
 */
async function clearAckOfSilentTurn(envelope: StatusEnvelope, sender: string, deps: OutboxDeps): Promise<void> {
  if (envelope.turn !== 'ended' || envelope.replied !== false) return;
  const found = await deliverableTarget(deps, envelope.inboundId, sender, envelope.sessionKey);
  if (!found.ok) return;
  const { origin, target } = found;
  try {
    if (origin.preview?.progress && !origin.preview.final) await removeStatus(await deps.channel(target), target, origin, deps);
    if (origin.ack && origin.messageId !== undefined) await clearAck(await deps.channel(target), target, origin.messageId, deps);
  } catch (err) {
    deps.log.warn('ack reaction not removed', { agentId: sender, inboundId: envelope.inboundId, ...errorFields(err) });
  }
}

/** The ack reaction has done its job once the answer is there. Best effort. */
async function clearAck(channel: ChannelSender, target: ChannelTarget, messageId: number, deps: OutboxDeps): Promise<void> {
  try {
    await channel.react?.(target, messageId, undefined);
  } catch (err) {
    deps.log.warn('ack reaction not removed', errorFields(err));
  }
}

/** Later drafts of this answer (a redelivered one) are dropped rather than edit the final text back. Best effort. */
async function markPreviewFinal(origin: InboundOrigin, deps: OutboxDeps): Promise<void> {
  try {
    await deps.origins.put({ ...origin, preview: { ...origin.preview!, final: true } });
  } catch (err) {
    deps.log.warn('preview not marked final', { envelopeId: origin.id, ...errorFields(err) });
  }
}

/** OpenClaw's convention: a heartbeat turn with nothing to say answers HEARTBEAT_OK, which is not sent. */
function isHeartbeatOk(text: string): boolean {
  return text.trim().replace(/[.!]$/, '') === 'HEARTBEAT_OK';
}

/** Best effort: a lost typing indicator is harmless, so it is never retried; one for an inbound the agent was not given is refused like a reply. */
async function sendTyping(envelope: TypingEnvelope, sender: string, deps: OutboxDeps, reject: Reject): Promise<void> {
  const checked = await answerableOrigin(deps.origins, envelope.inboundId, sender, envelope.sessionKey);
  if (!checked.ok) return reject(checked.code, checked.reason, envelope);
  const { target } = checked.origin;
  if (target.channel === 'none') return;
  try {
    await (await deps.channel(target)).sendTyping(target);
  } catch (err) {
    deps.log.warn('typing indicator not sent', { agentId: sender, sessionKey: envelope.sessionKey, ...errorFields(err) });
  }
}

/** Counted once per inbound id and outcome by the store, so a redelivered status is harmless. */
async function recordTurnMetrics(metrics: AgentMetrics, envelope: OutboundEnvelope, sender: string, now: number): Promise<void> {
  const turn = turnEventFrom(envelope, sender, now);
  if (turn) await metrics.recordTurn(turn);
}
