// Our model adapter over each provider's real wire format (streamed), against the fake
// model server: text, tool calls and their results, errors, retries with backoff. Bedrock's
// ConverseStream (an AWS event stream) has a small fake of its own (test/support/fake-bedrock.ts).
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Message } from '@mariozechner/pi-ai';
import { modelChain } from '../../runtime-image/src/model/model-chain.ts';
import { assistantMessage, piAiModel, textOf, type ModelRequest } from '../../runtime-image/src/model/model.ts';
import { startFakeBedrock, type BedrockCall, type BedrockReply, type FakeBedrock } from '../support/fake-bedrock.ts';
import { start, type FakeModel } from '../support/fake-model.ts';

const KEY = 'sk-test-provider-key-0123456789';
let server: FakeModel;
beforeAll(async () => (server = await start({ apiKey: KEY })));
afterAll(() => server.close());

/** A port nothing listens on: one the OS gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

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

  it('says which host it could not connect to, never the user info of its base URL, and counts that as worth retrying', async () => {
    const closed = await closedPort();
    const result = await piAiModel({
      providerName: 'local-llm',
      provider: { api, baseUrl: `http://user:secret-in-url@127.0.0.1:${closed}/v1` },
      modelId: 'm-1',
      apiKey: KEY,
    }).complete({ systemPrompt: '', tools: [], messages: [user('hi')] });
    expect(result).toMatchObject({ ok: false, retriable: true });
    const error = result.ok ? '' : result.error;
    expect(error).toContain(`could not connect to 127.0.0.1:${closed}`);
    expect(error).toContain('models.providers.local-llm.baseUrl');
    expect(error).not.toContain('secret-in-url');
  });

  it('reports a wrong API key as a failure that is not retried', async () => {
    const result = await client('wrong').complete({ systemPrompt: '', tools: [], messages: [user('hi')] });
    expect(result).toMatchObject({ ok: false, retriable: false });
    expect(JSON.stringify(result)).toMatch(/401|auth|key/i);
  });
});

// ── Bedrock ConverseStream (its AWS event stream framing: test/support/fake-bedrock.ts) ──
describe('the bedrock-converse provider', () => {
  let bedrock: FakeBedrock;
  let baseUrl: string;
  let calls: BedrockCall[];
  let replies: BedrockReply[];
  const saved = { ...process.env };

  beforeAll(async () => {
    // The Bedrock client speaks HTTP/2 by default; pi-ai's switch makes it use HTTP/1.1 for this fake.
    process.env.AWS_BEDROCK_FORCE_HTTP1 = '1';
    // Task-role credentials on AWS; here the SDK's default chain finds these.
    Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDBEDROCKTEST', AWS_SECRET_ACCESS_KEY: 'bedrock-test-secret', AWS_REGION: 'us-east-1' });
    bedrock = await startFakeBedrock();
    ({ baseUrl, calls, replies } = bedrock);
  });
  afterAll(async () => {
    process.env = saved;
    await bedrock.close();
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
