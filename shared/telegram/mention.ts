// Whether a group message addresses the bot: an @mention of its username, a text
// mention of its user, a /command@bot, or a reply to one of its messages.
import type { TelegramMessage } from './update.ts';

export interface BotIdentity {
  id: number;
  username?: string | undefined;
}

/** A bot's user id is the part of its token before the colon. */
export function botIdFromToken(token: string): number {
  return Number(token.slice(0, token.indexOf(':')));
}

export function mentionsBot(message: TelegramMessage, bot: BotIdentity): boolean {
  if (message.reply_to_message?.from?.id === bot.id) return true;
  const text = message.text ?? message.caption ?? '';
  const handle = bot.username ? `@${bot.username.toLowerCase()}` : undefined;
  // Entity offsets count UTF-16 code units, as JavaScript string indices do.
  return [...(message.entities ?? []), ...(message.caption_entities ?? [])].some((e) => {
    const part = text.slice(e.offset, e.offset + e.length).toLowerCase();
    if (e.type === 'text_mention') return e.user?.id === bot.id;
    if (e.type === 'mention') return handle !== undefined && part === handle;
    if (e.type === 'bot_command') return handle !== undefined && part.endsWith(handle);
    return false;
  });
}
