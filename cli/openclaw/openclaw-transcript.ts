// An OpenClaw session transcript (the event stream OpenClaw writes: a `session` header, then
// entries linked by id/parentId into a tree) converted into clawfleet's transcript: the
// active branch, from its leaf back to the root, grouped into turns (a user message and what
// followed it), with the latest compaction (or reset) as a clawfleet compaction line, so the
// next turn sees what OpenClaw's model saw — the summary and the messages kept after it.
// Both runtimes speak pi-ai's message shapes, so a turn keeps its messages (tool calls and
// results included) when they pass clawfleet's schema and form a finished exchange;
// otherwise it keeps its text (what was asked, what was answered). Pure: no I/O.
import { z } from 'zod';
import { EntrySchema, MessageSchema, type TranscriptEntry, type TurnRecord } from '../../shared/workspace/transcript-entry.ts';

const TreeEntry = z.looseObject({ type: z.string(), id: z.string().min(1), parentId: z.string().nullish(), timestamp: z.string().optional() });
const MessageEntry = z.looseObject({ type: z.literal('message'), message: z.looseObject({ role: z.string() }) });
const BoundaryEntry = z.looseObject({ type: z.enum(['compaction', 'reset']), summary: z.string().optional(), firstKeptEntryId: z.string().optional() });

type Tree = z.infer<typeof TreeEntry> & Record<string, unknown>;

export interface ConvertedTranscript {
  entries: TranscriptEntry[];
  turns: number;
  /** Turns kept as text only (their messages did not form a finished exchange clawfleet reads). */
  textOnly: number;
  /** The latest compaction's summary was carried. */
  summarized: boolean;
  /** OpenClaw reset the conversation: the turns before it are kept but not in the model's context. */
  reset: boolean;
  /** Entries that enter no clawfleet context (extension messages, branch summaries, other roles). */
  leftOut: number;
}

/** OpenClaw's own fields on a message, which no model API takes. */
const PRIVATE_KEYS = ['__openclaw', 'idempotencyKey'];

export function convertTranscript(events: readonly unknown[], sessionId: string): ConvertedTranscript {
  const byId = new Map<string, Tree>();
  let leaf: Tree | undefined;
  for (const e of events) {
    const parsed = TreeEntry.safeParse(e);
    if (!parsed.success || parsed.data.type === 'session') continue;
    byId.set(parsed.data.id, parsed.data as Tree);
    leaf = parsed.data as Tree;
  }
  // The active branch: from the leaf (the last entry written) up its parents.
  const branch: Tree[] = [];
  const seen = new Set<string>();
  for (let at = leaf; at && !seen.has(at.id); at = at.parentId ? byId.get(at.parentId) : undefined) {
    seen.add(at.id);
    branch.push(at);
  }
  branch.reverse();

  let boundary = -1;
  branch.forEach((e, i) => BoundaryEntry.safeParse(e).success && (boundary = i));
  const cut = boundary < 0 ? undefined : BoundaryEntry.parse(branch[boundary]);
  const keptFrom = cut === undefined ? 0 : Math.min(boundary, indexOf(branch, cut.firstKeptEntryId) ?? boundary);

  interface Turn {
    userEntry: Tree;
    messages: { index: number; message: Record<string, unknown> }[];
  }
  const turns: Turn[] = [];
  let leftOut = 0;
  branch.forEach((e, index) => {
    const m = MessageEntry.safeParse(e);
    if (!m.success) {
      if (e.type === 'custom_message' || e.type === 'branch_summary') leftOut++;
      return;
    }
    const message = withoutPrivateKeys(m.data.message);
    if (message.role === 'user') turns.push({ userEntry: e, messages: [{ index, message }] });
    else if (['assistant', 'toolResult'].includes(String(message.role)) && turns.length) turns.at(-1)!.messages.push({ index, message });
    else leftOut++;
  });

  const entries: TranscriptEntry[] = [];
  let textOnly = 0;
  let lastBefore: string | undefined;
  let boundaryWritten = cut === undefined;
  const writeBoundary = () => {
    if (boundaryWritten) return;
    boundaryWritten = true;
    const record = {
      kind: 'compaction' as const,
      ts: timeOf(branch[boundary]!),
      summary: cut!.type === 'compaction' ? (cut!.summary ?? '') : '',
      throughInboundId: lastBefore ?? `openclaw.${sessionId}.start`,
    };
    entries.push(EntrySchema.parse(record) as TranscriptEntry);
  };
  for (const turn of turns) {
    const before = turn.messages.at(-1)!.index < keptFrom;
    if (!before) writeBoundary();
    const record = turnRecord(
      turn.userEntry,
      turn.messages.map((m) => m.message),
      sessionId,
    );
    if (!record) {
      leftOut += turn.messages.length;
      continue;
    }
    if (!record.messages) textOnly++;
    entries.push(record);
    if (before) lastBefore = record.inboundId;
  }
  writeBoundary();
  return {
    entries,
    turns: entries.filter((e) => e.kind !== 'compaction').length,
    textOnly,
    summarized: cut?.type === 'compaction' && !!cut.summary,
    reset: cut?.type === 'reset',
    leftOut,
  };
}

