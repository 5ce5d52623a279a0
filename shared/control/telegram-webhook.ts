// Admits one Telegram update (a message, a button press, or where configured an edit):
// authenticate, parse, dedupe, route, record the message's
// origin (whom its answer reaches) and the session's last direct route, and queue it. It answers 200 only once the message is
// durably queued; any failure after authentication is a 5xx, so Telegram retries.
import type { FleetConfig } from '../config/schema.ts';
import { errorFields, type Logger } from '../log.ts';
import { buttonPressText, MessageEnvelopeSchema, type MessageEnvelope, PROTOCOL_VERSION } from '../protocol/envelopes.ts';
import { telegramInboundId } from '../protocol/ids.ts';
import { route } from '../routing/route.ts';
import type {
  AgentQueues,
  AgentRegistry,
  ChannelSender,
  ChannelTarget,
  Clock,
  InboundDedupe,
  InboundOrigins,
  PairingStore,
  QueueDepths,
  SessionRegistry,
  SpendCounts,
} from '../ports.ts';
import { mediaNote } from '../telegram/media-note.ts';
import { forwardOf, replyQuoteOf, sharedOf } from '../telegram/others-words.ts';
import { mentionsBot, type BotIdentity } from '../telegram/mention.ts';
import { topicOf } from '../telegram/forum-topic.ts';
import { TelegramUpdateSchema, updateKind, type CallbackQuery, type TelegramMessage } from '../telegram/update.ts';
import { secretTokenMatches } from '../telegram/webhook-secret.ts';
import { decideAccess, pairingText } from './access.ts';
import { answerPlaneCommand, type PlaneCommandDeps } from './command-answers.ts';
import { nativeCommandsOn, parseCommand } from './commands.ts';
import { editedMessagesMode, streamRequestFor } from './streaming.ts';
import { reactionPlanFor, showQueued } from './status-reactions.ts';
import { admitReaction, type ReactionDeps } from './reaction-updates.ts';
import { storeInboundMedia, type InboundMedia, type InboundMediaDeps } from './inbound-media.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';
import { newOrigin } from './origins.ts';
import { budgetRefusal } from './budget-gate.ts';

/** Telegram updates are a few KB; anything this large is not one. */
export const MAX_UPDATE_BYTES = 1024 * 1024;
/** Telegram retries an unacknowledged update for up to 24 h; remember twice that. */
const DEDUPE_TTL_MS = 48 * 3600 * 1000;

export interface WebhookRequest {
  accountId: string;
  secretToken: string | undefined;
  body: string;
}

export interface HttpResult {
  status: number;
  body: Record<string, unknown>;
}

export interface TelegramWebhookDeps {
  config: FleetConfig;
  /** The webhook secret token for an account (derived from its bot token). */
  webhookSecret(accountId: string): Promise<string>;
  queues: AgentQueues;
  dedupe: InboundDedupe;
  sessions: SessionRegistry;
  /** Each queued message's origin: its answer goes to this sender's chat and no other. */
  origins: InboundOrigins;
  pairings: PairingStore;
  /** Who the bot of an account is, to tell whether a group message mentions it. */
  botIdentity(accountId: string): Promise<BotIdentity>;
  /** For answering a sender directly (pairing codes) without involving an agent. */
  channel(target: ChannelTarget): Promise<ChannelSender>;
  newPairingCode(): string;
  /** Wakes a hibernating agent; absent where agents never sleep. */
  lifecycle?: LifecycleDeps;
  /** What /status reads, built only when someone asks (the registry and the queue depth), so other updates pay nothing for it. */
  statusView?: PlaneCommandDeps['statusView'];
  /** Where attachments are kept for the agent (#16); absent where there is no media store, and attachments then arrive as a note. */
  media?: InboundMediaDeps;
  /** Budgets (#31): the spend count a metered agent's messages are checked against; read only for an agent with a budget. */
  spend?: () => SpendCounts;
  /** The bot's messages and the per-chat count, for the users' reactions (#31); absent, reactions reach no agent. */
  reactions?: ReactionDeps;
  clock: Clock;
  log: Logger;
}

