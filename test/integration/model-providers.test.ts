// Our model adapter over each provider's real wire format (streamed), against the fake
// model server: text, tool calls and their results, errors, retries with backoff. Bedrock's
// ConverseStream (an AWS event stream) has a small fake of its own below.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@mariozechner/pi-ai';
import { modelChain } from '../../runtime-image/src/model-chain.ts';
import { assistantMessage, piAiModel, textOf, type ModelRequest } from '../../runtime-image/src/model.ts';
import { start, type FakeModel } from '../support/fake-model.ts';

const KEY = 'sk-test-provider-key-0123456789';
let server: FakeModel;
beforeAll(async () => (server = await start({ apiKey: KEY })));
afterAll(() => server.close());

const user = (text: string): Message => ({ role: 'user', content: text, timestamp: 0 });
const weather = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

describe.each(['openai-completions', 'anthropic-messages'] as const)('the %s provider', (api) => {
  const client = (apiKey = KEY) => piAiModel({ providerName: 'p', provider: { api, baseUrl: server.baseUrls[api] }, modelId: 'm-1', apiKey });
  const ask = (req: Partial<ModelRequest> & { messages: Message[] }) => client().complete({ systemPrompt: '', tools: [], ...req });

  it('sends the system prompt, the history and the new input, and returns the streamed text', async () => {
    server.script({ text: 'The answer is 42.' });
    const result = await ask({
      systemPrompt: 'You are Fran.',
      messages: [user('earlier question'), assistantMessage('p/m-1', [{ type: 'text', text: 'earlier answer' }]), user('what is the answer?')],
    });
    expect(result.ok && textOf(result.message)).toBe('The answer is 42.');
    const req = server.requests().at(-1)!;
    expect(req.api).toBe(api);
    expect(req.lastUserText).toBe('what is the answer?');
    expect(req.body).toMatchObject({ model: 'm-1', stream: true });
    expect(JSON.stringify(req.body)).toContain('You are Fran.');
    expect(JSON.stringify(req.body)).toContain('earlier answer');
  });

  it('offers tools, parses a streamed tool call, and sends the tool result back in the API’s format', async () => {
    server.script({ text: 'Let me check.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Lisbon' } }] }, { text: 'Sunny in Lisbon.' });
    const first = await ask({ messages: [user('weather in Lisbon?')], tools: [weather] });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    const call = first.message.content.find((c) => c.type === 'toolCall');
    expect(call).toMatchObject({ type: 'toolCall', name: 'get_weather', arguments: { city: 'Lisbon' } });
    expect(first.message.stopReason).toBe('toolUse');
    expect(JSON.stringify(server.requests().at(-1)!.body)).toContain('get_weather');

    const second = await ask({
      messages: [
        user('weather in Lisbon?'),
        first.message,
        {
          role: 'toolResult',
          toolCallId: call!.type === 'toolCall' ? call!.id : '',
          toolName: 'get_weather',
          content: [{ type: 'text', text: '22°C, sunny' }],
          isError: false,
          timestamp: 0,
        },
      ],
      tools: [weather],
    });
    expect(second.ok && textOf(second.message)).toBe('Sunny in Lisbon.');
    const body = JSON.stringify(server.requests().at(-1)!.body);
    expect(body).toContain('22°C, sunny');
    expect(body).toContain(api === 'openai-completions' ? '"role":"tool"' : '"type":"tool_result"');
  });

  it('turns a server error into a retriable failure instead of throwing, without the SDK retrying on its own', async () => {
    const before = server.requests().length;
    server.script({ error: { status: 500 } }, { text: 'not asked for' });
    const result = await ask({ messages: [user('hi')] });
    expect(result).toMatchObject({ ok: false, retriable: true, error: expect.stringMatching(/^500\b/) });
    expect(server.requests().length - before).toBe(1);
    expect(server.scripted()).toBe(1);
    await ask({ messages: [user('take the unused reply')] });
  });

  it('retries a 429 with backoff through the model chain, then answers', async () => {
    const before = server.requests().length;
    server.script({ error: { status: 429 } }, { text: 'after the rate limit' });
    const waits: number[] = [];
    const chain = modelChain([client()], { attemptsPerModel: 3, baseDelayMs: 10, maxDelayMs: 100 }, { sleep: async (ms) => void waits.push(ms) });
    const result = await chain.complete({ systemPrompt: '', tools: [], messages: [user('hi')] });
    expect(result.ok && textOf(result.message)).toBe('after the rate limit');
    expect(server.requests().length - before).toBe(2);
    expect(waits).toHaveLength(1);
  });

  it('reports a wrong API key as a failure that is not retried', async () => {
    const result = await client('wrong').complete({ systemPrompt: '', tools: [], messages: [user('hi')] });
    expect(result).toMatchObject({ ok: false, retriable: false });
    expect(JSON.stringify(result)).toMatch(/401|auth|key/i);
  });
});

