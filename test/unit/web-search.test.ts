// web_search against fake Brave Search and Perplexity Search APIs on 127.0.0.1 speaking
// their real wire formats: the request (path, query, count, freshness, key header), the
// results as untrusted title/url/snippet lines, the per-query cache, and rate limits
// (X-RateLimit-*, Retry-After and 429).
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { missingSecrets } from '../../runtime-image/src/secrets/secret-wait.ts';
import { waitFromHeaders } from '../../runtime-image/src/tools/brave-search.ts';
import type { ToolCallContext } from '../../runtime-image/src/tools/tool.ts';
import { webSearchTool } from '../../runtime-image/src/tools/web-search.ts';
import type { RuntimeConfig } from '../../shared/config/resolve.ts';
import { listenLocal, sendJson, type LocalServer } from '../support/fake-http.ts';

const RESULTS = JSON.parse(readFileSync('test/fixtures/brave/web-search.json', 'utf8'));
const PPLX_RESULTS = JSON.parse(readFileSync('test/fixtures/perplexity/search.json', 'utf8'));
const RATE_LIMITED = {
  type: 'ErrorResponse',
  error: {
    id: 'c8f5d6f1',
    status: 429,
    code: 'RATE_LIMITED',
    detail: 'Request rate limit exceeded for plan.',
    meta: { plan: 'Free', rate_limit: 1, rate_current: 2, quota_limit: 2000, quota_current: 12, component: 'rate_limiter' },
  },
  time: 1_780_000_000,
};
const KEY = 'BSA-test-key-0123456789';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };
let server: LocalServer;
const seen: IncomingMessage[] = [];
const answers: Answer[] = [];
const bodies: unknown[] = [];

beforeAll(async () => {
  server = await listenLocal((req, res, body) => {
    seen.push(req);
    if (req.url === '/search') {
      bodies.push(JSON.parse(body.toString()));
      if (req.headers.authorization !== `Bearer ${KEY}`)
        return sendJson(res, 401, { error: { message: 'Invalid API key provided.', type: 'invalid_api_key', code: 401 } });
      const a: Answer = answers.shift() ?? { status: 200, body: PPLX_RESULTS };
      res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
      return void res.end(JSON.stringify(a.body));
    }
    const a = answers.shift() ?? {
      status: 200,
      body: RESULTS,
      headers: { 'x-ratelimit-limit': '1, 2000', 'x-ratelimit-remaining': '0, 1990', 'x-ratelimit-reset': '1, 2419200' },
    };
    if (req.headers['x-subscription-token'] !== KEY)
      return sendJson(res, 422, {
        type: 'ErrorResponse',
        error: { code: 'SUBSCRIPTION_TOKEN_INVALID', detail: 'The provided subscription token is invalid.' },
      });
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(JSON.stringify(a.body));
  });
});
afterAll(() => server.close());

function setup(opts: { maxWaitMs?: number; key?: string; provider?: 'brave' | 'perplexity' } = {}) {
  let now = 1_000_000;
  const sleeps: number[] = [];
  const tool = webSearchTool({
    provider: opts.provider,
    apiKey: opts.key ?? KEY,
    baseUrl: server.url,
    clock: { now: () => now },
    maxWaitMs: opts.maxWaitMs,
    // Time passes when the tool waits: no real sleep in the test.
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  });
  const ctx = { signal: new AbortController().signal } as ToolCallContext;
  const search = async (args: unknown) => {
    const parsed = tool.parse(args);
    if (!parsed.ok) throw new Error(parsed.error);
    return tool.run(parsed.value, ctx);
  };
  return { search, sleeps, advance: (ms: number) => (now += ms) };
}

