// The protocol between the control plane and a runtime: versioned envelopes, one zod
// schema each, shared by both sides. Anything that does not parse is rejected with its
// reason (into a DLQ), never guessed at.
import * as z from '../zod.ts';
import { EnvelopeError } from '../errors.ts';
import { formatPath } from '../errors.ts';
import { FileNameSchema, MediaKeySchema, MediaRefSchema, OUTBOUND_FILE_KINDS, VOICE_REPLY_MAX_BYTES } from '../media/media-ref.ts';
import { SessionStatsSchema } from './session-stats.ts';

/**
 * The version this build writes. 2: drafts, commands, buttons, quotes, media. 3: block
 * streaming (`block` envelopes, a reply's `afterBlocks`, an ended status's `replied`).
 * 4: a status's `session` (the session's length, context use and model, for /status).
 * 5: other people's words in a message (`forward`, `shared`, and a quote's `part`, `chat`,
 * `origin`, `shared`, `what`), which the runtime frames as theirs.
 * 6: spoken replies (a reply's `voice`, the /voice command) and progress streaming (stream
 * mode `progress`, a draft's `progress`).
 * 7: `usage` envelopes (each model call's token counts, which a budget is counted from).
 * 8: status reactions and the user's reactions (#31): a message's `reportTools` and `reaction`, a
 * status's turn `tool` and its `tool`, a reply's `failed`.
 */
export const PROTOCOL_VERSION = 8 as const;
/**
 * The oldest version this build still reads. Versions 3 to 8 only added (a kind, optional
 * fields, enum values), so a version 2 envelope is a valid one: a message queued for a sleeping agent before an
 * upgrade, or a reply from a task still draining during a rolling deploy, is taken, not
 * dead-lettered. A version that removes or changes a field moves this up with it.
 */
export const MIN_PROTOCOL_VERSION = 2 as const;
/** Every version this build reads, MIN_PROTOCOL_VERSION…PROTOCOL_VERSION. */
const READABLE_VERSIONS = [MIN_PROTOCOL_VERSION, 3, 4, 5, 6, 7, PROTOCOL_VERSION] as const;

/** A heartbeat carries at most this many warnings, each at most this long (runtimes cut theirs to fit). */
export const HEARTBEAT_WARNINGS_MAX = 16;
export const HEARTBEAT_WARNING_MAX = 500;
/** How the heartbeat warning of a runtime that waits for its secret's values begins (the local operator alarms look for it). */
export const WAITING_FOR_SECRET = 'waiting for secret';

/**
 * Envelope ids double as SQS deduplication ids and DynamoDB keys: at most 128 chars of
 * the characters SQS allows in a MessageDeduplicationId.
 */
export const EnvelopeIdSchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/, 'must be 1–128 printable ASCII characters'));
const AgentIdSchema = z.string().check(z.regex(/^[a-z][a-z0-9-]{0,23}$/));
export const SessionKeySchema = z.string().check(z.minLength(1), z.maxLength(512));

const base = {
  v: z.literal(READABLE_VERSIONS),
  id: EnvelopeIdSchema,
  agentId: AgentIdSchema,
  /** Epoch milliseconds when the envelope was made. */
  ts: z.number().check(z.int(), z.nonnegative()),
};

/** Where a message came from; the control plane keeps the reply target itself. */
const SenderSchema = z.strictObject({
  channel: z.enum(['telegram', 'hook', 'local']),
  accountId: z.optional(z.string()),
  peerId: z.optional(z.string()),
  displayName: z.optional(z.string().check(z.maxLength(256))),
});

// ── Conversation (protocol 2): streamed answers, native commands, quoted context ─
/** Block streaming's bounds where none are configured: OpenClaw's block chunk defaults (docs/concepts/streaming.md). */
export const DEFAULT_BLOCK_CHUNK = { minChars: 200, maxChars: 800 } as const;
/** How the answer to a message is streamed while the model writes; absent: sent whole at the end. */
export const StreamRequestSchema = z.strictObject({
  /**
   * partial: the answer so far, as drafts; block: each completed block (paragraph, closed code
   * block) as a message of its own; progress: a status of the work (tool calls) as drafts,
   * the answer sent whole at the end (protocol 5).
   */
  mode: z.enum(['partial', 'block', 'progress']),
  /** The control plane's pace for this chat (about 1 s in private chats, slower in groups); the runtime sends no faster. Drafts only. */
  minIntervalMs: z.number().check(z.int(), z.gte(250), z.lte(60_000)),
  /** Block mode: a block is sent once it has at least minChars; past maxChars it is cut at a line break (never inside a code fence or list item). */
  block: z.optional(
    z.strictObject({
      minChars: z.number().check(z.int(), z.gte(1), z.lte(4_000)),
      maxChars: z.number().check(z.int(), z.gte(1), z.lte(4_000)),
    }),
  ),
});

