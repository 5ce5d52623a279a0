// Compaction near the model's context limit, as OpenClaw does it: first a memory flush
// (the model picks durable facts from the part about to be compacted, and they are
// appended to memory/YYYY-MM-DD.md), then a summary that stands in for those turns in
// the transcript. The newest turns stay verbatim. A failed flush or summary never fails
// the turn: the session is then trimmed to fit instead, and the next turn tries again.
import type { Message } from '@mariozechner/pi-ai';
import type { Logger } from '../../../shared/log.ts';
import type { Clock } from '../../../shared/ports.ts';
import { textOf, type CallContext, type ModelClient } from '../model/model.ts';
import { turnMessages, type SessionHistory, type TranscriptStore } from './transcript-store.ts';
import type { TurnRecord } from '../../../shared/workspace/transcript-entry.ts';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';

export interface CompactionDeps {
  model: ModelClient;
  transcripts: TranscriptStore;
  workspace: string;
  clock: Clock;
  log: Logger;
  /** Compact when the estimated prompt passes this many tokens. */
  compactAtTokens: number;
  /** Turns kept verbatim after a compaction. */
  keepTurns: number;
  /** The turn its model calls are made for (#31: a metered model names and counts them). */
  call?: CallContext | undefined;
}

export const FLUSH_PROMPT = [
  'You maintain the long-term memory of a personal AI agent. The conversation below is about to be compacted and its details lost.',
  'List the durable facts worth keeping: preferences, people, commitments, decisions, dates, things to follow up. One short bullet each ("- ...").',
  'Skip small talk and anything already obvious. If nothing is worth keeping, answer exactly NO_REPLY.',
].join('\n');

export const SUMMARY_PROMPT = [
  'Summarize the conversation below for the agent that will continue it, in at most 250 words.',
  "Keep open questions, tasks in progress, decisions and the user's stated preferences. Write in the third person about the user.",
].join('\n');

/** ≈4 characters a token: close enough to stay clear of the limit. */
export function estimateTokens(systemPrompt: string, messages: Message[], extra = ''): number {
  return Math.ceil((systemPrompt.length + JSON.stringify(messages).length + extra.length) / 4);
}

export function historyMessages(h: SessionHistory): Message[] {
  return h.turns.flatMap(turnMessages);
}

/** Plain text of turns, for the flush and summary prompts. */
function renderTurns(turns: TurnRecord[], maxChars: number): string {
  const lines: string[] = [];
  for (const m of turns.flatMap(turnMessages)) {
    if (m.role === 'user')
      lines.push(`User: ${typeof m.content === 'string' ? m.content : m.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join(' ')}`);
    else if (m.role === 'assistant') {
      const text = textOf(m);
      if (text) lines.push(`Assistant: ${text}`);
      for (const c of m.content) if (c.type === 'toolCall') lines.push(`[tool ${c.name} ${JSON.stringify(c.arguments).slice(0, 300)}]`);
    } else
      lines.push(
        `[${m.toolName} → ${m.content
          .flatMap((c) => (c.type === 'text' ? [c.text] : []))
          .join(' ')
          .slice(0, 300)}]`,
      );
  }
  const text = lines.join('\n');
  // The newest part matters most when the whole does not fit.
  return text.length > maxChars ? `…\n${text.slice(text.length - maxChars)}` : text;
}

export async function compactIfNeeded(
  sessionKey: string,
  history: SessionHistory,
  promptChars: number,
  deps: CompactionDeps,
  signal: AbortSignal,
): Promise<SessionHistory> {
  const size = () => Math.ceil(promptChars / 4) + estimateTokens(history.summary ?? '', historyMessages(history));
  if (size() <= deps.compactAtTokens || history.turns.length <= deps.keepTurns) return history;
  const log = deps.log.child({ sessionKey });
  const old = history.turns.slice(0, history.turns.length - deps.keepTurns);
  const kept = history.turns.slice(old.length);
  const text = renderTurns(old, Math.max(4_000, deps.model.contextWindow * 2));

  const flush = await deps.model.complete({ systemPrompt: FLUSH_PROMPT, messages: [userText(text, deps.clock)], tools: [], signal, call: deps.call });
  if (!flush.ok) return trimmed(history, deps, log, `memory flush failed: ${flush.error}`);
  const facts = textOf(flush.message).trim();
  let note: string | undefined;
  if (facts && facts !== 'NO_REPLY') {
    try {
      note = await writeMemoryNote(deps.workspace, sessionKey, facts, deps.clock.now());
    } catch (err) {
      // The facts are lost for the memory file, not for the turn: the summary still stands in for the turns.
      log.warn('memory note not written', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  const previous = history.summary ? `Summary of what came before:\n${history.summary}\n\nThen:\n` : '';
  const summary = await deps.model.complete({
    systemPrompt: SUMMARY_PROMPT,
    messages: [userText(previous + text, deps.clock)],
    tools: [],
    signal,
    call: deps.call,
  });
  if (!summary.ok) return trimmed(history, deps, log, `summary failed: ${summary.error}`);
  const summaryText = textOf(summary.message).trim() || history.summary || '(no summary)';
  await deps.transcripts.append(sessionKey, { kind: 'compaction', ts: deps.clock.now(), summary: summaryText, throughInboundId: old.at(-1)!.inboundId });
  log.info('session compacted', { compactedTurns: old.length, keptTurns: kept.length, memoryNote: note });
  return { summary: summaryText, turns: kept };
}

/** Appends facts to today's daily memory file (UTC date) and returns its workspace path. */
async function writeMemoryNote(workspace: string, sessionKey: string, facts: string, now: number): Promise<string> {
  const iso = new Date(now).toISOString();
  const rel = `memory/${iso.slice(0, 10)}.md`;
  // Folders on the way are made as the append walks to the file.
  await new WorkspaceDir(workspace).append(rel, `\n## ${iso.slice(11, 16)} UTC — before compacting session ${sessionKey}\n\n${facts}\n`);
  return rel;
}

function userText(text: string, clock: Clock): Message {
  return { role: 'user', content: text, timestamp: clock.now() };
}

/** Without a summary, the oldest turns are dropped until the session fits. */
function trimmed(history: SessionHistory, deps: CompactionDeps, log: Logger, why: string): SessionHistory {
  log.warn('compaction skipped; oldest turns dropped from this prompt', { reason: why });
  const turns = [...history.turns];
  while (turns.length > deps.keepTurns && estimateTokens(history.summary ?? '', turns.flatMap(turnMessages)) > deps.compactAtTokens) turns.shift();
  return { summary: history.summary, turns };
}
