// `npm start`'s fleet, started in-process: the local control plane, a runtime child
// process per agent, chat over its HTTP API.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import { startLocalFleet, type LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';

const FRAN_KEY = 'sk-test-local-fran-0123456789abcdef';
let fleet: LocalFleet;
let model: FakeModel;
const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];

async function chat(agentId: string, text: string): Promise<string> {
  const res = await fetch(`${fleet.url}/api/chat/${agentId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text }) });
  expect(res.status).toBe(202);
  return text;
}

async function replyTo(agentId: string, predicate: (text: string) => boolean, timeout = 20_000): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const { messages } = (await (await fetch(`${fleet.url}/api/chat/${agentId}/messages?after=0`)).json()) as { messages: { role: string; text: string }[] };
        found = messages.find((m) => m.role === 'agent' && predicate(m.text))?.text;
        return found !== undefined;
      },
      { timeout, interval: 100 },
    )
    .toBe(true);
  return found!;
}

beforeAll(async () => {
  model = await startModel({ apiKey: FRAN_KEY });
  const dir = mkdtempSync(join(tmpdir(), 'cf-local-'));
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: FRAN_KEY } }));
  fleet = await startLocalFleet({
    configPath: join(dir, 'clawfleet.json'),
    secretsPath: join(dir, 'secrets.json'),
    stateDir: join(dir, 'workspaces'),
    port: 0,
    log: memoryLogger(),
    onRuntimeLine: (agentId, line) => runtimeLines.push({ agentId, line }),
  });
  // Every runtime says it is ready before the tests talk to it.
  const deadline = Date.now() + 20_000;
  while (!fleet.cp.config.agents.list.every((a) => fleet.supervisor.state(a.id) === 'running')) {
    if (Date.now() > deadline) throw new Error(`runtimes not ready: ${JSON.stringify(runtimeLines.slice(-10))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
});

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
});

describe('the local fleet', () => {
  it('answers in the chat with the agent’s real model when it has a key', async () => {
    await chat('fran', 'hello from the browser');
    expect(await replyTo('fran', (t) => t === 'echo: hello from the browser')).toBeTruthy();
    expect(model.requests().at(-1)?.headers.authorization).toBe(`Bearer ${FRAN_KEY}`);
  });

  it('answers with a clearly labelled offline model when the agent has no key', async () => {
    await chat('grif', 'anyone there?');
    const text = await replyTo('grif', (t) => t.includes('anyone there?'));
    expect(text).toMatch(/^\[offline model — not an AI\] no OPENAI_API_KEY/);
    const agents = (await (await fetch(`${fleet.url}/api/agents`)).json()) as { agents: { id: string; model: string }[] };
    expect(agents.agents.find((a) => a.id === 'grif')?.model).toMatch(/^offline/);
  });

  it('keeps other agents’ secrets out of each runtime’s environment', async () => {
    const pid = fleet.supervisor.pid('grif')!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    expect(environ).toContain('CLAWFLEET_AGENT_ID=grif');
    expect(environ).not.toContain(FRAN_KEY);
  });

  it('restarts a killed agent without touching the others, and answers what was sent while it was down', async () => {
    const franPid = fleet.supervisor.pid('fran');
    process.kill(fleet.supervisor.pid('ray')!, 'SIGKILL');
    await chat('ray', 'are you back?');
    await chat('fran', 'still here?');
    expect(await replyTo('fran', (t) => t === 'echo: still here?')).toBeTruthy();
    expect(await replyTo('ray', (t) => t.includes('are you back?'))).toBeTruthy();
    expect(fleet.supervisor.pid('fran')).toBe(franPid);
  });

  it('refuses a runtime call without a valid runtime token', async () => {
    const res = await fetch(`${fleet.url}/runtime/receive`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{"waitSeconds":0}' });
    expect(res.status).toBe(401);
  });
});
