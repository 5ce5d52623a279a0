// What the runtime tells the control plane about a session after each turn (protocol 4's
// status `session`): its length, how full the model's context is, and the model it uses. The
// control plane records it on the session so /status can say it without waking the agent.
import type { Message } from '@mariozechner/pi-ai';
import type { SessionStats } from '../../../shared/protocol/envelopes.ts';
import { estimateTokens, historyMessages } from './compaction.ts';
import type { ModelClient } from '../model/model.ts';
import type { SessionHistory } from './transcript-store.ts';
import type { TranscriptEntry } from '../../../shared/workspace/transcript-entry.ts';

export interface SessionStatsInput {
  /** The session's transcript entries, the turn just recorded included. */
  entries: TranscriptEntry[];
  /** What the next turn builds on (after any compaction), the turn just recorded included. */
  history: SessionHistory;
  /** The model the session's turns use. */
  model: Pick<ModelClient, 'label' | 'contextWindow'>;
  /** Its ref, as /model names it. */
  ref: string;
  /** Whether the session chose it with /model. */
  chosen: boolean;
  /** The system prompt and tool schemas, in characters: part of the context when it is estimated. */
  promptChars?: number | undefined;
}

export function sessionStats(input: SessionStatsInput): SessionStats {
  const messages = historyMessages(input.history);
  const counted = lastContextTokens(messages);
  const said = messages.length > 0 || input.history.summary !== undefined ? estimateTokens(input.history.summary ?? '', messages) : 0;
  const contextTokens = counted ?? said + Math.ceil((input.promptChars ?? 0) / 4);
  return {
    turns: turnsSinceReset(input.entries),
    messages: messages.length,
    contextTokens: Math.min(contextTokens, 100_000_000),
    ...(counted === undefined ? { estimated: true as const } : {}),
    contextWindow: Math.max(1, Math.min(input.model.contextWindow, 100_000_000)),
    model: input.ref.slice(0, 256) || input.model.label.slice(0, 256),
    ...(input.chosen ? { modelChosen: true as const } : {}),
  };
}

/** Turns the session has had since it started or its last /new (compacted ones count; /model and /think lines do not). */
export function turnsSinceReset(entries: TranscriptEntry[]): number {
  let turns = 0;
  for (const e of entries) {
    if (e.kind === 'compaction' || e.note) continue;
    if (e.reset) turns = 0;
    else if (e.model === undefined && e.think === undefined) turns++;
  }
  return turns;
}

/**
 * The tokens of the last context a provider counted: its latest answer's prompt plus the
 * answer (what the next call starts from). Undefined when no provider counted (an offline
 * stand-in, or a session of command lines only).
 */
function lastContextTokens(messages: Message[]): number | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const u = m.usage;
    const total = u.totalTokens || u.input + u.output + u.cacheRead + u.cacheWrite;
    if (total > 0) return total;
  }
  return undefined;
}
