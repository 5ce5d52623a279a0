// Admits one Telegram update (a message, a button press, or where configured an edit), in the
// steps below: authenticate and parse, read what it says, admit its sender, route it, answer a
// control-plane command, dedupe, check the budget, fetch its file, then record the message's
// origin (whom its answer reaches) and the session's last direct route, and queue it. It answers
// 200 only once the message is durably queued; any failure after authentication is a 5xx, so
// Telegram retries. What only some updates need (a reaction's rules, a command's answer, an
// attachment's fetch) is imported on their path, so a Lambda's cold start does not load it.
import { telegramInboundId } from '../protocol/ids.ts';
import { route } from '../routing/route.ts';
import type { ChannelTarget } from '../ports.ts';
import { replyQuoteOf } from '../telegram/others-words.ts';
import type { InboundMedia } from './inbound-media.ts';
import { reactionPlanFor, showQueued } from './status-reactions.ts';
import { streamRequestFor } from './streaming.ts';
import { admitSender } from './telegram-webhook-access.ts';
import { acknowledge, answerPress, tellSender, wakeForMessage } from './telegram-webhook-answers.ts';
import type { HttpResult, TelegramWebhookDeps, WebhookRequest } from './telegram-webhook-deps.ts';
import { enqueue, messageEnvelope } from './telegram-webhook-enqueue.ts';
import { answerCommand, fetchMedia, refuseDuplicate, refuseOverBudget, type Gated } from './telegram-webhook-gates.ts';
import { saidMessage } from './telegram-webhook-message.ts';
import { authenticatedUpdate } from './telegram-webhook-update.ts';

export type { HttpResult, TelegramWebhookDeps, WebhookRequest } from './telegram-webhook-deps.ts';
export { WAKING_NOTE } from './telegram-webhook-answers.ts';
export { editNoteText } from './telegram-webhook-message.ts';
export { MAX_UPDATE_BYTES } from './telegram-webhook-update.ts';

export async function handleTelegramWebhook(req: WebhookRequest, deps: TelegramWebhookDeps): Promise<HttpResult> {
  const read = await authenticatedUpdate(req, deps);
  if ('status' in read) return read;
  const { update, raw } = read;
  const ctx = { accountId: req.accountId, updateId: update.update_id };
  // A user's reaction (#31): a note for the agent, with rules of its own (reaction-updates.ts,
  // loaded for reactions only: in a Lambda bundle a chunk the other updates never load).
  if (update.message_reaction && !update.message && !update.callback_query)
    return (await import('./reaction-updates.ts')).admitReaction(update.message_reaction, ctx, deps);
  const press = update.callback_query;
  // A button press is answered at once, whatever becomes of it, so the button stops spinning.
  if (press) await answerPress(req.accountId, press, deps);

  const said = saidMessage(update, raw, press, ctx, deps);
  if ('status' in said) return said;
  const admitted = await admitSender(said, press, ctx, deps);
  if ('status' in admitted) return admitted;
  const { message, peer } = said;
  const { command, bot, mentioned } = admitted;

  const chat: ChannelTarget = { channel: 'telegram', accountId: req.accountId, chatId: peer.id, threadId: peer.topicId };
  const at: Gated = { id: telegramInboundId(req.accountId, update.update_id), target: route(deps.config, peer), chat, now: deps.clock.now(), ctx };
  if (command?.kind === 'plane') return answerCommand(command.name, said, at, deps);
  const duplicate = await refuseDuplicate(at, deps);
  if (duplicate) return duplicate;
  // Budgets (#31): over its cap, the agent is not given the message (a runtime command — /new,
  // /model, /think — asks no model and goes through); the sender is told why, once. In a group
  // the note answers the message it is about.
  if (command?.kind !== 'runtime') {
    const refused = await refuseOverBudget(at, peer.kind === 'group' ? message.message_id : undefined, deps);
    if (refused) return refused;
  }
  let media: InboundMedia = { kind: 'none' };
  if (deps.media && message.text === undefined && !said.edit) {
    const fetched = await fetchMedia((raw as { message?: unknown }).message, at, deps, deps.media);
    if ('status' in fetched) return fetched;
    media = fetched;
  }

  // Not on a press: the message it would sit on is the bot's own. The ack, or status reactions (#31) starting at queued.
  const reaction = press ? undefined : reactionPlanFor(deps.config, req.accountId, { kind: peer.kind, mentioned });
  const envelope = messageEnvelope(
    said,
    {
      media,
      command,
      press,
      quote: replyQuoteOf(said.rawMessage, bot?.id),
      stream: command ? undefined : streamRequestFor(deps.config, req.accountId, peer.kind),
      reaction,
    },
    at,
    deps,
  );
  if ('status' in envelope) return envelope;
  const failed = await enqueue(envelope, message.message_id, reaction, at, deps);
  if (failed) return failed;
  deps.log.info('update queued', {
    ...ctx,
    envelopeId: at.id,
    agentId: at.target.agentId,
    sessionKey: at.target.sessionKey,
    matchedBy: at.target.matchedBy,
    ...(media.kind !== 'none' ? { media: media.kind } : {}),
  });

  if (reaction?.kind === 'ack') await acknowledge(chat, message.message_id, reaction.emoji, deps);
  if (reaction?.kind === 'status') await showQueued(at.id, chat, message.message_id, reaction.emoji, deps);
  if (media.kind === 'refused') await tellSender(chat, media.toUser, deps);
  if (deps.lifecycle) await wakeForMessage(at.target.agentId, chat, deps, deps.lifecycle);
  return { status: 200, body: { ok: true, envelopeId: at.id } };
}