describe('web_search (Brave)', () => {
  it('asks Brave for the query with count and freshness, with the key in its header, and answers title/url/snippet as untrusted content', async () => {
    seen.length = 0;
    const { search } = setup();
    const r = await search({ query: 'openclaw skills', count: 2, freshness: 'week' });
    const url = new URL(seen[0]!.url!, server.url);
    expect(url.pathname).toBe('/res/v1/web/search');
    expect(Object.fromEntries(url.searchParams)).toEqual({ q: 'openclaw skills', count: '2', freshness: 'pw' });
    expect(seen[0]!.headers['x-subscription-token']).toBe(KEY);
    expect(r).toEqual({
      text: [
        '1. Skills - OpenClaw',
        '   https://docs.openclaw.ai/tools/skills',
        '   (February 11, 2026)',
        "   Skills are folders with a SKILL.md & any files it references. Workspace skills win over managed ones 'by name'.",
        '2. openclaw/openclaw: Your own personal AI assistant',
        '   https://github.com/openclaw/openclaw',
        '   Any OS. Any Platform. The lobster way. 🦞 Skills, cron, browser and more.',
      ].join('\n'),
      untrusted: { source: 'web_search', meta: { query: 'openclaw skills', provider: 'brave' } },
    });
  });

  it('answers the same query from its cache for five minutes, then asks again', async () => {
    seen.length = 0;
    const { search, advance } = setup();
    await search({ query: 'cached' });
    advance(1_500); // past the per-second window the first answer used up
    await search({ query: 'cached' });
    await search({ query: 'cached', count: 3 }); // another question
    expect(seen.length).toBe(2);
    advance(5 * 60_000);
    await search({ query: 'cached' });
    expect(seen.length).toBe(3);
  });

  it('waits out the per-second window a response used up, and retries a 429 once after its reset', async () => {
    seen.length = 0;
    const { search, sleeps } = setup();
    await search({ query: 'one' });
    // The answer said 0 remaining this second: the next search waits a second first.
    answers.push({
      status: 429,
      body: RATE_LIMITED,
      headers: { 'x-ratelimit-limit': '1, 2000', 'x-ratelimit-remaining': '0, 1989', 'x-ratelimit-reset': '1, 2419100' },
    });
    const r = await search({ query: 'two' });
    expect(r.isError).toBeUndefined();
    expect(seen.length).toBe(3);
    expect(sleeps).toEqual([1000, 1000]);
  });

  it('reports an exhausted monthly quota without spending requests on it until it resets', async () => {
    seen.length = 0;
    const { search, advance } = setup();
    answers.push({
      status: 429,
      body: { ...RATE_LIMITED, error: { ...RATE_LIMITED.error, code: 'QUOTA_LIMITED', detail: 'Request quota limit exceeded for plan.' } },
      headers: { 'x-ratelimit-limit': '1, 2000', 'x-ratelimit-remaining': '1, 0', 'x-ratelimit-reset': '1, 86400' },
    });
    const r = await search({ query: 'quota' });
    expect(r).toMatchObject({
      isError: true,
      text: 'the search provider refused: rate limited (QUOTA_LIMITED: Request quota limit exceeded for plan.); the next search is possible in 86400 s',
    });
    const again = await search({ query: 'something else' });
    expect(again).toMatchObject({ isError: true, text: expect.stringMatching(/allows the next search in 86400 s/) });
    expect(seen.length).toBe(1);
    advance(86_400_000);
    expect((await search({ query: 'something else' })).isError).toBeUndefined();
  });

  it("says Brave's own reason for a refused key, and never shows the key", async () => {
    const { search } = setup({ key: 'wrong-key' });
    const r = await search({ query: 'x' });
    expect(r).toEqual({ text: 'the search provider answered 422: SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid.', isError: true });
  });

  it("asks Perplexity's Search API with a POST of query, max_results and recency, and answers its results the same way", async () => {
    seen.length = 0;
    bodies.length = 0;
    const { search } = setup({ provider: 'perplexity' });
    const r = await search({ query: 'openclaw skills', count: 2, freshness: 'month' });
    expect(seen[0]!.method).toBe('POST');
    expect(bodies).toEqual([{ query: 'openclaw skills', max_results: 2, search_recency_filter: 'month' }]);
    expect(r).toEqual({
      text: [
        '1. Skills - OpenClaw',
        '   https://docs.openclaw.ai/tools/skills',
        '   (2026-02-11)',
        '   Skills are folders with a SKILL.md and any files it references. Workspace skills win over managed ones by name.',
        '2. openclaw/openclaw: Your own personal AI assistant',
        '   https://github.com/openclaw/openclaw',
        '   (2026-11-28)',
        '   Any OS. Any Platform. The lobster way.',
      ].join('\n'),
      untrusted: { source: 'web_search', meta: { query: 'openclaw skills', provider: 'perplexity' } },
    });
  });

  it("says Perplexity's reason for a refused key, and honours its 429's Retry-After", async () => {
    expect(await setup({ provider: 'perplexity', key: 'wrong' }).search({ query: 'x' })).toEqual({
      text: 'the search provider answered 401: invalid_api_key: Invalid API key provided.',
      isError: true,
    });
    seen.length = 0;
    const { search, sleeps } = setup({ provider: 'perplexity' });
    answers.push({ status: 429, body: { error: { message: 'Rate limit exceeded', type: 'rate_limit_exceeded', code: 429 } }, headers: { 'retry-after': '2' } });
    expect((await search({ query: 'busy' })).isError).toBeUndefined();
    expect(sleeps).toEqual([2000]);
    expect(seen.length).toBe(2);
  });

  it('reads the rate-limit headers Brave sends', () => {
    const h = (o: Record<string, string>) => new Headers(o);
    expect(waitFromHeaders(h({ 'x-ratelimit-remaining': '5, 1000', 'x-ratelimit-reset': '1, 999' }), 200)).toBe(0);
    expect(waitFromHeaders(h({ 'x-ratelimit-remaining': '0, 1000', 'x-ratelimit-reset': '1, 999' }), 200)).toBe(1000);
    expect(waitFromHeaders(h({ 'retry-after': '7' }), 429)).toBe(7000);
    expect(waitFromHeaders(h({}), 429)).toBe(1000);
  });

  it("needs its key in the agent's own secret when tools.web.search is configured", () => {
    const config = {
      fleet: 'demo',
      agent: { id: 'fran', model: { primary: 'x/y', fallbacks: [] }, runtime: {}, tools: { web: { search: { provider: 'brave' } } } },
      providers: {},
    } as RuntimeConfig;
    expect(missingSecrets(config, {}, { modelKeys: false })).toEqual([{ name: 'BRAVE_API_KEY', usedBy: 'web_search (tools.web.search)' }]);
    expect(missingSecrets(config, { BRAVE_API_KEY: KEY }, { modelKeys: false })).toEqual([]);
  });

  it("takes the operator's baseUrl for the provider only as an http(s) URL, and says so otherwise", async () => {
    const { parseConfig } = await import('../../shared/config/load.ts');
    const withSearch = (search: unknown) => {
      const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
      raw.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { web: { search } };
      return () => parseConfig(raw);
    };
    expect(withSearch({ baseUrl: 'https://search-proxy.example.com' })).not.toThrow();
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'not a url'])
      expect(withSearch({ baseUrl: bad }), bad).toThrow(/tools\.web\.search\.baseUrl.*must be an http\(s\) URL/s);
  });
});
