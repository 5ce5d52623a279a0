// A Telegram update whose message carries a file (photo, voice, document, …) instead of text,
// shaped as the Bot API sends one: a private message from the chat's own user, no text, no entities.
import type { Update } from 'grammy/types';
import { textUpdate } from './telegram-updates.ts';

/** Update `updateId` in private chat `chatId`, its message given `fields` (e.g. `{ voice: {...} }`, a caption). */
export function mediaUpdate(updateId: number, chatId: number, fields: Record<string, unknown>): Update {
  const update = textUpdate({ updateId, chatId, fromId: chatId, text: 'x' }) as unknown as { message: Record<string, unknown> };
  delete update.message.text;
  delete update.message.entities;
  Object.assign(update.message, fields);
  return update as unknown as Update;
}
