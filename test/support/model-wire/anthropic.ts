// Anthropic messages on the wire: header checks (x-api-key, anthropic-version), error bodies,
// the JSON message and the SSE event sequence (`event:` + `data:` lines, with a ping).
import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import {
  describeIssue,
  estimateTokens,
  jsonFragments,
  lastUserTextOf,
  outputTokens,
  textPieces,
  type ModelReply,
  type ReplyContext,
  type WireApi,
} from './common.ts';

const MessagesRequest = z.looseObject({
  model: z.string(),
  max_tokens: z.number().int().positive(),
  messages: z.array(
    z.looseObject({
      role: z.enum(['user', 'assistant']),
      content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
    }),
  ),
  system: z.union([z.string(), z.array(z.looseObject({ type: z.literal('text'), text: z.string() }))]).optional(),
  stream: z.boolean().optional(),
});

// Anthropic's error `type` and stock message per status (529 is its "overloaded").
const ERRORS: Record<number, { type: string; message: string }> = {
  400: { type: 'invalid_request_error', message: 'Invalid request' },
  401: { type: 'authentication_error', message: 'invalid x-api-key' },
  403: { type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  404: { type: 'not_found_error', message: 'Not found' },
  413: { type: 'request_too_large', message: 'Request exceeds the maximum allowed number of bytes.' },
  429: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' },
  500: { type: 'api_error', message: 'Internal server error' },
  529: { type: 'overloaded_error', message: 'Overloaded' },
};

function errorBody(status: number, message?: string): unknown {
  const known = ERRORS[status] ?? { type: status >= 500 ? 'api_error' : 'invalid_request_error', message: `HTTP ${status}` };
  const request_id = `req_fake${randomBytes(8).toString('hex')}`;
  return { type: 'error', error: { type: known.type, message: message ?? known.message }, request_id };
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocks(reply: ModelReply, ctx: ReplyContext): Block[] {
  const result: Block[] = [];
  if (reply.text) result.push({ type: 'text', text: reply.text });
  for (const call of reply.toolCalls ?? []) {
    result.push({ type: 'tool_use', id: call.id ?? ctx.nextId('toolu_'), name: call.name, input: call.arguments });
  }
  return result;
}

function stopReason(reply: ModelReply): 'tool_use' | 'end_turn' {
  return reply.toolCalls && reply.toolCalls.length > 0 ? 'tool_use' : 'end_turn';
}

function event(name: string, data: object): string {
  return `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
}

export const anthropicMessages: WireApi = {
  api: 'anthropic-messages',
  paths: ['/v1/messages', '/messages'],

  checkHeaders(headers: IncomingHttpHeaders, apiKey: string | undefined) {
    const key = headers['x-api-key'];
    if (typeof key !== 'string' || key === '') return { status: 401, body: errorBody(401, 'x-api-key header is required') };
    if (apiKey !== undefined && key !== apiKey) return { status: 401, body: errorBody(401) };
    if (!headers['anthropic-version']) return { status: 400, body: errorBody(400, 'anthropic-version: header is required') };
    return undefined;
  },

  parse(body) {
    const parsed = MessagesRequest.safeParse(body);
    if (!parsed.success) return { ok: false, error: { status: 400, body: errorBody(400, describeIssue(parsed.error.issues)) } };
    const { model, messages, system, stream } = parsed.data;
    return {
      ok: true,
      request: {
        model,
        stream: stream === true,
        includeUsage: true, // Anthropic always reports usage
        lastUserText: lastUserTextOf(messages),
        inputTokens: estimateTokens([system ?? '', messages]),
      },
    };
  },

  error: errorBody,

  respond(reply, ctx) {
    return {
      id: ctx.nextId('msg_'),
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: blocks(reply, ctx),
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: {
        input_tokens: reply.usage?.input ?? ctx.inputTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: reply.usage?.output ?? outputTokens(reply),
      },
    };
  },

  stream(reply, ctx) {
    const message = {
      id: ctx.nextId('msg_'),
      type: 'message',
      role: 'assistant',
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: reply.usage?.input ?? ctx.inputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 },
    };
    const frames = [event('message_start', { message })];
    blocks(reply, ctx).forEach((block, index) => {
      // Tool input arrives only as JSON fragments: the start event's `input` is always empty.
      const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
      frames.push(event('content_block_start', { index, content_block: start }));
      // The real API slips a ping in after the first block starts; clients must skip it.
      if (index === 0) frames.push(event('ping', {}));
      const deltas =
        block.type === 'text'
          ? textPieces(block.text).map((text) => ({ type: 'text_delta', text }))
          : ['', ...jsonFragments(JSON.stringify(block.input))].map((partial_json) => ({ type: 'input_json_delta', partial_json }));
      for (const delta of deltas) frames.push(event('content_block_delta', { index, delta }));
      frames.push(event('content_block_stop', { index }));
    });
    frames.push(
      event('message_delta', {
        delta: { stop_reason: stopReason(reply), stop_sequence: null },
        usage: { output_tokens: reply.usage?.output ?? outputTokens(reply) },
      }),
    );
    frames.push(event('message_stop', {}));
    return frames;
  },
};
