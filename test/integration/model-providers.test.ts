// Our model adapter over each provider's real wire format (streamed), against the fake model server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { piAiModel } from '../../runtime-image/src/model.ts';
import { start, type FakeModel } from '../support/fake-model.ts';

const KEY = 'sk-test-provider-key-0123456789';
let server: FakeModel;
beforeAll(async () => (server = await start({ apiKey: KEY })));
afterAll(() => server.close());

describe.each(['openai-completions', 'anthropic-messages'] as const)('the %s provider', (api) => {
  const client = () => piAiModel({ providerName: 'p', provider: { api, baseUrl: server.baseUrls[api] }, modelId: 'm-1', apiKey: KEY });

  it('sends the system prompt, the history and the new input, and returns the streamed text', async () => {
    server.script({ text: 'The answer is 42.' });
    const result = await client().complete({
      systemPrompt: 'You are Fran.',
      history: [{ role: 'user', text: 'earlier question' }, { role: 'assistant', text: 'earlier answer' }],
      input: 'what is the answer?',
    });
    expect(result).toEqual({ ok: true, text: 'The answer is 42.' });
    const req = server.requests().at(-1)!;
    expect(req.api).toBe(api);
    expect(req.lastUserText).toBe('what is the answer?');
    expect(req.body).toMatchObject({ model: 'm-1', stream: true });
    expect(JSON.stringify(req.body)).toContain('You are Fran.');
    expect(JSON.stringify(req.body)).toContain('earlier answer');
  });

  it('turns a server error into a failure result instead of throwing', async () => {
    server.script({ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } });
    const result = await client().complete({ systemPrompt: '', history: [], input: 'hi' });
    expect(result).toMatchObject({ ok: false, retriable: true, error: expect.any(String) });
  });

  it('reports a wrong API key as a failure that names the problem', async () => {
    const bad = piAiModel({ providerName: 'p', provider: { api, baseUrl: server.baseUrls[api] }, modelId: 'm-1', apiKey: 'wrong' });
    const result = await bad.complete({ systemPrompt: '', history: [], input: 'hi' });
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).toMatch(/401|auth|key/i);
  });
});