/** Native commands the runtime answers itself (docs/configuration.md, "Commands"); the control plane answers the rest. */
export const RUNTIME_COMMANDS = ['new', 'reset', 'model', 'think', 'voice'] as const;
export const RuntimeCommandSchema = z.strictObject({
  name: z.enum(RUNTIME_COMMANDS),
  /** What followed the command (`/new be brief` → "be brief"). */
  args: z.string().check(z.maxLength(4_096)),
});

// ── Other people's words (protocol 5): the runtime frames each as theirs, never the sender's ─
/** Who wrote words the sender passes on: Telegram's MessageOrigin (or the legacy forward_* fields). */
export const OriginSchema = z.strictObject({
  /**
   * user: a person; hidden_user: a person whose account is hidden (a name only); chat: a group,
   * on its own behalf; channel: a channel's post; unknown: forwarded, but Telegram names no one
   * we can read (an origin of a type newer than this build).
   */
  kind: z.enum(['user', 'hidden_user', 'chat', 'channel', 'unknown']),
  /** Their name as Telegram gives it: a person's name and @username, a chat's title. */
  name: z.string().check(z.maxLength(256)),
  /** The post's author signature (a channel's, or an anonymous group admin's). */
  signature: z.optional(z.string().check(z.maxLength(256))),
  /** When it was first sent, epoch milliseconds. */
  sentAt: z.optional(z.number().check(z.int(), z.nonnegative())),
});

/** Kinds of content a message carries in words that are not its sender's own (shared/telegram/others-words.ts). */
export const SHARED_KINDS = ['poll', 'contact', 'venue', 'story', 'game', 'giveaway', 'checklist', 'invoice'] as const;
/** Content in words that its sender did not write: a poll, a contact card, a place, …, its words one item a line. */
export const SharedSchema = z.strictObject({
  kind: z.enum(SHARED_KINDS),
  text: z.string().check(z.maxLength(20_000)),
  /** Who posted it, where Telegram names them (a story's chat). */
  from: z.optional(z.string().check(z.maxLength(256))),
});

/** A forwarded message: its words (its text or caption; empty for none) are its origin's. */
export const ForwardSchema = z.strictObject({
  from: OriginSchema,
  text: z.string().check(z.maxLength(100_000)),
});

/** The message this one replies to, as the user saw it. */
export const QuoteSchema = z.strictObject({
  text: z.string().check(z.maxLength(4_096)),
  /** Who wrote it: a display name, or "you" when it was the agent's own message. */
  author: z.optional(z.string().check(z.maxLength(256))),
  /** Set by the control plane when the quoted message is the bot's own: the only mark of that (a person may be named "you"). */
  fromAgent: z.optional(z.literal(true)),
  /** Protocol 5: `text` is the part of it the user selected (Telegram's TextQuote), not all of it. */
  part: z.optional(z.literal(true)),
  /** Protocol 5: it is in another chat (Telegram's external_reply), named so. */
  chat: z.optional(z.string().check(z.maxLength(256))),
  /** Protocol 5: who wrote it, where Telegram says (an external reply's origin). */
  origin: z.optional(OriginSchema),
  /** Protocol 5: its content in words (a poll, a contact, a story, …). */
  shared: z.optional(SharedSchema),
  /** Protocol 5: what it carries besides words ("a photo (1280×720)"). */
  what: z.optional(z.string().check(z.maxLength(400))),
});