export async function handleTelegramWebhook(req: WebhookRequest, deps: TelegramWebhookDeps): Promise<HttpResult> {
  const { config, log } = deps;
  const account = config.channels.telegram?.accounts[req.accountId];
  if (!account) return { status: 404, body: { error: `no telegram account "${req.accountId}"` } };

  if (Buffer.byteLength(req.body) > MAX_UPDATE_BYTES) {
    return { status: 413, body: { error: `update larger than ${MAX_UPDATE_BYTES} bytes` } };
  }
  let expected: string;
  try {
    expected = await deps.webhookSecret(req.accountId);
  } catch (err) {
    log.error('cannot read the webhook secret', { accountId: req.accountId, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
  if (!secretTokenMatches(expected, req.secretToken)) {
    log.warn('webhook secret token mismatch', { accountId: req.accountId });
    return { status: 401, body: { error: 'bad secret token' } };
  }

  let raw: unknown;
  try {
    raw = JSON.parse(req.body);
  } catch {
    return { status: 400, body: { error: 'body is not JSON' } };
  }
  const parsed = TelegramUpdateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { status: 400, body: { error: `not a Telegram update: ${issue.path.join('.') || '(root)'}: ${issue.message}` } };
  }
  const update = parsed.data;
  // A user's reaction (#31): a note for the agent, with rules of its own (reaction-updates.ts).
  if (update.message_reaction && !update.message && !update.callback_query)
    return admitReaction(update.message_reaction, { accountId: req.accountId, updateId: update.update_id }, deps);
  const press = update.callback_query;
  // A button press is answered at once, whatever becomes of it, so the button stops spinning.
  if (press) await answerPress(req.accountId, press, deps);
  const ctx = { accountId: req.accountId, updateId: update.update_id };
  // A user's edit of a message already sent: ignored unless the account passes edits on.
  const edit = update.message || press ? undefined : update.edited_message;
  if (edit && editedMessagesMode(config, req.accountId) !== 'note') {
    log.info('update skipped: an edited message, and editedMessages is "ignore"', ctx);
    return { status: 200, body: { ok: true, skipped: 'an edited message' } };
  }
  const message = update.message ?? (press ? pressAsMessage(press) : undefined) ?? edit;
  // Words its sender did not write travel apart from theirs, for the runtime to frame as someone
  // else's (protocol 5): a forward's text or caption, a poll, a contact, a place, …
  const fields = raw as { message?: Record<string, unknown>; edited_message?: Record<string, unknown> };
  const rawMessage = (update.message ? fields.message : edit ? fields.edited_message : undefined) ?? {};
  const forward = forwardOf(rawMessage);
  const shared = sharedOf(rawMessage);
  const own = forward ? {} : { text: message?.text, caption: message?.caption };
  // A photo, voice message or file arrives as a note saying so (with its caption), so the
  // agent can tell the user it cannot see it rather than the user hearing nothing; with a
  // media store the file itself is fetched below, and the note replaced. An edit carries its
  // new text or caption only: its file (if any) came with the message it edits.
  const note = message && message.text === undefined && !edit && !shared ? mediaNote(rawMessage) : undefined;
  const said = own.text ?? ([note, own.caption].filter((t) => t !== undefined).join('\n') || (forward || shared ? '' : undefined));
  const text = edit && said !== undefined ? editNoteText(edit.message_id, said) : said;
  if (!message || text === undefined) {
    log.info('update skipped: nothing for an agent in it', { ...ctx, kind: updateKind(raw as Record<string, unknown>) });
    return { status: 200, body: { ok: true, skipped: 'nothing for an agent in it' } };
  }

  const id = telegramInboundId(req.accountId, update.update_id);
  const peer = {
    channel: 'telegram' as const,
    accountId: req.accountId,
    kind: message.chat.type === 'private' ? ('direct' as const) : ('group' as const),
    id: String(message.chat.id),
    // A reply thread's id in a group is not a topic: only a topic message (or a forum's General) names one.
    topicId: topicOf(message),
  };
  const senderId = message.from ? String(message.from.id) : undefined;

  let access;
  let command;
  let bot: BotIdentity | undefined;
  let mentioned = false;
  try {
    // An edit is never a command: an edited "/new" must not start the session over a second time.
    // Nor is a forward: its words are someone else's.
    if (!edit && !forward && message.text?.startsWith('/') && nativeCommandsOn(config, req.accountId)) {
      // Who we are matters only for /cmd@somebot: a plain /cmd is for whichever bot reads it.
      bot = message.text.includes('@') || peer.kind === 'group' ? await deps.botIdentity(req.accountId) : undefined;
      command = parseCommand(message.text, bot?.username);
      if (command?.kind === 'other-bot') {
        log.info('update ignored', { ...ctx, reason: 'a command for another bot' });
        return { status: 200, body: { ok: true, ignored: 'a command for another bot' } };
      }
    }
    // A group needs it for mentions, a reply to tell the bot's own words from someone else's.
    if (!bot && (peer.kind === 'group' || message.reply_to_message)) bot = await deps.botIdentity(req.accountId);
    // A press of the bot's own button addresses the bot.
    mentioned = peer.kind === 'group' && (press !== undefined || (bot !== undefined && mentionsBot(message, bot)));
    access = await decideAccess(
      {
        accountId: req.accountId,
        chat: { kind: peer.kind, id: peer.id, topicId: peer.topicId },
        senderId,
        senderName: message.from?.username ?? message.from?.first_name,
        mentioned,
      },
      { config, pairings: deps.pairings, now: deps.clock.now(), newCode: deps.newPairingCode },
    );
  } catch (err) {
    log.error('access check failed; Telegram will retry', { ...ctx, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
  if (access.kind === 'ignore') {
    log.info('update ignored', { ...ctx, reason: access.reason, chatKind: peer.kind });
    return { status: 200, body: { ok: true, ignored: access.reason } };
  }
  if (access.kind === 'pair') {
    // Best effort: a lost code is re-sent on the sender's next message.
    try {
      await (await deps.channel({ channel: 'telegram', accountId: req.accountId, chatId: peer.id })).sendText(
        { channel: 'telegram', accountId: req.accountId, chatId: peer.id },
        pairingText(access.code, access.fresh),
      );
    } catch (err) {
      log.warn('pairing code not sent', { ...ctx, ...errorFields(err) });
    }
    log.info('pairing requested', { ...ctx, fresh: access.fresh });
    return { status: 200, body: { ok: true, pairing: 'pending' } };
  }

  const target = route(config, peer);
  const now = deps.clock.now();
  const chat: ChannelTarget = { channel: 'telegram', accountId: req.accountId, chatId: peer.id, threadId: peer.topicId };
  if (command?.kind === 'plane') {
    const cmdCtx = { ...ctx, envelopeId: id, agentId: target.agentId, command: command.name };
    try {
      const outcome = await answerPlaneCommand(
        {
          name: command.name,
          id,
          agentId: target.agentId,
          sessionKey: target.sessionKey,
          chat,
          chatKind: peer.kind,
          senderId,
          senderName: message.from?.username ?? message.from?.first_name,
          dedupeTtlMs: DEDUPE_TTL_MS,
        },
        deps,
      );
      log.info(outcome === 'duplicate' ? 'duplicate update ignored' : 'command answered by the control plane', cmdCtx);
      return { status: 200, body: { ok: true, command: command.name, ...(outcome === 'duplicate' ? { duplicate: true } : {}) } };
    } catch (err) {
      log.error('command not answered; Telegram will retry', { ...cmdCtx, ...errorFields(err) });
      return { status: 503, body: { error: 'temporarily unavailable' } };
    }
  }
  // Asked once, before the file is fetched: a retried update neither fetches its file again nor is queued twice.
  try {
    if (await deps.dedupe.seen(id)) {
      log.info('duplicate update ignored', { ...ctx, envelopeId: id });
      return { status: 200, body: { ok: true, duplicate: true } };
    }
  } catch (err) {
    log.error('dedupe not checked; Telegram will retry', { ...ctx, envelopeId: id, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
  // Budgets (#31): over its cap, the agent is not given the message (a runtime command — /new,
  // /model, /think — asks no model and goes through); the sender is told why, once.
  if (command?.kind !== 'runtime') {
    // In a group the note answers the message it is about.
    const replyTo = peer.kind === 'group' ? message.message_id : undefined;
    const refused = await refuseOverBudget({ id, agentId: target.agentId, chat, replyTo, now, ctx }, deps);
    if (refused) return refused;
  }
  let media: InboundMedia = { kind: 'none' };
  if (deps.media && message.text === undefined && !edit) {
    const fetched = await fetchMedia(
      (raw as { message?: unknown }).message,
      { accountId: req.accountId, agentId: target.agentId, envelopeId: id },
      deps,
      deps.media,
    );
    if ('status' in fetched) return fetched;
    media = fetched;
  }
  const quote = replyQuoteOf(rawMessage, bot?.id);
  // Not on a press: the message it would sit on is the bot's own. The ack, or status reactions (#31) starting at queued.
  const reaction = press ? undefined : reactionPlanFor(config, req.accountId, { kind: peer.kind, mentioned });
  const stream = command ? undefined : streamRequestFor(config, req.accountId, peer.kind);
  const envelope: MessageEnvelope = {
    v: PROTOCOL_VERSION,
    kind: 'message',
    id,
    agentId: target.agentId,
    sessionKey: target.sessionKey,
    // From the update, not the clock: a retried update must make a byte-identical envelope.
    ts: (edit?.edit_date ?? message.date) * 1000,
    text: withMedia(media, text, own.caption),
    ...(media.kind === 'stored' ? { media: [media.ref] } : {}),
    from: {
      channel: 'telegram',
      accountId: req.accountId,
      ...(message.from ? { peerId: senderId, displayName: message.from.username ?? message.from.first_name } : {}),
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
    log.warn('update refused: it does not make a valid message envelope', { ...ctx, problem });
    return { status: 400, body: { error: `update cannot be queued: ${problem}` } };
  }

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
        messageId: message.message_id,
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
    log.error('update not queued; Telegram will retry', { ...ctx, envelopeId: id, agentId: target.agentId, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
  log.info('update queued', {
    ...ctx,
    envelopeId: id,
    agentId: target.agentId,
    sessionKey: target.sessionKey,
    matchedBy: target.matchedBy,
    ...(media.kind !== 'none' ? { media: media.kind } : {}),
  });
  if (reaction?.kind === 'ack') await acknowledge(chat, message.message_id, reaction.emoji, deps);
  if (reaction?.kind === 'status') await showQueued(id, chat, message.message_id, reaction.emoji, deps);
  if (media.kind === 'refused') await tellSender(chat, media.toUser, deps);
  if (deps.lifecycle)
    await wakeForMessage(target.agentId, { channel: 'telegram', accountId: req.accountId, chatId: peer.id, threadId: peer.topicId }, deps, deps.lifecycle);
  return { status: 200, body: { ok: true, envelopeId: id } };
}

/**
 * An agent whose budget is spent answers nothing: the sender is told its cap, when it resets and
 * how it is raised, and the update is remembered as admitted, so Telegram's retry of it is not
 * told twice. Undefined when the agent may take the message.
 */
async function refuseOverBudget(
  at: { id: string; agentId: string; chat: ChannelTarget; replyTo: number | undefined; now: number; ctx: Record<string, unknown> },
  deps: TelegramWebhookDeps,
): Promise<HttpResult | undefined> {
  const log = { ...at.ctx, envelopeId: at.id, agentId: at.agentId };
  try {
    const refusal = await budgetRefusal(deps.config, at.agentId, deps.spend, at.now);
    if (!refusal) return undefined;
    await (await deps.channel(at.chat)).sendText(at.chat, refusal.text, at.replyTo !== undefined ? { replyToMessageId: at.replyTo } : {});
    await deps.dedupe.remember(at.id, at.now + DEDUPE_TTL_MS);
    deps.log.info('message not queued: the agent is over its budget', {
      ...log,
      period: refusal.reached.period,
      spentMicros: refusal.reached.spentMicros,
      capMicros: refusal.reached.capMicros,
    });
    return { status: 200, body: { ok: true, overBudget: refusal.reached.period } };
  } catch (err) {
    deps.log.error('budget not checked, or its note not sent; Telegram will retry', { ...log, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
}

// ── media (#16) ──────────────────────────────────────────────────────────────────
/** The message's file, kept for the agent; a passing failure answers 503 so Telegram retries the update. */
async function fetchMedia(
  message: unknown,
  where: { accountId: string; agentId: string; envelopeId: string },
  deps: TelegramWebhookDeps,
  media: InboundMediaDeps,
): Promise<InboundMedia | HttpResult> {
  const ctx = { accountId: where.accountId, envelopeId: where.envelopeId, agentId: where.agentId };
  try {
    return await storeInboundMedia(message, where, media);
  } catch (err) {
    deps.log.error('attachment not fetched; Telegram will retry', { ...ctx, ...errorFields(err) });
    return { status: 503, body: { error: 'temporarily unavailable' } };
  }
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

/** Best effort: the file is lost either way, and the agent's note says so too. */
async function tellSender(chat: ChannelTarget, text: string, deps: TelegramWebhookDeps): Promise<void> {
  try {
    await (await deps.channel(chat)).sendText(chat, text);
  } catch (err) {
    deps.log.warn('note about an attachment not sent', errorFields(err));
  }
}

/**
 * The message is queued, so nothing here may fail the request: if waking fails, the next
 * health tick wakes the agent because its queue is not empty.
 */
async function wakeForMessage(agentId: string, chat: ChannelTarget, deps: TelegramWebhookDeps, lifecycle: LifecycleDeps): Promise<void> {
  try {
    await lifecycle.registry.recordActivity(agentId, deps.clock.now());
    if (!(await wakeIfAsleep(agentId, lifecycle, 'message'))) return;
    // A cold start takes tens of seconds: show that something is happening.
    const channel = await deps.channel(chat);
    await channel.sendTyping(chat);
    await channel.sendText(chat, WAKING_NOTE);
  } catch (err) {
    deps.log.warn('agent not woken now; the health tick will', { agentId, ...errorFields(err) });
  }
}

/** The press as the message the agent gets: the button's data, from the chat the button is in (nothing for an agent without either). */
function pressAsMessage(press: CallbackQuery): TelegramMessage | undefined {
  const on = press.message;
  if (!on || press.data === undefined) return undefined;
  return {
    message_id: on.message_id,
    ...(on.message_thread_id !== undefined ? { message_thread_id: on.message_thread_id } : {}),
    ...(on.is_topic_message !== undefined ? { is_topic_message: on.is_topic_message } : {}),
    from: press.from,
    chat: on.chat,
    date: on.date,
    text: buttonPressText(press.data),
  };
}

async function answerPress(accountId: string, press: CallbackQuery, deps: TelegramWebhookDeps): Promise<void> {
  const chatId = String(press.message?.chat.id ?? press.from.id);
  try {
    await (await deps.channel({ channel: 'telegram', accountId, chatId })).answerButtonPress?.(press.id);
  } catch (err) {
    deps.log.warn('button press not answered', { accountId, ...errorFields(err) });
  }
}

/** Best effort, once the message is queued: the user sees it was taken; the outbox removes it with the reply. */
async function acknowledge(chat: ChannelTarget, messageId: number, emoji: string, deps: TelegramWebhookDeps): Promise<void> {
  try {
    await (await deps.channel(chat)).react?.(chat, messageId, emoji);
  } catch (err) {
    deps.log.warn('ack reaction not set', { chatId: chat.chatId, ...errorFields(err) });
  }
}

/** What the agent is told of an edit (`editedMessages: "note"`): which message, and what it says now. */
export const editNoteText = (messageId: number, text: string) => `[edited message ${messageId}] ${text}`;

export const WAKING_NOTE = '⏳ Waking up — the first answer after a nap takes a little longer.';
