// A session transcript's lines, as the runtime writes them and the OpenClaw importer converts
// into them: a turn (its input, reply and the messages the model saw) or a compaction that
// stands in for the turns before it. Lines are parsed with these schemas, never cast.
import type { Message } from '@mariozechner/pi-ai';
import { z } from 'zod';

const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
const Image = z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() });
const Thinking = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const ToolCallSchema = z.looseObject({ type: z.literal('toolCall'), id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) });
const Usage = z.looseObject({
  input: z.number(),
  output: z.number(),
  cacheRead: z.number(),
  cacheWrite: z.number(),
  totalTokens: z.number(),
  cost: z.looseObject({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), total: z.number() }),
});
export const MessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(z.union([Text, Image]))]), timestamp: z.number() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.array(z.union([Text, Thinking, ToolCallSchema])),
    api: z.string(),
    provider: z.string(),
    model: z.string(),
    usage: Usage,
    stopReason: z.enum(['stop', 'length', 'toolUse', 'error', 'aborted']),
    errorMessage: z.string().optional(),
    timestamp: z.number(),
  }),
  z.looseObject({
    role: z.literal('toolResult'),
    toolCallId: z.string(),
    toolName: z.string(),
    content: z.array(z.union([Text, Image])),
    isError: z.boolean(),
    timestamp: z.number(),
  }),
]);

export const TurnRecordSchema = z.object({
  kind: z.literal('turn').optional(),
  inboundId: z.string(),
  ts: z.number(),
  /** What the user (or event) said, as the model saw it. */
  input: z.string(),
  /** What the agent answered; absent when it chose not to (NO_REPLY) or failed. */
  reply: z.string().optional(),
  /** Set when the turn failed for good and the user was told so. */
  failed: z.string().optional(),
  /** The turn's messages as the model saw them (input, tool calls and results, answer). */
  messages: z.array(MessageSchema).optional(),
  /** A /new or /reset: the session starts over after this line; the lines before it are kept in the file. */
  reset: z.boolean().optional(),
  /** A /model choice: this session's turns use this model ref first, until the next choice or /new. */
  model: z.string().optional(),
  /** A /think choice: the thinking level this session's turns ask for, until the next choice or /new. */
  think: z.enum(['off', 'minimal', 'low', 'medium', 'high']).optional(),
  /** Inline buttons the agent put under its reply (sent again with it on a redelivery). */
  buttons: z.array(z.array(z.object({ text: z.string(), data: z.string() }))).optional(),
  /** Block streaming: how many blocks of the reply went out while it was written, and the rest the final reply carries ("" for none). */
  blocks: z.object({ sent: z.number().int().positive(), rest: z.string() }).optional(),
  /** The reply spoken (#31): its voice message in the media store, sent again with it on a redelivery. */
  voice: z.object({ key: z.string(), size: z.number().int().positive(), durationSeconds: z.number().int().nonnegative().optional() }).optional(),
  /** A /voice choice: this session's replies spoken (on), not (off), or as the agent's tts.auto says (default), until the next choice or /new. */
  voiceSetting: z.enum(['on', 'off', 'default']).optional(),
  /** Not a turn (#31): a note (`input`, a user's reaction) that the session's next turn reads before its own input. */
  note: z.boolean().optional(),
});

export const CompactionRecordSchema = z.object({
  kind: z.literal('compaction'),
  ts: z.number(),
  /** Stands in for every turn before this line... */
  summary: z.string(),
  /** ...except those after this inbound id, which stay verbatim. */
  throughInboundId: z.string(),
});

export const EntrySchema = z.union([CompactionRecordSchema, TurnRecordSchema]);

// Messages are checked against the schema above (the shape pi-ai needs), then typed as
// pi-ai's own Message, which carries a few provider-specific fields the schema lets through.
export type TurnRecord = Omit<z.infer<typeof TurnRecordSchema>, 'messages'> & { messages?: Message[] | undefined };
export type CompactionRecord = z.infer<typeof CompactionRecordSchema>;
export type TranscriptEntry = TurnRecord | CompactionRecord;
