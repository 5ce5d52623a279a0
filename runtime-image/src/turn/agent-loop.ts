// The agent loop: ask the model; run the tools it calls; give it their results; repeat
// until it answers without calling a tool. Failures are data: an unknown tool, arguments
// that do not parse, a tool that throws or times out all become error results the model
// sees; only a model that fails for good (after retries and fallbacks) fails the loop.
// Every tool result enters here, so here it is made safe to show: the agent's own secret
// values masked, cut to size, and content from outside wrapped as untrusted data.
import type { AssistantMessage, Message, ToolCall, ToolResultMessage, UserMessage } from '@mariozechner/pi-ai';
import type { Clock } from '../../../shared/ports.ts';
import { textOf, type CallContext, type ModelClient, type OverBudget, type ThinkingLevel } from '../model/model.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';
import { capText, type AgentTool, type ToolCallContext, type ToolResult } from '../tools/tool.ts';
import { wrapUntrusted } from '../framing/untrusted-content.ts';

export interface LoopInput {
  model: ModelClient;
  systemPrompt: string;
  history: Message[];
  input: UserMessage;
  tools: AgentTool[];
  /** The turn's tool context, less the signal (the loop makes one per call). */
  toolContext: Omit<ToolCallContext, 'signal'>;
  signal: AbortSignal;
  clock: Clock;
  maxToolRounds: number;
  toolTimeoutMs: number;
  /** Tool results longer than this are cut before the model sees them. */
  maxToolResultChars: number;
  /** Masks this agent's secret values in tool results and in what the model says. */
  masker: SecretMasker;
  onToolCall?: (call: { name: string; ms: number; isError: boolean }) => void;
  /** A tool call is about to run; `said` is the text the model wrote with its calls (progress streaming shows it). */
  onToolStart?: ((call: { name: string; said: string }) => void) | undefined;
  /** The text the model is writing now, as it grows (each model call starts again from empty). */
  onText?: ((textSoFar: string) => void) | undefined;
  /** The session's /think level, passed to every model call. */
  thinking?: ThinkingLevel | undefined;
  /** The turn each model call is made for (#31: a metered model names its calls after it). */
  call?: CallContext | undefined;
}

export type LoopResult =
  | { ok: true; messages: Message[]; text: string }
  | { ok: false; messages: Message[]; error: string; aborted: boolean; overBudget?: OverBudget | undefined };

export async function runAgentLoop(input: LoopInput): Promise<LoopResult> {
  const added: Message[] = [input.input];
  const byName = new Map(input.tools.map((t) => [t.name, t]));
  const specs = input.tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  for (let round = 0; ; round++) {
    const result = await input.model.complete({
      systemPrompt: input.systemPrompt,
      messages: [...input.history, ...added],
      tools: specs,
      signal: input.signal,
      onText: input.onText,
      thinking: input.thinking,
      call: input.call,
    });
    if (input.signal.aborted) return { ok: false, messages: added, error: 'aborted', aborted: true };
    if (!result.ok) return { ok: false, messages: added, error: result.error, aborted: false, ...(result.overBudget ? { overBudget: result.overBudget } : {}) };
    // Masked too (defence in depth): a value the model got hold of some other way is not repeated.
    const reply = maskedReply(result.message, input.masker);
    added.push(reply);
    const calls = reply.content.filter((c): c is ToolCall => c.type === 'toolCall');
    if (calls.length === 0) return { ok: true, messages: added, text: textOf(reply).trim() };
    if (round >= input.maxToolRounds) {
      return { ok: false, messages: added, error: `the model kept calling tools after ${input.maxToolRounds} rounds`, aborted: false };
    }
    const said = textOf(reply);
    for (const call of calls) {
      input.onToolStart?.({ name: call.name, said });
      const started = input.clock.now();
      const out = await callTool(byName.get(call.name), call, input);
      input.onToolCall?.({ name: call.name, ms: input.clock.now() - started, isError: out.isError === true });
      const message: ToolResultMessage = {
        role: 'toolResult',
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: 'text', text: resultText(out, input) }],
        isError: out.isError === true,
        timestamp: input.clock.now(),
      };
      added.push(message);
      if (input.signal.aborted) return { ok: false, messages: added, error: 'aborted', aborted: true };
    }
  }
}

/** Mask first (a value cut in half by the cap would slip through), then cut, then wrap (so the end marker is never cut off). */
function resultText(out: ToolResult, input: LoopInput): string {
  const text = capText(input.masker.mask(out.text), input.maxToolResultChars);
  if (!out.untrusted) return text || '(no output)';
  const meta = Object.fromEntries(Object.entries(out.untrusted.meta ?? {}).map(([k, v]) => [k, input.masker.mask(v)]));
  return wrapUntrusted(text, { source: out.untrusted.source, meta });
}

function maskedReply(message: AssistantMessage, masker: SecretMasker): AssistantMessage {
  return { ...message, content: message.content.map((c) => (c.type === 'text' ? { ...c, text: masker.mask(c.text) } : c)) };
}

async function callTool(tool: AgentTool | undefined, call: ToolCall, input: LoopInput): Promise<ToolResult> {
  if (!tool) return { text: `unknown tool "${call.name}"; available: ${[...input.tools.map((t) => t.name)].join(', ') || 'none'}`, isError: true };
  const parsed = tool.parse(call.arguments);
  if (!parsed.ok) return { text: `invalid arguments for ${call.name}: ${parsed.error}`, isError: true };
  const controller = new AbortController();
  const stop = () => controller.abort();
  input.signal.addEventListener('abort', stop, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<ToolResult>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({ text: `${call.name} did not finish within ${Math.round(input.toolTimeoutMs / 1000)} s`, isError: true });
    }, input.toolTimeoutMs);
  });
  try {
    return await Promise.race([tool.run(parsed.value, { ...input.toolContext, signal: controller.signal }), timeout]);
  } catch (err) {
    return { text: `${call.name} failed: ${err instanceof Error ? err.message : String(err)}`, isError: true };
  } finally {
    clearTimeout(timer);
    input.signal.removeEventListener('abort', stop);
  }
}