/** Inline buttons under a reply: rows of {text, data}; a press comes back as a message with `callback`. */
export const ButtonsSchema = z
  .array(
    z
      .array(
        z.strictObject({
          text: z.string().check(z.minLength(1), z.maxLength(64)),
          /** Telegram's callback_data: 1–64 bytes. */
          data: z.string().check(
            z.minLength(1),
            z.refine((d) => Buffer.byteLength(d) <= 64, 'at most 64 bytes'),
          ),
        }),
      )
      .check(z.minLength(1), z.maxLength(8)),
  )
  .check(z.minLength(1), z.maxLength(10));

/** A press of one of the agent's inline buttons (a Telegram callback_query), with the button's data. */
export const CallbackSchema = z.strictObject({ data: z.string().check(z.maxLength(64)) });
/** The message text a press becomes, the same from Telegram and from the dashboard's chat box. */
export const buttonPressText = (data: string) => `[Button pressed] ${data}`;

// ── The users' reactions (protocol 7, #31): a note for the agent's next turn, never a turn of its own ─
/** A user's reaction to a message: the emoji they added to it, framed by the runtime as theirs. */
export const ReactionSchema = z.strictObject({
  /** The emoji added, Telegram's own (one line each, no brackets or quotes that could pass for a frame). */
  emoji: z.array(z.string().check(z.minLength(1), z.maxLength(16), z.regex(/^[^\s[\]"<>]+$/))).check(z.maxLength(16)),
  /** Custom emoji added (Telegram Premium's), which have no text to show. */
  custom: z.optional(z.number().check(z.int(), z.positive(), z.lte(16))),
  /** The message reacted to, as its chat numbers it. */
  messageId: z.number().check(z.int()),
  /** It is this agent's own message (the bot sent it as this agent's answer): the control plane's mark, never the reactor's. */
  toAgent: z.boolean(),
  /** Who reacted, as Telegram names them: a person, or the chat an anonymous reaction was made for. */
  by: z.optional(z.strictObject({ kind: z.enum(['user', 'chat']), name: z.string().check(z.maxLength(256)) })),
});

const conversationFields = {
  stream: z.optional(StreamRequestSchema),
  command: z.optional(RuntimeCommandSchema),
  quote: z.optional(QuoteSchema),
  callback: z.optional(CallbackSchema),
  /** Protocol 5: the message is forwarded; `text` then holds only what the control plane says of it (a note on its file). */
  forward: z.optional(ForwardSchema),
  /** Protocol 5: content in words the sender did not write (forwarded or not). */
  shared: z.optional(SharedSchema),
  /** Protocol 7: the chat shows tool use (status reactions, #31): send a `tool` status when the turn first calls a tool. */
  reportTools: z.optional(z.literal(true)),
  /** Protocol 7: not a message but a user's reaction (#31); `text` is empty. The runtime notes it for the session's next turn and answers nothing. */
  reaction: z.optional(ReactionSchema),
};

// ── To a runtime (its agent queue) ──────────────────────────────────────────────
export const MessageEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('message'),
  sessionKey: SessionKeySchema,
  text: z.string().check(z.maxLength(100_000)),
  from: SenderSchema,
  ...conversationFields,
  // ── media (#16): attachments kept in the media store under the agent's own in/ prefix; never bytes, never a token.
  media: z.optional(z.array(MediaRefSchema).check(z.minLength(1), z.maxLength(10))),
});

export const CronEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('cron'),
  sessionKey: SessionKeySchema,
  jobId: z.string().check(z.minLength(1)),
  /** main: a turn in the agent's main session, with its history; isolated: a fresh session each run. Default main. */
  sessionTarget: z.optional(z.enum(['main', 'isolated'])),
  payload: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('systemEvent'), text: z.string() }),
    z.strictObject({ kind: z.literal('agentTurn'), message: z.string() }),
  ]),
});

const SystemEventEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('system_event'),
  sessionKey: SessionKeySchema,
  text: z.string().check(z.maxLength(100_000)),
});

const AgentMessageEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('agent_message'),
  sessionKey: SessionKeySchema,
  fromAgentId: AgentIdSchema,
  replyTo: z.strictObject({ sessionKey: SessionKeySchema }),
  text: z.string().check(z.maxLength(100_000)),
  hops: z.number().check(z.int(), z.gte(1)),
  /** Set when this relays an answer (an agent_send with inReplyTo): the runtime then reports to its own session instead of answering back. */
  inReplyTo: z.optional(EnvelopeIdSchema),
});

const ControlEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('control'),
  /** cancel: stop the turn running in `cancelSession` (a /stop). */
  action: z.enum(['drain', 'reload', 'cancel']),
  /**
   * The session whose turn a cancel stops. Not `sessionKey`: that would queue it in the
   * session's FIFO group, behind the very turn it cancels; control envelopes go in the
   * agent's control group. The envelope's id is the /stop message's, which it may answer.
   */
  cancelSession: z.optional(SessionKeySchema),
});

const InboundEnvelopeSchema = z.discriminatedUnion('kind', [
  MessageEnvelopeSchema,
  CronEnvelopeSchema,
  SystemEventEnvelopeSchema,
  AgentMessageEnvelopeSchema,
  ControlEnvelopeSchema,
]);

// ── From a runtime (its outbox) ─────────────────────────────────────────────────
const ReplyEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('reply'),
  sessionKey: SessionKeySchema,
  /** The inbound envelope this answers; the reply id derives from it. */
  inReplyTo: EnvelopeIdSchema,
  text: z.string().check(z.minLength(1), z.maxLength(200_000)),
  /** Inline buttons under the reply (its last part), protocol 2. */
  buttons: z.optional(ButtonsSchema),
  /** Block streaming: how many blocks of this answer went out before it (the reply then carries only the rest). */
  afterBlocks: z.optional(z.number().check(z.int(), z.positive())),
  /** Protocol 7: the text says the turn failed (the status reaction shows error, not done). */
  failed: z.optional(z.literal(true)),
  /** The reply spoken (protocol 5): an Ogg Opus file under the sender's own out/ prefix, sent as a voice message with the text. */
  voice: z.optional(
    z.strictObject({
      key: MediaKeySchema,
      size: z.number().check(z.int(), z.positive(), z.lte(VOICE_REPLY_MAX_BYTES)),
      durationSeconds: z.optional(z.number().check(z.int(), z.nonnegative(), z.lte(86_400))),
    }),
  ),
});

/**
 * A completed block of the answer (a paragraph, a closed code block) sent while the model is
 * still writing (block streaming). A real message, exactly-once like a reply: its id is
 * derived from the inbound, the turn's attempt and its index, and the outbox claims each part.
 */
const BlockEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('block'),
  sessionKey: SessionKeySchema,
  /** The inbound whose answer this is part of: checked like a reply's. */
  inReplyTo: EnvelopeIdSchema,
  /** 1, 2, … within the turn's attempt. */
  index: z.number().check(z.int(), z.positive()),
  text: z.string().check(z.minLength(1), z.maxLength(200_000)),
});

/**
 * The answer so far, while the model writes (protocol 2). Best effort: delivered at most
 * once, never retried, and never in place of the final reply, which stays exactly-once.
 */
export const DraftEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('draft'),
  sessionKey: SessionKeySchema,
  /** The inbound whose answer this previews: checked like a reply's. */
  inReplyTo: EnvelopeIdSchema,
  /** Counts up within a turn's attempt; the control plane shows the latest. */
  seq: z.number().check(z.int(), z.positive()),
  text: z.string().check(z.minLength(1), z.maxLength(200_000)),
  /** Progress streaming (protocol 5): a status of the work, not the answer; a group's status message is removed once the answer is out. */
  progress: z.optional(z.literal(true)),
});

const TypingEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('typing'),
  sessionKey: SessionKeySchema,
  /** The inbound whose turn is under way: "typing…" is shown to that inbound's origin only. */
  inboundId: EnvelopeIdSchema,
});

const StatusEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('status'),
  sessionKey: z.optional(SessionKeySchema),
  /** tool (protocol 7): the turn called its first tool, sent only where the message asked (`reportTools`). */
  turn: z.enum(['started', 'tool', 'ended', 'failed']),
  inboundId: EnvelopeIdSchema,
  /** On tool (protocol 7): the tool's name, for the log. */
  tool: z.optional(z.string().check(z.maxLength(128))),
  /** On ended: false when the turn sent no reply (NO_REPLY, or an answer said whole in blocks), so the control plane clears the ack itself. */
  replied: z.optional(z.boolean()),
  error: z.optional(z.string().check(z.maxLength(2_000))),
  /** On ended/failed, protocol 4: the session's length, context use and model after the turn (/status shows them). */
  session: z.optional(SessionStatsSchema),
  /** On ended/failed: where the turn's time went (the dashboard shows it per turn). */
  timing: z.optional(
    z.strictObject({
      /** From the inbound envelope's ts to the turn's start. */
      queueWaitMs: z.optional(z.number().check(z.int(), z.nonnegative())),
      modelMs: z.optional(z.number().check(z.int(), z.nonnegative())),
      toolMs: z.optional(z.number().check(z.int(), z.nonnegative())),
    }),
  ),
});

const HeartbeatEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('heartbeat'),
  version: z.string(),
  inFlight: z.number().check(z.int(), z.nonnegative()),
  /** Each MCP server's state now, so the dashboard can show it. */
  mcp: z.optional(
    z.record(
      z.string().check(z.maxLength(64)),
      z.strictObject({
        state: z.enum(['starting', 'ready', 'down', 'stopped']),
        tools: z.number().check(z.int(), z.nonnegative()),
        error: z.optional(z.string().check(z.maxLength(500))),
      }),
    ),
  ),
  /** Announced on start: what this runtime offers (tool names, MCP servers). */
  capabilities: z.optional(z.array(z.string().check(z.maxLength(128))).check(z.maxLength(512))),
  /** What the operator must know about this runtime now (exec off for want of a sandbox, exec unsandboxed); empty when all is well. */
  warnings: z.optional(z.array(z.string().check(z.maxLength(HEARTBEAT_WARNING_MAX))).check(z.maxLength(HEARTBEAT_WARNINGS_MAX))),
});

const AgentSendEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('agent_send'),
  sessionKey: SessionKeySchema,
  toAgentId: AgentIdSchema,
  text: z.string().check(z.minLength(1), z.maxLength(100_000)),
  /**
   * The inbound envelope of the turn that sends this: the control plane checks it was this
   * agent's, in this session, and carries its conversation on (hop count, whom the answer
   * is for), so maxHops bounds the whole conversation rather than each request.
   */
  inboundId: EnvelopeIdSchema,
  /** The agent_message this answers (then equal to inboundId); the relayed agent_message carries it on, so the exchange stops after the answer. */
  inReplyTo: z.optional(EnvelopeIdSchema),
});

export const CronUpsertEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('cron_upsert'),
  jobId: z.string().check(z.minLength(1), z.maxLength(64)),
  schedule: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('at'), at: z.iso.datetime({ offset: true }) }),
    z.strictObject({ kind: z.literal('every'), everyMs: z.number().check(z.int(), z.positive()) }),
    z.strictObject({ kind: z.literal('cron'), expr: z.string(), tz: z.optional(z.string()) }),
  ]),
  sessionTarget: z.enum(['main', 'isolated']),
  message: z.string().check(z.minLength(1), z.maxLength(10_000)),
});

export const CronDeleteEnvelopeSchema = z.strictObject({ ...base, kind: z.literal('cron_delete'), jobId: z.string().check(z.minLength(1), z.maxLength(64)) });

// ── media (#16): a file the agent sends, already written under its own out/ prefix ──
const FileEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('file'),
  sessionKey: SessionKeySchema,
  /** The inbound of the turn that sends it: the file goes to that inbound's origin, as a reply does. */
  inboundId: EnvelopeIdSchema,
  /** Checked by the control plane to lie under the sender's own out/ prefix. */
  key: MediaKeySchema,
  fileKind: z.enum(OUTBOUND_FILE_KINDS),
  fileName: FileNameSchema,
  mimeType: z.string().check(z.minLength(3), z.maxLength(128)),
  size: z.number().check(z.int(), z.nonnegative()),
  caption: z.optional(z.string().check(z.maxLength(1024))),
});

/** A token count: a call's, which no provider reports in the billions. */
const tokenCount = z.number().check(z.int(), z.nonnegative(), z.lte(1_000_000_000));

/**
 * One model call's token usage as its provider reported it (protocol 7, #31): sent by a metered
 * agent's runtime (one with a budget) after each call, answered or failed. The control plane
 * prices it with the config and counts it once per envelope id (its own count is what budgets
 * are checked against); evidence, like all runtime output.
 */
