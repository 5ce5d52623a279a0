// The parts of a Telegram Update the control plane reads. Objects are not strict:
// Telegram adds fields over time, and an update we do not understand is skipped, not refused.
import * as z from '../zod.ts';

const UserSchema = z.object({
  id: z.number().check(z.int()),
  is_bot: z.boolean(),
  first_name: z.string(),
  username: z.optional(z.string()),
});

const ChatSchema = z.object({
  id: z.number().check(z.int()),
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
  title: z.optional(z.string()),
  /** A supergroup with topics (a forum): a message in it outside any topic is in its General topic. */
  is_forum: z.optional(z.boolean()),
});

const EntitySchema = z.object({
  type: z.string(),
  offset: z.number().check(z.int(), z.nonnegative()),
  length: z.number().check(z.int(), z.nonnegative()),
  user: z.optional(z.object({ id: z.number().check(z.int()) })),
});

export const TelegramMessageSchema = z.object({
  message_id: z.number().check(z.int()),
  message_thread_id: z.optional(z.number().check(z.int())),
  is_topic_message: z.optional(z.boolean()),
  from: z.optional(UserSchema),
  chat: ChatSchema,
  date: z.number().check(z.int()),
  /** Set on an edited message: when it was edited. */
  edit_date: z.optional(z.number().check(z.int())),
  text: z.optional(z.string()),
  caption: z.optional(z.string()),
  entities: z.optional(z.array(EntitySchema)),
  caption_entities: z.optional(z.array(EntitySchema)),
  /** The message this one replies to: its author (a mention of the bot when it was the bot's) and what it said, quoted to the model. */
  reply_to_message: z.optional(
    z.object({
      from: z.optional(z.object({ id: z.number().check(z.int()), first_name: z.optional(z.string()), username: z.optional(z.string()) })),
      text: z.optional(z.string()),
      caption: z.optional(z.string()),
    }),
  ),
});

/** A press of an inline button under one of the bot's messages. */
export const CallbackQuerySchema = z.object({
  id: z.string(),
  from: UserSchema,
  message: z.optional(
    z.object({
      message_id: z.number().check(z.int()),
      message_thread_id: z.optional(z.number().check(z.int())),
      is_topic_message: z.optional(z.boolean()),
      chat: ChatSchema,
      date: z.number().check(z.int()),
    }),
  ),
  data: z.optional(z.string()),
});

/** A reaction as Telegram reports it: an emoji, a custom emoji, or a paid (star) one; a kind newer than this build is kept as unknown. */
const ReactionTypeSchema = z.object({ type: z.string(), emoji: z.optional(z.string()) });

/** A user's change of their reactions on one message (Bot API MessageReactionUpdated). Telegram names no thread: the message does. */
export const MessageReactionSchema = z.object({
  chat: ChatSchema,
  message_id: z.number().check(z.int()),
  /** Who reacted, unless anonymous. */
  user: z.optional(UserSchema),
  /** The chat an anonymous reaction was made on behalf of (a channel, an anonymous admin's group). */
  actor_chat: z.optional(ChatSchema),
  date: z.number().check(z.int()),
  old_reaction: z.array(ReactionTypeSchema),
  new_reaction: z.array(ReactionTypeSchema),
});

export const TelegramUpdateSchema = z.object({
  update_id: z.number().check(z.int(), z.nonnegative()),
  message: z.optional(TelegramMessageSchema),
  /** A user's edit of a message already sent; read only where the account passes edits on (`editedMessages: "note"`). */
  edited_message: z.optional(TelegramMessageSchema),
  callback_query: z.optional(CallbackQuerySchema),
  /** A user's reaction to a message, where the account lets reactions reach the agent (#31). */
  message_reaction: z.optional(MessageReactionSchema),
});

export type TelegramUpdate = z.infer<typeof TelegramUpdateSchema>;
export type TelegramMessage = z.infer<typeof TelegramMessageSchema>;
export type CallbackQuery = z.infer<typeof CallbackQuerySchema>;
export type MessageReaction = z.infer<typeof MessageReactionSchema>;

/** The update's kind as Telegram names it (the one optional field it carries). */
export function updateKind(raw: Record<string, unknown>): string {
  return Object.keys(raw).find((k) => k !== 'update_id') ?? 'empty';
}
