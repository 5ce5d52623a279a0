// web_search's key end to end (#19): two agents of a local fleet, each with its own Brave key in
// its own secret, their runtimes child processes fed by the supervisor; the model (the fake
// model server over HTTP) asks each to search, and a fake Brave Search API (tools.web.search.baseUrl)
// records the X-Subscription-Token of every request: each agent's searches carry its own key,
// never the other's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { listenLocal, sendJson, type LocalServer } from '../support/fake-http.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

const MODEL_KEY = 'sk-test-local-search-0123456789abcdef';
const BRAVE_KEYS = { fran: 'BSA-fran-0123456789abcdef', ray: 'BSA-ray-fedcba9876543210' } as const;
const QUERIES = { fran: 'lobster rolls in Portland', ray: 'jazz records in Lisbon' } as const;
const RESULTS = JSON.parse(readFileSync('test/fixtures/brave/web-search.json', 'utf8'));
let fleet: LocalFleet;
let model: FakeModel;
let brave: LocalServer;
const searches: { query: string | null; token: string | undefined }[] = [];
const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];

beforeAll(async () => {
  brave = await listenLocal((req, res) => {
    const url = new URL(req.url ?? '/', 'http://brave');
    const token = req.headers['x-subscription-token'];
    searches.push({ query: url.searchParams.get('q'), token: typeof token === 'string' ? token : undefined });
    if (url.pathname !== '/res/v1/web/search') return sendJson(res, 404, { type: 'ErrorResponse', error: { code: 'NOT_FOUND' } });
    sendJson(res, 200, RESULTS);
  });
  // Asked with no tool result yet: search for what the user said; then answer from the result.
  model = await startModel({
    apiKey: MODEL_KEY,
    responder: (request) => {
      const messages = (request.body as { messages: { role: string }[] }).messages;
      return messages.some((m) => m.role === 'tool')
        ? { text: `searched: ${request.lastUserText}` }
        : { toolCalls: [{ name: 'web_search', arguments: { query: request.lastUserText } }] };
    },
  });
  const dir = tempDir('cf-search-local-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  const tools = { deny: ['exec'], web: { search: { provider: 'brave', baseUrl: brave.url, cacheTtlMinutes: 0 } } };
  config.agents.list = [
    { id: 'fran', name: 'Fran', default: true, tools },
    { id: 'ray', name: 'Ray', tools },
  ];
  config.bindings = config.bindings.filter((b: { agentId: string }) => b.agentId in BRAVE_KEYS);
  config.channels.telegram.accounts = { fran: config.channels.telegram.accounts.fran, ray: config.channels.telegram.accounts.ray };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY, BRAVE_API_KEY: BRAVE_KEYS.fran },
      'clawfleet/demo/agents/ray': { OPENAI_API_KEY: MODEL_KEY, BRAVE_API_KEY: BRAVE_KEYS.ray },
    }),
  );
  fleet = await startFleet({ dir, running: ['fran', 'ray'], onRuntimeLine: (agentId, line) => runtimeLines.push({ agentId, line }) });
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
  await brave?.close();
});

describe('web_search in a fleet of two agents', () => {
  it("sends each agent's own Brave key as X-Subscription-Token, and never another agent's", async () => {
    for (const id of ['fran', 'ray'] as const) expect((await postChat(fleet, id, QUERIES[id])).status).toBe(202);
    for (const id of ['fran', 'ray'] as const) {
      await expect
        .poll(async () => (await chatLines(fleet, id)).some((m) => m.role === 'agent' && m.text === `searched: ${QUERIES[id]}`), {
          timeout: 20_000,
          interval: 100,
        })
        .toBe(true);
    }
    // Each agent searched once, and the search reached Brave with that agent's key alone.
    expect(searches.filter((s) => s.query === QUERIES.fran).map((s) => s.token)).toEqual([BRAVE_KEYS.fran]);
    expect(searches.filter((s) => s.query === QUERIES.ray).map((s) => s.token)).toEqual([BRAVE_KEYS.ray]);
    expect(searches).toHaveLength(2);
    // The model saw the results, not the key.
    const sent = JSON.stringify(model.requests().map((r) => r.body));
    expect(sent).toContain('https://docs.openclaw.ai/tools/skills');
    for (const key of Object.values(BRAVE_KEYS)) expect(sent).not.toContain(key);
  });
});
