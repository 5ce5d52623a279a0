// Builders for realistic Telegram Update objects, shaped field for field like the ones the
// Bot API sends (checked against grammY's Bot API types), for pushUpdate or a webhook body.
import type { Chat, MessageEntity, Update, User } from 'grammy/types';

export interface TextUpdateInput {
  updateId: number;
  chatId: number;
  fromId: number;
  text: string;
  chatType?: 'private' | 'group' | 'supergroup';
  username?: string;
  firstName?: string;
  /** Group title; defaults to one derived from the chat id. */
  title?: string;
  messageId?: number;
  /** Unix seconds; defaults to now. */
  date?: number;
  /** The chat is a forum (a supergroup with topics): `chat.is_forum`. */
  forum?: boolean;
  /** The message's thread: a forum topic's id when `topicMessage`, else the thread of a reply. */
  threadId?: number;
  /** `is_topic_message`: the message is in the forum topic `threadId`. */
  topicMessage?: boolean;
}

/** A user's text message; `/commands` get the `bot_command` entities Telegram adds. */
export function textUpdate(input: TextUpdateInput): Update {
  const firstName = input.firstName ?? 'Ada';
  const from: User = {
    id: input.fromId,
    is_bot: false,
    first_name: firstName,
    ...(input.username !== undefined && { username: input.username }),
    language_code: 'en',
  };
  const chatType = input.chatType ?? 'private';
  const chat: Chat.PrivateChat | Chat.GroupChat | Chat.SupergroupChat =
    chatType === 'private'
      ? { id: input.chatId, type: 'private', first_name: firstName, ...(input.username !== undefined && { username: input.username }) }
      : chatType === 'supergroup' && input.forum
        ? { id: input.chatId, type: 'supergroup', title: input.title ?? `Forum ${input.chatId}`, is_forum: true }
        : { id: input.chatId, type: chatType, title: input.title ?? `Group ${input.chatId}` };
  const entities = commandEntities(input.text);
  return {
    update_id: input.updateId,
    message: {
      message_id: input.messageId ?? input.updateId,
      ...(input.threadId !== undefined && { message_thread_id: input.threadId }),
      ...(input.topicMessage && { is_topic_message: true }),
      from,
      chat,
      date: input.date ?? Math.floor(Date.now() / 1000),
      text: input.text,
      ...(entities.length > 0 && { entities }),
    },
  };
}

/**
 * `bot_command` entities as Telegram marks them: `/name` or `/name@bot_username` at the start or
 * after whitespace. Offsets and lengths are UTF-16 code units, which is what JS string indices are.
 */
export function commandEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  for (const match of text.matchAll(/(?<=^|\s)\/[A-Za-z0-9_]{1,32}(?:@[A-Za-z0-9_]{3,32})?(?!\w)/g)) {
    entities.push({ type: 'bot_command', offset: match.index, length: match[0].length });
  }
  return entities;
}