const UsageEnvelopeSchema = z.strictObject({
  ...base,
  kind: z.literal('usage'),
  sessionKey: z.optional(SessionKeySchema),
  /** The inbound of the turn that made the call. */
  inboundId: EnvelopeIdSchema,
  /** The model ref the call went to: one of the agent's configured models. */
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  tokens: z.strictObject({ input: tokenCount, output: tokenCount, cacheRead: tokenCount, cacheWrite: tokenCount }),
});

const OutboundEnvelopeSchema = z.discriminatedUnion('kind', [
  ReplyEnvelopeSchema,
  BlockEnvelopeSchema,
  DraftEnvelopeSchema,
  TypingEnvelopeSchema,
  StatusEnvelopeSchema,
  HeartbeatEnvelopeSchema,
  AgentSendEnvelopeSchema,
  CronUpsertEnvelopeSchema,
  CronDeleteEnvelopeSchema,
  FileEnvelopeSchema,
  UsageEnvelopeSchema,
]);

export type InboundEnvelope = z.infer<typeof InboundEnvelopeSchema>;
export type MessageEnvelope = z.infer<typeof MessageEnvelopeSchema>;
export type OutboundEnvelope = z.infer<typeof OutboundEnvelopeSchema>;
export type ReplyEnvelope = z.infer<typeof ReplyEnvelopeSchema>;
export type BlockEnvelope = z.infer<typeof BlockEnvelopeSchema>;
export type TypingEnvelope = z.infer<typeof TypingEnvelopeSchema>;
export type StatusEnvelope = z.infer<typeof StatusEnvelopeSchema>;
export type DraftEnvelope = z.infer<typeof DraftEnvelopeSchema>;
export type VoiceRef = NonNullable<ReplyEnvelope['voice']>;
export type SessionStats = z.infer<typeof SessionStatsSchema>;
export type StreamRequest = z.infer<typeof StreamRequestSchema>;
export type RuntimeCommand = z.infer<typeof RuntimeCommandSchema>;
export type Quote = z.infer<typeof QuoteSchema>;
export type Origin = z.infer<typeof OriginSchema>;
export type Shared = z.infer<typeof SharedSchema>;
export type Forward = z.infer<typeof ForwardSchema>;
export type Buttons = z.infer<typeof ButtonsSchema>;
export type Reaction = z.infer<typeof ReactionSchema>;
export type AgentSendEnvelope = z.infer<typeof AgentSendEnvelopeSchema>;
export type CronUpsertEnvelope = z.infer<typeof CronUpsertEnvelopeSchema>;
export type CronDeleteEnvelope = z.infer<typeof CronDeleteEnvelopeSchema>;
export type FileEnvelope = z.infer<typeof FileEnvelopeSchema>;
export type UsageEnvelope = z.infer<typeof UsageEnvelopeSchema>;

/** Parses an envelope body, with an error that names what was wrong (never the body). */
function parseWith<T>(schema: z.ZodMiniType<T>, body: string | unknown, direction: string): T {
  let json: unknown = body;
  if (typeof body === 'string') {
    try {
      json = JSON.parse(body);
    } catch {
      throw new EnvelopeError('ENVELOPE_INVALID', `${direction} envelope is not JSON`);
    }
  }
  const v = (json as { v?: unknown } | null)?.v;
  if (typeof json === 'object' && json !== null && !(READABLE_VERSIONS as readonly unknown[]).includes(v)) {
    throw new EnvelopeError(
      'ENVELOPE_VERSION',
      `${direction} envelope has protocol version ${JSON.stringify(v)}; this build reads ${MIN_PROTOCOL_VERSION} to ${PROTOCOL_VERSION}`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues.slice(0, 3).map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`);
    throw new EnvelopeError('ENVELOPE_INVALID', `${direction} envelope is invalid: ${first.join('; ')}`);
  }
  return parsed.data;
}

export const parseInbound = (body: string | unknown) => parseWith(InboundEnvelopeSchema, body, 'inbound');
export const parseOutbound = (body: string | unknown) => parseWith(OutboundEnvelopeSchema, body, 'outbound');
