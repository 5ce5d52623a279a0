// A session's transcript in the agent's workspace: one JSON line per completed turn,
// keyed by the inbound envelope id that started it, plus compaction lines that stand in
// for the turns before them. Appends are fsynced; a line cut short by a crash mid-write
// is ignored on read (and healed on the next append), so an interrupted write never
// corrupts earlier turns. Lines are parsed with a schema, never cast. Reads are of the
// file's tail only, asynchronous and capped (shared/adapters/fs/beneath.ts): a transcript replaced by a
// FIFO is refused, and one grown huge is not read whole.
import { join } from 'node:path';
import { sha256Hex } from '../lazy-crypto.ts';
import type { Message } from '@mariozechner/pi-ai';
import { z } from 'zod';
import { isMissing, WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';

/**
 * How much of a transcript's tail is read: the first window, grown fourfold while it holds
 * no compaction line, up to the last. What the next turn needs (the latest summary and the
 * turns after it, a redelivered turn) is near the end; compaction keeps it under the model's
 * context, far below the first window.
 */
const TRANSCRIPT_WINDOWS = [4 << 20, 16 << 20, 64 << 20] as const;

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

export interface SessionHistory {
  /** The latest compaction summary, if the session was compacted. */
  summary: string | undefined;
  /** The session's /model choice since its last reset, if any. */
  model?: string | undefined;
  /** The session's /think level since its last reset, if any. */
  think?: 'off' | 'minimal' | 'low' | 'medium' | 'high' | undefined;
  /** The session's /voice choice since its last reset, if it made one (default: none). */
  voice?: 'on' | 'off' | undefined;
  /** Turns after the summary, oldest first. */
  turns: TurnRecord[];
  /** Notes (the users' reactions, #31) recorded since the last turn, oldest first: the next turn reads them first. */
  pending?: string[] | undefined;
}

/** A session's transcript as a turn read it, once: its entries, and the history they make. */
export interface SessionRead {
  entries: TranscriptEntry[];
  history: SessionHistory;
}

export class TranscriptStore {
  private readonly ws: WorkspaceDir;

  constructor(private readonly workspace: string) {
    this.ws = new WorkspaceDir(workspace);
    this.ws.mkdirp('sessions');
  }

  /** File names from session keys: readable, but safe for any key. */
  path(sessionKey: string): string {
    return join(this.workspace, this.relative(sessionKey));
  }

  private relative(sessionKey: string): string {
    return transcriptPath(sessionKey);
  }

  /** The session's entries, from the tail of its file (see TRANSCRIPT_WINDOWS). */
  async entries(sessionKey: string): Promise<TranscriptEntry[]> {
    for (const window of TRANSCRIPT_WINDOWS) {
      let read: { text: string; truncated: boolean };
      try {
        read = await this.ws.readText(this.relative(sessionKey), { maxBytes: window, from: 'end' });
      } catch (err) {
        if (isMissing(err)) return [];
        throw err;
      }
      const entries = parseEntries(read.text);
      if (!read.truncated || entries.some((e) => e.kind === 'compaction') || window === TRANSCRIPT_WINDOWS.at(-1)) return entries;
    }
    return [];
  }

  /** Every turn, compacted or not, within the tail read (for re-sending a recorded reply). */
  async read(sessionKey: string): Promise<TurnRecord[]> {
    return (await this.entries(sessionKey)).filter((e): e is TurnRecord => e.kind !== 'compaction');
  }

  async find(sessionKey: string, inboundId: string): Promise<TurnRecord | undefined> {
    return (await this.read(sessionKey)).find((t) => t.inboundId === inboundId);
  }

  /** What the next turn builds on: the latest summary and the turns after it. */
  async history(sessionKey: string): Promise<SessionHistory> {
    return historyOf(await this.entries(sessionKey));
  }

  async append(sessionKey: string, entry: TranscriptEntry): Promise<void> {
    const rel = this.relative(sessionKey);
    const { handle, stat } = await this.ws.open(rel, 'read+append');
    try {
      // If a crash left a torn line, start on a fresh line so this record parses.
      const { size } = stat;
      const last = Buffer.alloc(1);
      const prefix = size > 0 && (await handle.read(last, 0, 1, size - 1)).bytesRead === 1 && last[0] !== 0x0a ? '\n' : '';
      await handle.appendFile(`${prefix}${JSON.stringify(entry)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/** A session's transcript, relative to the workspace (the importer writes transcripts there too). */
export function transcriptPath(sessionKey: string): string {
  const readable = sessionKey.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80);
  const hash = sha256Hex(sessionKey).slice(0, 10);
  return join('sessions', `${readable}.${hash}.jsonl`);
}

function parseEntries(text: string): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      continue; // A torn line from a crash mid-append: that turn never completed.
    }
    const parsed = EntrySchema.safeParse(json);
    if (parsed.success) out.push(parsed.data as TranscriptEntry);
  }
  return out;
}

/**
 * What the next turn builds on after `entries`, read from the start of a session or on from
 * `from` (a history already worked out, so a turn that appends a record need not read its
 * transcript again).
 */
export function historyOf(entries: readonly TranscriptEntry[], from: SessionHistory = { summary: undefined, turns: [] }): SessionHistory {
  let { summary, model, think, voice } = from;
  let turns: TurnRecord[] = [...from.turns];
  let pending: string[] = [...(from.pending ?? [])];
  for (const e of entries) {
    if (e.kind === 'compaction') {
      summary = e.summary;
      const cut = turns.findIndex((t) => t.inboundId === e.throughInboundId);
      turns = cut >= 0 ? turns.slice(cut + 1) : [];
    } else if (e.note) {
      // A note is read by the turn after it, whose input then holds it: not a turn itself.
      pending.push(e.input);
    } else if (e.reset) {
      summary = undefined;
      model = undefined;
      think = undefined;
      voice = undefined;
      turns = [];
      pending = [];
    } else if (e.model !== undefined || e.think !== undefined || e.voiceSetting !== undefined) {
      // A /model, /think or /voice line: a setting, not a turn the model should see.
      model = e.model ?? model;
      think = e.think ?? think;
      if (e.voiceSetting !== undefined) voice = e.voiceSetting === 'default' ? undefined : e.voiceSetting;
    } else {
      turns.push(e);
      pending = [];
    }
  }
  return {
    summary,
    turns,
    ...(model !== undefined ? { model } : {}),
    ...(think !== undefined ? { think } : {}),
    ...(voice !== undefined ? { voice } : {}),
    ...(pending.length > 0 ? { pending } : {}),
  };
}

/** The messages a recorded turn contributes to the model's context. */
export function turnMessages(t: TurnRecord): Message[] {
  if (t.messages && !t.failed) return t.messages;
  const user: Message = { role: 'user', content: t.input, timestamp: t.ts };
  const said = t.reply ?? (t.failed ? `(I could not answer this: ${t.failed})` : '(no reply)');
  return [
    user,
    {
      role: 'assistant',
      content: [{ type: 'text', text: said }],
      api: 'clawfleet',
      provider: 'transcript',
      model: 'transcript',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: 'stop',
      timestamp: t.ts,
    },
  ];
}
