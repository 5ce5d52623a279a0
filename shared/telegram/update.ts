// The parts of a Telegram Update the control plane reads. Objects are not strict:
// Telegram adds fields over time, and an update we do not understand is skipped, not refused.
import * as z from 'zod';

const UserSchema = z.object({
  id: z.number().int(),
  is_bot: z.boolean(),
  first_name: z.string(),
  username: z.string().optional(),
});

const ChatSchema = z.object({
  id: z.number().int(),
  type: z.enum(['private', 'group', 'supergroup', 'channel']),
  title: z.string().optional(),
});

const EntitySchema = z.object({
  type: z.string(),
  offset: z.number().int().nonnegative(),
  length: z.number().int().nonnegative(),
  user: z.object({ id: z.number().int() }).optional(),
});

export const TelegramMessageSchema = z.object({
  message_id: z.number().int(),
  message_thread_id: z.number().int().optional(),
  is_topic_message: z.boolean().optional(),
  from: UserSchema.optional(),
  chat: ChatSchema,
  date: z.number().int(),
  text: z.string().optional(),
  caption: z.string().optional(),
  entities: z.array(EntitySchema).optional(),
  caption_entities: z.array(EntitySchema).optional(),
  reply_to_message: z.object({ from: z.object({ id: z.number().int() }).optional() }).optional(),
});

export const TelegramUpdateSchema = z.object({
  update_id: z.number().int().nonnegative(),
  message: TelegramMessageSchema.optional(),
});

export type TelegramUpdate = z.infer<typeof TelegramUpdateSchema>;
export type TelegramMessage = z.infer<typeof TelegramMessageSchema>;

/** The update's kind as Telegram names it (the one optional field it carries). */
export function updateKind(raw: Record<string, unknown>): string {
  return Object.keys(raw).find((k) => k !== 'update_id') ?? 'empty';
}