function indexOf(branch: Tree[], id: string | undefined): number | undefined {
  if (!id) return undefined;
  const i = branch.findIndex((e) => e.id === id);
  return i < 0 ? undefined : i;
}

function withoutPrivateKeys(message: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(message).filter(([k]) => !PRIVATE_KEYS.includes(k)));
}

function timeOf(e: Tree, message?: Record<string, unknown>): number {
  if (typeof message?.timestamp === 'number' && Number.isFinite(message.timestamp)) return message.timestamp;
  const t = e.timestamp ? Date.parse(e.timestamp) : NaN;
  return Number.isFinite(t) ? t : 0;
}

/** The words of a message: its text, its text parts joined, an image named. */
function textOf(message: Record<string, unknown>): string {
  const c = message.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((p: unknown) => {
      const part = p as { type?: unknown; text?: unknown };
      return part?.type === 'text' && typeof part.text === 'string' ? part.text : part?.type === 'image' ? '[image]' : '';
    })
    .filter(Boolean)
    .join('\n');
}

/**
 * Whether the turn's messages are a finished exchange a model API takes back as history:
 * each passes clawfleet's schema, every tool call has its result, and an assistant message
 * that stopped normally ends it.
 */
function finishedExchange(messages: Record<string, unknown>[]): boolean {
  if (!messages.every((m) => MessageSchema.safeParse(m).success)) return false;
  const last = messages.at(-1)!;
  if (last.role !== 'assistant' || !['stop', 'length'].includes(String(last.stopReason))) return false;
  const calls = messages.flatMap((m) =>
    m.role === 'assistant' ? (m.content as { type: string; id?: string }[]).filter((p) => p.type === 'toolCall').map((p) => p.id) : [],
  );
  const results = new Set(messages.filter((m) => m.role === 'toolResult').map((m) => m.toolCallId));
  return calls.every((id) => results.has(id));
}

function turnRecord(userEntry: Tree, messages: Record<string, unknown>[], sessionId: string): TurnRecord | undefined {
  const user = messages[0]!;
  const answer = [...messages].reverse().find((m) => m.role === 'assistant' && textOf(m).trim());
  const replyText = answer ? textOf(answer).trim() : undefined;
  const base = {
    inboundId: `openclaw.${sessionId}.${userEntry.id}`,
    ts: timeOf(userEntry, user),
    input: textOf(user),
    ...(replyText && replyText !== 'NO_REPLY' ? { reply: replyText } : {}),
  };
  const full = finishedExchange(messages) ? EntrySchema.safeParse({ ...base, messages }) : undefined;
  if (full?.success) return full.data as TurnRecord;
  const text = EntrySchema.safeParse(base);
  return text.success ? (text.data as TurnRecord) : undefined;
}
