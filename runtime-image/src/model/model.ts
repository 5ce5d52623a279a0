// The model port of the agent loop, and its adapter over pi-ai, which speaks each
// provider's wire API (openai-completions, anthropic-messages, bedrock-converse-stream).
// Each provider module is imported on first use, not at start: pi-ai's root module loads
// every provider and TypeBox's compiler (~0.4 s, ~30 MB here), one provider ~0.1 s.
import type { AssistantMessage, AssistantMessageEvent, Context, Message, Model, StreamFunction } from '@mariozechner/pi-ai';
import type { ProviderConfig } from '../../../shared/config/schema.ts';
import { withEscapesCaught } from './provider-escapes.ts';
import { noteRetryAfter, type ResponseNotes } from './retry-after.ts';
import type { CapReached } from '../../../shared/budget/budget.ts';
import type { TokenUsage } from '../../../shared/budget/prices.ts';

/** What the model is told about one tool: a JSON Schema for its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ModelRequest {
  systemPrompt: string;
  messages: Message[];
  tools: ToolSpec[];
  signal?: AbortSignal | undefined;
  /** Called with the answer's text so far as the model writes it (streamed replies); a model that cannot stream calls it never. */
  onText?: ((textSoFar: string) => void) | undefined;
  /** A session's /think level: how hard a model that can reason should think (absent or off: the provider's default). */
  thinking?: ThinkingLevel | undefined;
  /** The turn the call is made for (#31): a metered model names each call after it, and reports its usage under that name. */
  call?: CallContext | undefined;
}

/** The turn a model call belongs to, as a metered model (spend/metered-model.ts) needs it. */
export interface CallContext {
  inboundId: string;
  sessionKey: string;
  /** A fresh id for the next model call of this attempt of the turn (its usage envelope's id). */
  nextCallId(): string;
}

/** Why a call was not made: the agent's budget is spent (#31). The turn answers with `text` instead. */
export interface OverBudget {
  text: string;
  reached: CapReached;
}

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high'] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Anthropic's budget-based thinking, per level (older models; newer ones take the effort). */
const THINKING_BUDGET = { minimal: 1_024, low: 2_048, medium: 8_192, high: 16_384 } as const;

/** The provider options and model fields that ask for thinking at `level`, in each wire API's terms. */
function thinkingFor(api: PiApi, level: ThinkingLevel | undefined, maxTokens: number): { options: Record<string, unknown>; model: Partial<Model<PiApi>> } {
  if (!level || level === 'off') return { options: {}, model: {} };
  if (api === 'openai-completions') return { options: { reasoningEffort: level }, model: { reasoning: true } };
  if (api === 'anthropic-messages') {
    const budget = THINKING_BUDGET[level];
    // max_tokens must leave room for the answer after the thinking budget.
    return {
      options: {
        thinkingEnabled: true,
        thinkingBudgetTokens: budget,
        effort: level === 'minimal' ? 'low' : level,
        maxTokens: Math.max(maxTokens, budget + 4_096),
      },
      model: { reasoning: true },
    };
  }
  return { options: { reasoning: level }, model: { reasoning: true } };
}

export type ModelFailure = {
  ok: false;
  error: string;
  /** Worth asking again (429, 5xx, overloaded, network); false for auth, bad request, abort. */
  retriable: boolean;
  /** Seconds the provider asked us to wait, when it said. */
  retryAfterSeconds?: number | undefined;
  /** What the provider counted before the call failed (a stream cut short is billed for what it carried). */
  usage?: TokenUsage | undefined;
  /** The call was not made: the budget is spent. Not retried, no fallback asked. */
  overBudget?: OverBudget | undefined;
};
export type ModelResult = { ok: true; message: AssistantMessage } | ModelFailure;

/** Failures are data: a model never throws into the loop. */
export interface ModelClient {
  readonly label: string;
  /** Tokens the model can take in; compaction keeps a session well under it. */
  readonly contextWindow: number;
  /** Whether a photo goes to it as an image (#16: models.providers.<p>.imageModels); else as a note with its path. */
  readonly imageInput?: boolean;
  /** The most output tokens a call of this request is sent with (#31: its cost's ceiling); absent where a call is not capped. */
  outputCap?(req: ModelRequest): number;
  complete(req: ModelRequest): Promise<ModelResult>;
}

