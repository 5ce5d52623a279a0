// The model port of the turn loop, and its adapter over pi-ai, which speaks each
// provider's wire API (openai-completions, anthropic-messages, bedrock-converse).
import { complete, type AssistantMessage, type Context, type Message, type Model } from '@mariozechner/pi-ai';
import type { ProviderConfig } from '../../shared/config/schema.ts';

export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
}

export interface ModelRequest {
  systemPrompt: string;
  history: ChatTurn[];
  input: string;
  signal?: AbortSignal;
}

export type ModelResult = { ok: true; text: string } | { ok: false; error: string; retriable: boolean };

/** Failures are data: a model never throws into the loop. */
export interface ModelClient {
  readonly label: string;
  complete(req: ModelRequest): Promise<ModelResult>;
}

const piApi = { 'openai-completions': 'openai-completions', 'anthropic-messages': 'anthropic-messages', 'bedrock-converse': 'bedrock-converse-stream' } as const;

const defaultBaseUrl: Record<ProviderConfig['api'], string> = {
  'openai-completions': 'https://api.openai.com/v1',
  'anthropic-messages': 'https://api.anthropic.com',
  'bedrock-converse': '',
};

export function piAiModel(opts: { providerName: string; provider: ProviderConfig; modelId: string; apiKey: string | undefined }): ModelClient {
  const { provider, modelId, providerName } = opts;
  const model: Model<(typeof piApi)[ProviderConfig['api']]> = {
    id: modelId,
    name: modelId,
    api: piApi[provider.api],
    provider: providerName,
    baseUrl: provider.baseUrl ?? defaultBaseUrl[provider.api],
    reasoning: false,
    input: ['text'],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 8_192,
  };
  return {
    label: `${providerName}/${modelId}`,
    async complete(req) {
      const context: Context = {
        systemPrompt: req.systemPrompt,
        messages: [...req.history.map((t) => toMessage(t, model)), { role: 'user', content: req.input, timestamp: Date.now() }],
      };
      let reply: AssistantMessage;
      try {
        reply = await complete(model, context, { apiKey: opts.apiKey ?? '', signal: req.signal });
      } catch (err) {
        return { ok: false, error: (err as Error).message, retriable: true };
      }
      if (reply.stopReason === 'error' || reply.stopReason === 'aborted') {
        return { ok: false, error: reply.errorMessage ?? reply.stopReason, retriable: reply.stopReason === 'error' };
      }
      const text = reply.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
      return text.trim() ? { ok: true, text } : { ok: false, error: 'the model returned no text', retriable: true };
    },
  };
}

function toMessage(turn: ChatTurn, model: Model<never> | Model<any>): Message {
  if (turn.role === 'user') return { role: 'user', content: turn.text, timestamp: 0 };
  return {
    role: 'assistant',
    content: [{ type: 'text', text: turn.text }],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: 'stop',
    timestamp: 0,
  };
}