// ── Bedrock ConverseStream ──────────────────────────────────────────────────────
// The AWS event stream framing: prelude (total length, headers length, CRC32), string
// headers, a JSON payload, and a CRC32 of the whole message.
function eventMessage(eventType: string, payload: unknown): Buffer {
  const header = (name: string, value: string) => {
    const n = Buffer.from(name);
    const v = Buffer.from(value);
    const len = Buffer.alloc(2);
    len.writeUInt16BE(v.length);
    return Buffer.concat([Buffer.from([n.length]), n, Buffer.from([7]), len, v]);
  };
  const headers = Buffer.concat([header(':event-type', eventType), header(':content-type', 'application/json'), header(':message-type', 'event')]);
  const body = Buffer.from(JSON.stringify(payload));
  const prelude = Buffer.alloc(8);
  prelude.writeUInt32BE(16 + headers.length + body.length, 0);
  prelude.writeUInt32BE(headers.length, 4);
  const preludeCrc = Buffer.alloc(4);
  preludeCrc.writeUInt32BE(crc32(prelude));
  const withoutCrc = Buffer.concat([prelude, preludeCrc, headers, body]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(withoutCrc));
  return Buffer.concat([withoutCrc, crc]);
}

interface BedrockCall {
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown>;
}

describe('the bedrock-converse provider', () => {
  let bedrock: Server;
  let baseUrl: string;
  const calls: BedrockCall[] = [];
  const replies: ({ text?: string; tool?: { id: string; name: string; input: object } } | { status: number; type: string })[] = [];
  const saved = { ...process.env };

  beforeAll(async () => {
    // The Bedrock client speaks HTTP/2 by default; pi-ai's switch makes it use HTTP/1.1 for this fake.
    process.env.AWS_BEDROCK_FORCE_HTTP1 = '1';
    // Task-role credentials on AWS; here the SDK's default chain finds these.
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDBEDROCKTEST', AWS_SECRET_ACCESS_KEY: 'bedrock-test-secret', AWS_REGION: 'us-east-1' });
    bedrock = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        calls.push({ path: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw) as Record<string, unknown> });
        const reply = replies.shift() ?? { text: 'echo' };
        if ('status' in reply) {
          res
            .writeHead(reply.status, { 'content-type': 'application/json', 'x-amzn-errortype': reply.type })
            .end(JSON.stringify({ message: `${reply.type}: slow down` }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream' });
        res.write(eventMessage('messageStart', { role: 'assistant' }));
        let index = 0;
        if (reply.text) {
          for (const piece of reply.text.split(/(?<= )/)) res.write(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { text: piece } }));
          res.write(eventMessage('contentBlockStop', { contentBlockIndex: index++ }));
        }
        if (reply.tool) {
          res.write(eventMessage('contentBlockStart', { contentBlockIndex: index, start: { toolUse: { toolUseId: reply.tool.id, name: reply.tool.name } } }));
          const json = JSON.stringify(reply.tool.input);
          for (let i = 0; i < json.length; i += 6)
            res.write(eventMessage('contentBlockDelta', { contentBlockIndex: index, delta: { toolUse: { input: json.slice(i, i + 6) } } }));
          res.write(eventMessage('contentBlockStop', { contentBlockIndex: index }));
        }
        res.write(eventMessage('messageStop', { stopReason: reply.tool ? 'tool_use' : 'end_turn' }));
        res.end(eventMessage('metadata', { usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }, metrics: { latencyMs: 1 } }));
      });
    });
    await new Promise<void>((r) => bedrock.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(bedrock.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    process.env = saved;
    bedrock.close();
  });

  const client = () =>
    piAiModel({ providerName: 'bedrock', provider: { api: 'bedrock-converse', baseUrl }, modelId: 'anthropic.claude-test-v1:0', apiKey: undefined });

  it('streams text and a tool call from ConverseStream, signed with the task role’s credentials (no API key)', async () => {
    replies.push({ text: 'Checking the weather.', tool: { id: 'tooluse_1', name: 'get_weather', input: { city: 'Porto' } } }, { text: 'Rainy in Porto.' });
    const first = await client().complete({ systemPrompt: 'You are Fran.', messages: [user('weather in Porto?')], tools: [weather] });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(textOf(first.message)).toBe('Checking the weather.');
    expect(first.message.content.find((c) => c.type === 'toolCall')).toMatchObject({ id: 'tooluse_1', name: 'get_weather', arguments: { city: 'Porto' } });
    expect(calls[0]!.path).toBe(`/model/${encodeURIComponent('anthropic.claude-test-v1:0')}/converse-stream`);
    expect(calls[0]!.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDBEDROCKTEST\//);
    expect(calls[0]!.body).toMatchObject({ system: [{ text: 'You are Fran.' }], toolConfig: { tools: [{ toolSpec: { name: 'get_weather' } }] } });

    const second = await client().complete({
      systemPrompt: '',
      messages: [
        user('weather in Porto?'),
        first.message,
        { role: 'toolResult', toolCallId: 'tooluse_1', toolName: 'get_weather', content: [{ type: 'text', text: '14°C, rain' }], isError: false, timestamp: 0 },
      ],
      tools: [weather],
    });
    expect(second.ok && textOf(second.message)).toBe('Rainy in Porto.');
    expect(JSON.stringify(calls[1]!.body)).toMatch(/"toolResult":\{"toolUseId":"tooluse_1".*14°C, rain/);
  });

  // /think <level> (a session's thinking level) at the provider boundary: what ConverseStream is asked for.
  const thinkingAsked = async (modelId: string, thinking: ModelRequest['thinking']) => {
    const before = calls.length;
    const result = await piAiModel({ providerName: 'bedrock', provider: { api: 'bedrock-converse', baseUrl }, modelId, apiKey: undefined }).complete({
      systemPrompt: '',
      messages: [user('think about it')],
      tools: [],
      thinking,
    });
    expect(result.ok).toBe(true);
    expect(calls).toHaveLength(before + 1);
    return calls.at(-1)!.body;
  };

  it.each([
    ['minimal', 1_024],
    ['low', 2_048],
    ['medium', 8_192],
    ['high', 16_384],
  ] as const)('asks Claude on Bedrock for a thinking budget under /think %s (%i tokens), in additionalModelRequestFields', async (level, budget) => {
    const body = await thinkingAsked('anthropic.claude-test-v1:0', level);
    expect(body.additionalModelRequestFields).toEqual({
      thinking: { type: 'enabled', budget_tokens: budget, display: 'summarized' },
      anthropic_beta: ['interleaved-thinking-2025-05-14'],
    });
    // No maxTokens of ours under the budget: Bedrock's default is the model's maximum, which leaves room for the answer.
    expect((body.inferenceConfig as { maxTokens?: number } | undefined)?.maxTokens).toBeUndefined();
  });

  it('asks an adaptive-thinking Claude (an inference profile id) for an effort instead of a budget', async () => {
    const body = await thinkingAsked('us.anthropic.claude-sonnet-4-6', 'minimal');
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'low' } });
  });

  it.each([
    ['/think off', 'anthropic.claude-test-v1:0', 'off'],
    ['no /think', 'anthropic.claude-test-v1:0', undefined],
    // A Bedrock model that is not Claude has no thinking field to ask with: it answers as before (what /think says it does).
    ['/think high on a model that is not Claude', 'amazon.nova-pro-v1:0', 'high'],
  ] as const)('asks for no thinking under %s', async (_name, modelId, level) => {
    const body = await thinkingAsked(modelId, level);
    expect(body.additionalModelRequestFields).toBeUndefined();
    expect(JSON.stringify(body)).not.toMatch(/thinking|budget_tokens|effort/);
  });

  it('reports throttling as a retriable failure', async () => {
    replies.push(
      { status: 429, type: 'ThrottlingException' },
      { status: 429, type: 'ThrottlingException' },
      { status: 429, type: 'ThrottlingException' },
      { status: 429, type: 'ThrottlingException' },
    );
    const result = await client().complete({ systemPrompt: '', messages: [user('hi')], tools: [] });
    expect(result).toMatchObject({ ok: false, retriable: true });
    replies.length = 0;
  });
});