type PiApi = 'openai-completions' | 'anthropic-messages' | 'bedrock-converse-stream';
const piApi = {
  'openai-completions': 'openai-completions',
  'anthropic-messages': 'anthropic-messages',
  'bedrock-converse': 'bedrock-converse-stream',
} as const;

// The Anthropic SDK appends /v1/messages itself; OpenAI's base URL carries /v1.
const defaultBaseUrl: Record<ProviderConfig['api'], string> = {
  'openai-completions': 'https://api.openai.com/v1',
  'anthropic-messages': 'https://api.anthropic.com',
  'bedrock-converse': '',
};

const loaders: Record<PiApi, () => Promise<StreamFunction<PiApi, Record<string, unknown>>>> = {
  'openai-completions': async () => (await import('@mariozechner/pi-ai/openai-completions')).streamOpenAICompletions as never,
  'anthropic-messages': async () => (await import('@mariozechner/pi-ai/anthropic')).streamAnthropic as never,
  'bedrock-converse-stream': async () => (await import('@mariozechner/pi-ai/bedrock-provider')).bedrockProviderModule.streamBedrock as never,
};

/** Loads a provider module ahead of the first turn (after the runtime says ready). */
export function preloadProvider(api: ProviderConfig['api']): Promise<unknown> {
  return loaders[piApi[api]]().catch(() => undefined);
}

export interface PiAiModelOptions {
  providerName: string;
  provider: ProviderConfig;
  modelId: string;
  /** Passed on every call so pi-ai never falls back to a key from the environment. */
  apiKey: string | undefined;
  contextWindow?: number;
  maxTokens?: number;
  /** Per request; the SDK's own timeout. */
  timeoutMs?: number;
  /** The model takes images (#16). */
  imageInput?: boolean;
  /** Send every call with its output cap (maxTokens; more with /think), so what a call can cost has a ceiling (#31: a metered agent). */
  capOutput?: boolean;
}

export function piAiModel(opts: PiAiModelOptions): ModelClient {
  const { provider, modelId, providerName } = opts;
  const api = piApi[provider.api];
  const contextWindow = opts.contextWindow ?? 128_000;
  const model: Model<PiApi> = {
    id: modelId,
    name: modelId,
    api,
    provider: providerName,
    baseUrl: provider.baseUrl ?? defaultBaseUrl[provider.api],
    reasoning: false,
    input: opts.imageInput ? ['text', 'image'] : ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow,
    maxTokens: opts.maxTokens ?? 8_192,
  };
  let stream: Promise<StreamFunction<PiApi, Record<string, unknown>>> | undefined;
  // The cap sent: thinking raises Anthropic's to leave room for the answer after its budget.
  const outputCap = (req: ModelRequest) => {
    const raised = thinkingFor(api, req.thinking, model.maxTokens).options.maxTokens;
    return typeof raised === 'number' ? raised : model.maxTokens;
  };
  return {
    label: `${providerName}/${modelId}`,
    contextWindow,
    imageInput: opts.imageInput ?? false,
    ...(opts.capOutput ? { outputCap } : {}),
    async complete(req) {
      const context: Context = {
        systemPrompt: req.systemPrompt,
        messages: req.messages,
        ...(req.tools.length > 0 ? { tools: req.tools as Context['tools'] } : {}),
      };
      let reply: AssistantMessage;
      const notes: ResponseNotes = {};
      try {
        stream ??= loaders[api]();
        const fn = await stream;
        // maxRetries 0: the SDKs would otherwise retry 408/409/429/5xx on their own, ignoring
        // our cap; retries with backoff and fallbacks are the retrying model's job.
        // A throw the provider leaves unhandled ends this call, not the process (provider-escapes.ts).
        reply = await noteRetryAfter(notes, () =>
          withEscapesCaught(async () => {
            const thinking = thinkingFor(api, req.thinking, model.maxTokens);
            const events = fn({ ...model, ...thinking.model }, context, {
              apiKey: opts.apiKey ?? '',
              signal: req.signal,
              maxRetries: 0,
              ...(opts.capOutput ? { maxTokens: model.maxTokens } : {}),
              ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
              ...thinking.options,
            });
            if (req.onText) await followText(events, req.onText);
            return events.result();
          }),
        );
      } catch (err) {
        stream = undefined;
        return { ok: false, error: (err as Error).message, retriable: true };
      }
      // What the provider counted before it stopped is billed too: the failure carries it.
      const counted = reply.usage && reply.usage.input + reply.usage.output + reply.usage.cacheRead + reply.usage.cacheWrite > 0 ? { usage: reply.usage } : {};
      if (reply.stopReason === 'aborted') return { ok: false, error: 'aborted', retriable: false, ...counted };
      if (reply.stopReason === 'error') {
        const failure = classifyFailure(reply.errorMessage ?? 'the provider reported an error', notes.retryAfterSeconds);
        return { ...failure, error: sayWhereTried(failure.error, model.baseUrl, providerName), ...counted };
      }
      return { ok: true, message: reply };
    },
  };
}

