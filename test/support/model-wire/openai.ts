// OpenAI chat completions on the wire: request checks, error bodies, the JSON completion and
// the SSE chunk stream (`data: {chunk}` lines ending in `data: [DONE]`).
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import {
  describeIssue,
  estimateTokens,
  jsonFragments,
  lastUserTextOf,
  outputTokens,
  sseData,
  textPieces,
  type ModelReply,
  type ReplyContext,
  type WireApi,
} from './common.ts';

const ContentPart = z.looseObject({ type: z.string(), text: z.string().optional() });
const ChatRequest = z.looseObject({
  model: z.string(),
  messages: z.array(z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(ContentPart), z.null()]).optional() })).min(1),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
});

// OpenAI's error `type`/`code` and stock message per status.
const ERRORS: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided.' },
  404: { type: 'invalid_request_error', code: null, message: 'Not found' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
  500: { type: 'server_error', code: null, message: 'The server had an error while processing your request. Sorry about that!' },
  503: { type: 'server_error', code: null, message: 'The engine is currently overloaded, please try again later' },
};

function errorBody(status: number, message?: string): unknown {
  const known = ERRORS[status] ?? { type: status >= 500 ? 'server_error' : 'invalid_request_error', code: null, message: `HTTP ${status}` };
  return { error: { message: message ?? known.message, type: known.type, param: null, code: known.code } };
}

function finishReason(reply: ModelReply): 'tool_calls' | 'stop' {
  return reply.toolCalls && reply.toolCalls.length > 0 ? 'tool_calls' : 'stop';
}

function usage(reply: ModelReply, ctx: ReplyContext) {
  const completion = reply.usage?.output ?? outputTokens(reply);
  const prompt = reply.usage?.input ?? ctx.inputTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
}

function withIds(reply: ModelReply, ctx: ReplyContext) {
  return (reply.toolCalls ?? []).map((call) => ({ ...call, id: call.id ?? ctx.nextId('call_') }));
}

export const openaiCompletions: WireApi = {
  api: 'openai-completions',
  paths: ['/v1/chat/completions', '/chat/completions'],

  checkHeaders(headers: IncomingHttpHeaders, apiKey: string | undefined) {
    const auth = headers.authorization;
    if (!auth?.startsWith('Bearer ')) {
      return {
        status: 401,
        body: errorBody(
          401,
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        ),
      };
    }
    if (apiKey !== undefined && auth !== `Bearer ${apiKey}`) return { status: 401, body: errorBody(401) };
    return undefined;
  },

  parse(body) {
    const parsed = ChatRequest.safeParse(body);
    if (!parsed.success) return { ok: false, error: { status: 400, body: errorBody(400, describeIssue(parsed.error.issues)) } };
    const { model, messages, stream, stream_options } = parsed.data;
    return {
      ok: true,
      request: {
        model,
        stream: stream === true,
        includeUsage: stream_options?.include_usage === true,
        lastUserText: lastUserTextOf(messages),
        inputTokens: estimateTokens(messages),
      },
    };
  },

  error: errorBody,

  respond(reply, ctx) {
    const toolCalls = withIds(reply, ctx);
    const message = {
      role: 'assistant',
      content: reply.text ?? null,
      refusal: null,
      annotations: [],
      ...(toolCalls.length > 0 && {
        tool_calls: toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.arguments) },
        })),
      }),
    };
    return {
      id: ctx.nextId('chatcmpl-'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: ctx.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(reply) }],
      usage: usage(reply, ctx),
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
    };
  },

  stream(reply, ctx) {
    const base = {
      id: ctx.nextId('chatcmpl-'),
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model: ctx.model,
      service_tier: 'default',
      system_fingerprint: 'fp_fake',
      // With include_usage every chunk carries `usage: null` until the last one.
      ...(ctx.includeUsage && { usage: null }),
    };
    const chunk = (delta: object, finish: string | null = null) => sseData({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });

    const frames = [chunk({ role: 'assistant', content: reply.text ? '' : null, refusal: null })];
    for (const piece of textPieces(reply.text ?? '')) frames.push(chunk({ content: piece }));
    withIds(reply, ctx).forEach((call, index) => {
      // The first delta of a call names it; later ones carry only `index` and argument fragments.
      frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }));
      for (const fragment of jsonFragments(JSON.stringify(call.arguments))) {
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }));
      }
    });
    frames.push(chunk({}, finishReason(reply)));
    if (ctx.includeUsage) frames.push(sseData({ ...base, choices: [], usage: usage(reply, ctx) }));
    frames.push(sseData('[DONE]'));
    return frames;
  },
};
