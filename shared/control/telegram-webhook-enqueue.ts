// The admitted message made into its envelope (checked against the protocol, so the runtime
// never gets one it must reject), its origin and the session's route recorded, and queued for
// the agent. The webhook answers 200 only once this has succeeded.
import { errorFields } from '../log.ts';
import { MessageEnvelopeSchema, PROTOCOL_VERSION, type MessageEnvelope, type Quote, type StreamRequest } from '../protocol/envelopes.ts';
import type { CallbackQuery } from '../telegram/update.ts';
import type { ParsedCommand } from './commands.ts';
import type { InboundMedia } from './inbound-media.ts';
import { newOrigin } from './origins.ts';
import type { ReactionPlan } from './status-reactions.ts';
import { DEDUPE_TTL_MS, unavailable, type HttpResult, type TelegramWebhookDeps } from './telegram-webhook-deps.ts';
import type { Gated } from './telegram-webhook-gates.ts';
import type { SaidMessage } from './telegram-webhook-message.ts';

/** What the envelope carries beyond the message's own words. */
export interface EnvelopeParts {
  media: InboundMedia;
  command: ParsedCommand | undefined;
  press: CallbackQuery | undefined;
  quote: Quote | undefined;
  stream: StreamRequest | undefined;
  reaction: ReactionPlan | undefined;
}

/** The message's envelope, or the 400 for an update that cannot make a valid one. */
export function messageEnvelope(said: SaidMessage, parts: EnvelopeParts, at: Gated, deps: TelegramWebhookDeps): MessageEnvelope | HttpResult {
  const { message, edit, own, forward, shared } = said;
  const { media, command, press, quote, stream, reaction } = parts;
  const envelope: MessageEnvelope = {
    v: PROTOCOL_VERSION,
    kind: 'message',
    id: at.id,
    agentId: at.target.agentId,
    sessionKey: at.target.sessionKey,
    // From the update, not the clock: a retried update must make a byte-identical envelope.
    ts: (edit?.edit_date ?? message.date) * 1000,
    text: withMedia(media, said.text, own.caption),
    ...(media.kind === 'stored' ? { media: [media.ref] } : {}),
    from: {
      channel: 'telegram',
      accountId: at.ctx.accountId,
      ...(message.from ? { peerId: String(message.from.id), displayName: message.from.username ?? message.from.first_name } : {}),
    },
    ...(stream ? { stream } : {}),
    ...(command?.kind === 'runtime' ? { command: command.command } : {}),
    ...(quote ? { quote } : {}),
    ...(forward ? { forward } : {}),
    ...(shared ? { shared } : {}),
    ...(press?.data !== undefined ? { callback: { data: press.data } } : {}),
    // Status reactions show a tool in use: the runtime says when it first calls one.
    ...(reaction?.kind === 'status' && !command ? { reportTools: true as const } : {}),
  };

  // An update Telegram could send always fits; one that does not (text past the protocol's
  // limit, a date before 1970) is refused here rather than queued for the runtime to reject.
  const checked = MessageEnvelopeSchema.safeParse(envelope);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const problem = `${issue.path.join('.') || '(root)'}: ${issue.message}`;
    deps.log.warn('update refused: it does not make a valid message envelope', { ...at.ctx, problem });
    return { status: 400, body: { error: `update cannot be queued: ${problem}` } };
  }
  return envelope;
}

/**
 * The message's text when its file reached the store: the caption alone (the runtime says what
 * is attached), or for a sticker its emoji — what it says, which a model that cannot see the
 * sticker (or an animated one) would otherwise lose; else as before.
 */
function withMedia(media: InboundMedia, text: string, caption: string | undefined): string {
  if (media.kind === 'stored') return caption ?? media.words ?? '';
  if (media.kind === 'refused') return [media.note, caption].filter((t) => t !== undefined).join('\n');
  return text;
}

/** Records where the answer goes and queues the envelope; undefined once it is queued, else the 503 that has Telegram retry. */
export async function enqueue(
  envelope: MessageEnvelope,
  messageId: number,
  reaction: ReactionPlan | undefined,
  at: Gated,
  deps: TelegramWebhookDeps,
): Promise<HttpResult | undefined> {
  const { id, target, chat, now } = at;
  try {
    // Both recorded before queueing, so a fast reply always finds them. The origin is where
    // the answer to this message goes; the session's target is only its last direct route
    // (for heartbeats and cron jobs), which the next sender in a shared session overwrites.
    await deps.origins.put(
      newOrigin({
        id,
        agentId: target.agentId,
        sessionKey: target.sessionKey,
        target: chat,
        createdAt: now,
        messageId,
        ...(reaction?.kind === 'ack' ? { ack: reaction.emoji } : {}),
        ...(reaction?.kind === 'status' ? { statusReactions: true } : {}),
      }),
    );
    await deps.sessions.put({ sessionKey: target.sessionKey, agentId: target.agentId, target: chat, updatedAt: now });
    await deps.queues.send(envelope);
    // Remembered only after queueing: a crash in between means a retry queues again,
    // which SQS FIFO deduplication (same id) and the runtime's turn key absorb.
    await deps.dedupe.remember(id, now + DEDUPE_TTL_MS);
  } catch (err) {
    deps.log.error('update not queued; Telegram will retry', { ...at.ctx, envelopeId: id, agentId: target.agentId, ...errorFields(err) });
    return unavailable();
  }
  return undefined;
}
