// Whether the sender's message goes on: a command for another bot is ignored; the chat and the
// sender are checked against the account's access rules; a stranger asking in private is sent a
// pairing code instead. What is admitted carries on with its command (if any) and the bot's
// identity, which later steps read (mentions, replies quoting the bot).
import { errorFields } from '../log.ts';
import type { ChannelTarget } from '../ports.ts';
import { mentionsBot, type BotIdentity } from '../telegram/mention.ts';
import type { CallbackQuery } from '../telegram/update.ts';
import { decideAccess, pairingText } from './access.ts';
import { nativeCommandsOn, parseCommand, type ParsedCommand } from './commands.ts';
import { unavailable, type HttpResult, type TelegramWebhookDeps, type UpdateContext } from './telegram-webhook-deps.ts';
import type { SaidMessage } from './telegram-webhook-message.ts';

/** A message the sender may send: its command (a plane or runtime one), and what the webhook learned of the bot. */
export interface Admitted {
  command: Exclude<ParsedCommand, { kind: 'other-bot' }> | undefined;
  bot: BotIdentity | undefined;
  /** In a group: the message addresses the bot (a mention, or a press of its button). */
  mentioned: boolean;
}

/** The message admitted, or the answer that ends it here (ignored, a pairing code sent, or a passing failure). */
export async function admitSender(
  said: SaidMessage,
  press: CallbackQuery | undefined,
  ctx: UpdateContext,
  deps: TelegramWebhookDeps,
): Promise<Admitted | HttpResult> {
  const { config, log } = deps;
  const { message, edit, forward, peer } = said;
  let access;
  let command;
  let bot: BotIdentity | undefined;
  let mentioned = false;
  try {
    // An edit is never a command: an edited "/new" must not start the session over a second time.
    // Nor is a forward: its words are someone else's.
    if (!edit && !forward && message.text?.startsWith('/') && nativeCommandsOn(config, ctx.accountId)) {
      // Who we are matters only for /cmd@somebot: a plain /cmd is for whichever bot reads it.
      bot = message.text.includes('@') || peer.kind === 'group' ? await deps.botIdentity(ctx.accountId) : undefined;
      command = parseCommand(message.text, bot?.username);
      if (command?.kind === 'other-bot') {
        log.info('update ignored', { ...ctx, reason: 'a command for another bot' });
        return { status: 200, body: { ok: true, ignored: 'a command for another bot' } };
      }
    }
    // A group needs it for mentions, a reply to tell the bot's own words from someone else's.
    if (!bot && (peer.kind === 'group' || message.reply_to_message)) bot = await deps.botIdentity(ctx.accountId);
    // A press of the bot's own button addresses the bot.
    mentioned = peer.kind === 'group' && (press !== undefined || (bot !== undefined && mentionsBot(message, bot)));
    access = await decideAccess(
      {
        accountId: ctx.accountId,
        chat: { kind: peer.kind, id: peer.id, topicId: peer.topicId },
        senderId: message.from ? String(message.from.id) : undefined,
        senderName: message.from?.username ?? message.from?.first_name,
        mentioned,
      },
      { config, pairings: deps.pairings, now: deps.clock.now(), newCode: deps.newPairingCode },
    );
  } catch (err) {
    log.error('access check failed; Telegram will retry', { ...ctx, ...errorFields(err) });
    return unavailable();
  }
  if (access.kind === 'ignore') {
    log.info('update ignored', { ...ctx, reason: access.reason, chatKind: peer.kind });
    return { status: 200, body: { ok: true, ignored: access.reason } };
  }
  if (access.kind === 'pair') {
    // Best effort: a lost code is re-sent on the sender's next message.
    const chat: ChannelTarget = { channel: 'telegram', accountId: ctx.accountId, chatId: peer.id };
    try {
      await (await deps.channel(chat)).sendText(chat, pairingText(access.code, access.fresh));
    } catch (err) {
      log.warn('pairing code not sent', { ...ctx, ...errorFields(err) });
    }
    log.info('pairing requested', { ...ctx, fresh: access.fresh });
    return { status: 200, body: { ok: true, pairing: 'pending' } };
  }
  return { command, bot, mentioned };
}