/** Hands each text delta's whole text so far to `onText`; a listener that throws is the listener's problem, never the turn's. */
async function followText(events: AsyncIterable<AssistantMessageEvent>, onText: (text: string) => void): Promise<void> {
  for await (const event of events) {
    if (event.type !== 'text_delta') continue;
    try {
      onText(textOf(event.partial));
    } catch {
      // Drafts are best effort.
    }
  }
}

/**
 * Decides from the provider's message whether asking again can help. The wait the
 * provider asked for comes from its response headers when they were seen (retry-after.ts),
 * else from the message text.
 */
export function classifyFailure(error: string, retryAfterHeader?: number): ModelFailure {
  const status = /^(\d{3})\b/.exec(error)?.[1];
  const code = status ? Number(status) : undefined;
  const retryAfter = /retry[- ]after[":\s]+(\d+(?:\.\d+)?)/i.exec(error)?.[1];
  let retriable: boolean;
  if (code !== undefined) retriable = code === 408 || code === 409 || code === 429 || code >= 500;
  else
    retriable =
      /overloaded|rate.?limit|throttl|unavailable|internal server|timed? ?out|timeout|ECONNRESET|ECONNREFUSED|EPIPE|socket|network|fetch failed|connection error|terminated|premature/i.test(
        error,
      );
  return {
    ok: false,
    error: error.length > 500 ? `${error.slice(0, 500)}…` : error,
    retriable,
    retryAfterSeconds: retryAfterHeader ?? (retryAfter ? Number(retryAfter) : undefined),
  };
}

// What the SDKs say when no connection was made at all ("Connection error." from both
// OpenAI's and Anthropic's), and the system errors beneath it.
const UNREACHABLE = /^connection error\.?$|^fetch failed|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH/i;

/**
 * "Connection error." alone gives a user nothing to act on: a provider that could not be
 * connected to says which host was tried and what sets it. Only the host is named, never the
 * URL's user info or path, which may carry credentials.
 */
export function sayWhereTried(error: string, baseUrl: string, providerName: string): string {
  if (!UNREACHABLE.test(error)) return error;
  let host = '';
  try {
    host = new URL(baseUrl).host;
  } catch {
    // No base URL (Bedrock's SDK picks its regional endpoint): no host to name.
  }
  const where = host ? `could not connect to ${host}` : 'could not connect to the provider';
  // The SDKs say the same when the request could not even be sent: a key a header cannot carry.
  return `${error.replace(/\.$/, '')}: ${where}; check this machine's network or proxy, models.providers.${providerName}.baseUrl, and that the key holds no line break or curly quote`;
}

/** The text of an assistant message (its text blocks, joined). */
export function textOf(message: AssistantMessage): string {
  return message.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
}

/** An assistant message made by the runtime itself (offline model, scripted tests). */
export function assistantMessage(label: string, content: AssistantMessage['content'], now = Date.now()): AssistantMessage {
  const slash = label.indexOf('/');
  return {
    role: 'assistant',
    content,
    api: 'clawfleet',
    provider: slash > 0 ? label.slice(0, slash) : label,
    model: slash > 0 ? label.slice(slash + 1) : label,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: content.some((c) => c.type === 'toolCall') ? 'toolUse' : 'stop',
    timestamp: now,
  };
}
