// A session's transcript in the agent's workspace: one JSON line per completed turn,
// keyed by the inbound envelope id that started it, plus compaction lines that stand in
// for the turns before them. Appends are fsynced; a line cut short by a crash mid-write
// is ignored on read (and healed on the next append), so an interrupted write never
// corrupts earlier turns. Lines are parsed with a schema, never cast.
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import type { Message } from '@mariozechner/pi-ai';
import { z } from 'zod';

const Text = z.looseObject({ type: z.literal('text'), text: z.string() });
const Image = z.looseObject({ type: z.literal('image'), data: z.string(), mimeType: z.string() });
const Thinking = z.looseObject({ type: z.literal('thinking'), thinking: z.string() });
const ToolCallSchema = z.looseObject({ type: z.literal('toolCall'), id: z.string(), name: z.string(), arguments: z.record(z.string(), z.unknown()) });
const Usage = z.looseObject({
  input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), totalTokens: z.number(),
  cost: z.looseObject({ input: z.number(), output: z.number(), cacheRead: z.number(), cacheWrite: z.number(), total: z.number() }),
});
export const MessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(z.union([Text, Image]))]), timestamp: z.number() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.array(z.union([Text, Thinking, ToolCallSchema])),
    api: z.string(), provider: z.string(), model: z.string(), usage: Usage,
    stopReason: z.enum(['stop', 'length', 'toolUse', 'error', 'aborted']),
    errorMessage: z.string().optional(),
    timestamp: z.number(),
  }),
  z.looseObject({ role: z.literal('toolResult'), toolCallId: z.string(), toolName: z.string(), content: z.array(z.union([Text, Image])), isError: z.boolean(), timestamp: z.number() }),
]);

const TurnRecordSchema = z.object({
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
});

const CompactionRecordSchema = z.object({
  kind: z.literal('compaction'),
  ts: z.number(),
  /** Stands in for every turn before this line... */
  summary: z.string(),
  /** ...except those after this inbound id, which stay verbatim. */
  throughInboundId: z.string(),
});

const EntrySchema = z.union([CompactionRecordSchema, TurnRecordSchema]);

// Messages are checked against the schema above (the shape pi-ai needs), then typed as
// pi-ai's own Message, which carries a few provider-specific fields the schema lets through.
export type TurnRecord = Omit<z.infer<typeof TurnRecordSchema>, 'messages'> & { messages?: Message[] | undefined };
export type CompactionRecord = z.infer<typeof CompactionRecordSchema>;
export type TranscriptEntry = TurnRecord | CompactionRecord;

export interface SessionHistory {
  /** The latest compaction summary, if the session was compacted. */
  summary: string | undefined;
  /** Turns after the summary, oldest first. */
  turns: TurnRecord[];
}

export class TranscriptStore {
  constructor(private readonly workspace: string) {
    mkdirSync(join(workspace, 'sessions'), { recursive: true });
  }

  /** File names from session keys: readable, but safe for any key. */
  path(sessionKey: string): string {
    const readable = sessionKey.replace(/[^A-Za-z0-9_.-]+/g, '_').slice(0, 80);
    const hash = createHash('sha256').update(sessionKey).digest('hex').slice(0, 10);
    return join(this.workspace, 'sessions', `${readable}.${hash}.jsonl`);
  }

  entries(sessionKey: string): TranscriptEntry[] {
    let text: string;
    try {
      text = readFileSync(this.path(sessionKey), 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
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

  /** Every turn, compacted or not (for re-sending a recorded reply). */
  read(sessionKey: string): TurnRecord[] {
    return this.entries(sessionKey).filter((e): e is TurnRecord => e.kind !== 'compaction');
  }

  find(sessionKey: string, inboundId: string): TurnRecord | undefined {
    return this.read(sessionKey).find((t) => t.inboundId === inboundId);
  }

  /** What the next turn builds on: the latest summary and the turns after it. */
  history(sessionKey: string): SessionHistory {
    return historyOf(this.entries(sessionKey));
  }

  append(sessionKey: string, entry: TranscriptEntry): void {
    const path = this.path(sessionKey);
    const fd = openSync(path, 'a+');
    try {
      // If a crash left a torn line, start on a fresh line so this record parses.
      const size = fstatSync(fd).size;
      const last = Buffer.alloc(1);
      const prefix = size > 0 && readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a ? '\n' : '';
      writeSync(fd, `${prefix}${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }
}

export function historyOf(entries: TranscriptEntry[]): SessionHistory {
  let summary: string | undefined;
  let turns: TurnRecord[] = [];
  for (const e of entries) {
    if (e.kind === 'compaction') {
      summary = e.summary;
      const cut = turns.findIndex((t) => t.inboundId === e.throughInboundId);
      turns = cut >= 0 ? turns.slice(cut + 1) : [];
    } else {
      turns.push(e);
    }
  }
  return { summary, turns };
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
      api: 'clawfleet', provider: 'transcript', model: 'transcript',
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      stopReason: 'stop',
      timestamp: t.ts,
    },
  ];
}
