// A session's transcript in the agent's workspace: one JSON line per completed turn,
// keyed by the inbound envelope id that started it, plus compaction lines that stand in
// for the turns before them. Appends are fsynced; a line cut short by a crash mid-write
// is ignored on read (and healed on the next append), so an interrupted write never
// corrupts earlier turns. Lines are parsed with a schema, never cast. Reads are of the
// file's tail only, asynchronous and capped (shared/adapters/fs/beneath.ts): a transcript replaced by a
// FIFO is refused, and one grown huge is not read whole.
import { join } from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import { isMissing, WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { transcriptPath } from '../../../shared/workspace/workspace-paths.ts';
import { EntrySchema, type TranscriptEntry, type TurnRecord } from '../../../shared/workspace/transcript-entry.ts';

/**
 * How much of a transcript's tail is read: the first window, grown fourfold while it holds
 * no compaction line, up to the last. What the next turn needs (the latest summary and the
 * turns after it, a redelivered turn) is near the end; compaction keeps it under the model's
 * context, far below the first window.
 */
const TRANSCRIPT_WINDOWS = [4 << 20, 16 << 20, 64 << 20] as const;

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
