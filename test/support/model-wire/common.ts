// What the fake model server's two wire modules share: the scripted reply types, the
// contract each wire API implements, and helpers to cut replies into realistic stream deltas.
import type { IncomingHttpHeaders } from 'node:http';

/** pi-ai's names for the two wire APIs, which are also our config's `models.providers.api`. */
export type ModelApi = 'openai-completions' | 'anthropic-messages';

export interface ToolCallReply {
  name: string;
  arguments: Record<string, unknown>;
  /** Defaults to a fresh id in the API's style (`call_…`, `toolu_…`). */
  id?: string;
}

/** One scripted answer: `error` wins; otherwise `text` and/or `toolCalls` (text comes first). */
export interface ModelReply {
  text?: string;
  toolCalls?: ToolCallReply[];
  /** An HTTP error; `body` defaults to the API's own error shape for the status. */
  error?: { status: number; body?: unknown; headers?: Record<string, string> };
  /** Wait before answering: latency, client timeouts, a runtime killed mid-turn. */
  delayMs?: number;
  /** Wait after each streamed frame: a model that writes slowly (streamed replies). */
  frameDelayMs?: number;
  /** The token counts to report (budgets, #31); default: estimated from the request and the reply. */
  usage?: { input: number; output: number };
}

/** What each wire module provides; the server does routing, check order, scripting and recording. */
export interface WireApi {
  api: ModelApi;
  paths: readonly string[];
  /** A missing/wrong header as the API reports it, or undefined. */
  checkHeaders(headers: IncomingHttpHeaders, apiKey: string | undefined): WireError | undefined;
  parse(body: unknown): { ok: true; request: ParsedRequest } | { ok: false; error: WireError };
  error(status: number, message?: string): unknown;
  respond(reply: ModelReply, ctx: ReplyContext): unknown;
  /** Complete SSE frames (each ends with a blank line), in order. */
  stream(reply: ModelReply, ctx: ReplyContext): string[];
}

export interface WireError {
  status: number;
  body: unknown;
}

export interface ParsedRequest {
  model: string;
  stream: boolean;
  includeUsage: boolean;
  lastUserText: string;
  inputTokens: number;
}

export interface ReplyContext {
  model: string;
  inputTokens: number;
  includeUsage: boolean;
  /** Deterministic ids: `nextId('msg_')` → `msg_fake0001`… */
  nextId(prefix: string): string;
}

/** Splits text into word-sized deltas that concatenate back to it exactly. */
export function textPieces(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== '');
}

/** Splits serialized tool arguments into small fragments, as providers stream them. */
export function jsonFragments(json: string, size = 8): string[] {
  const fragments: string[] = [];
  for (let i = 0; i < json.length; i += size) fragments.push(json.slice(i, i + size));
  return fragments;
}

/** A rough token count (≈4 characters a token): enough for usage fields to be plausible and non-zero. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}

export function outputTokens(reply: ModelReply): number {
  return estimateTokens((reply.text ?? '') + JSON.stringify(reply.toolCalls ?? []));
}

/** Text of the last user message that has any, from string or content-part message bodies. */
export function lastUserTextOf(messages: ReadonlyArray<{ role: string; content?: unknown }>): string {
  for (const message of [...messages].reverse()) {
    if (message.role !== 'user') continue;
    const text = textOf(message.content);
    if (text !== '') return text;
  }
  return '';
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text' && typeof part.text === 'string')
    .map((part) => part.text)
    .join('\n');
}

export function sseData(data: unknown): string {
  return `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}

/** The first schema problem, phrased like the APIs do: `messages.0.role: Invalid input`. */
export function describeIssue(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): string {
  const issue = issues[0];
  if (!issue) return 'Invalid request';
  return issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message;
}
