// Which forum topic a message is in, read as Telegram means its fields: `message_thread_id` names
// a topic only on a topic message (`is_topic_message`); elsewhere it is the thread of a reply,
// which anyone can start by replying, so it never selects a topic (nor its agent, nor its rules).
// A forum's General topic carries no thread id: OpenClaw calls it topic 1, and so do we.
import { GENERAL_TOPIC_ID } from '../config/telegram-groups.ts';

interface TopicFields {
  chat: { type: string; is_forum?: boolean | undefined };
  is_topic_message?: boolean | undefined;
  message_thread_id?: number | undefined;
}

/** The message's forum topic (1 for General), or undefined outside a forum topic. */
export function topicOf(message: TopicFields): number | undefined {
  if (message.is_topic_message && message.message_thread_id !== undefined) return message.message_thread_id;
  // A group's message outside any topic: in a forum that is the General topic.
  return message.chat.type !== 'private' && message.chat.is_forum === true ? GENERAL_TOPIC_ID : undefined;
}
