// The control plane's features in local mode, through the local fleet's HTTP API with each
// runtime a child process and the fake model scripting tool calls: HTTP hooks, a hibernated
// agent woken by a message, agent-to-agent messages (allowed and refused), an agent's own
// cron job, and a config cron job fired by the local scheduler.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { memoryLogger } from '../../shared/log.ts';
import { start as startModel, type FakeModel, type ModelReply, type ModelRequest } from '../support/fake-model.ts';
import { captureIO } from '../unit/cli-io.ts';
import { chatLines as readChat, dashboardAuth, postChat } from '../support/local-api.ts';
import { startFleet } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

const KEY = 'sk-test-local-cp-0123456789abcdef';
const HOOKS_TOKEN = 'hooks-token-0123456789abcdef';
let fleet: LocalFleet;
let model: FakeModel;
let dir: string;
const log = memoryLogger();
/** The schedules' clock runs this far ahead of the real one; a test moves it to fire a job now. */
let scheduleSkewMs = 0;

/** A hook's message reaches the model wrapped as untrusted content; the fake model reads the text inside. */
const HOOK_BLOCK = /^<<<UNTRUSTED_CONTENT id=([0-9a-f]{16}) source=hook>>>\n(?:.*\n)*?---\n([\s\S]*)\n<<<END_UNTRUSTED_CONTENT id=\1>>>$/;
const hookText = (text: string) => HOOK_BLOCK.exec(text)?.[2] ?? text;

/** The fake model: echoes, except where a user message asks for a tool; after a tool result it says so. */
function responder(request: ModelRequest): ModelReply {
  const messages = (request.body as { messages?: { role: string; content?: unknown }[] }).messages ?? [];
  if (messages.at(-1)?.role === 'tool') return { text: `tool said: ${JSON.stringify(messages.at(-1)!.content).slice(0, 200)}` };
  const text = hookText(request.lastUserText);
  if (text.includes('heartbeat check')) return { text: 'HEARTBEAT_OK' };
  let m: RegExpExecArray | null;
  if ((m = /^ask (\w+): (.+)$/.exec(text))) return { toolCalls: [{ name: 'sessions_send', arguments: { agentId: m[1], message: m[2] } }] };
  if ((m = /^remind me at (\S+) to (.+)$/.exec(text))) {
    return { toolCalls: [{ name: 'cron', arguments: { action: 'add', jobId: 'stretch', schedule: { kind: 'at', at: m[1] }, message: m[2] } }] };
  }
  return { text: `echo: ${text}` };
}

beforeAll(async () => {
  model = await startModel({ apiKey: KEY, responder });
  dir = tempDir('cf-local-cp-');
  const config = {
    fleet: 'lcp',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'fran', default: true }, { id: 'ray' }, { id: 'grif', heartbeat: { every: '1m', prompt: 'heartbeat check' } }],
    },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY', baseUrl: model.baseUrls['openai-completions'] } } },
    // Callers may choose hook sessions and, as this operator allows, the main session.
    hooks: { tokenSecret: 'HOOKS_TOKEN', allowRequestSessionKey: true, allowedSessionKeyPrefixes: ['hook:', 'main'] },
    agentToAgent: { allow: [{ from: 'fran', to: 'ray' }] },
    cron: { jobs: [{ id: 'tick', agentId: 'grif', schedule: { kind: 'every', every: '1m' }, payload: { kind: 'agentTurn', message: 'cron says hello' } }] },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  const agentSecret = { OPENAI_API_KEY: KEY };
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/lcp/agents/fran': agentSecret,
      'clawfleet/lcp/agents/ray': agentSecret,
      'clawfleet/lcp/agents/grif': agentSecret,
      'clawfleet/lcp/control/hooks': { HOOKS_TOKEN },
    }),
  );
  fleet = await startFleet({ dir, log, running: 'all', scheduleClock: { now: () => Date.now() + scheduleSkewMs } });
});

afterAll(async () => {
  await fleet?.stop();
  await model?.close();
});

async function until(check: () => boolean | Promise<boolean>, what: string, timeout = 20_000): Promise<void> {
  await expect.poll(check, { timeout, interval: 100, message: what }).toBe(true);
}

async function chat(agentId: string, text: string): Promise<void> {
  const res = await postChat(fleet, agentId, text);
  expect(res.status).toBe(202);
}

async function chatLines(agentId: string): Promise<{ role: string; text: string }[]> {
  return readChat(fleet, agentId);
}

async function agentSaid(agentId: string, text: string, timeout = 20_000): Promise<void> {
  await until(async () => (await chatLines(agentId)).some((m) => m.role === 'agent' && m.text === text), `${agentId} says "${text}"`, timeout);
}

function hook(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${fleet.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${HOOKS_TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

const modelSaw = (text: string) => model.requests().some((r) => hookText(r.lastUserText) === text);

describe('hooks in local mode', () => {
  it('queues POST /hooks/agent for the agent, and its answer reaches the session’s chat', async () => {
    await chat('fran', 'hi fran');
    await agentSaid('fran', 'echo: hi fran');
    const res = await hook('/hooks/agent', { message: 'a hook says hi', agentId: 'fran', sessionKey: 'agent:fran:main', name: 'Test' });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { ok: boolean; envelopeId: string; sessionKey: string };
    expect(body).toMatchObject({ ok: true, sessionKey: 'agent:fran:main' });
    expect(body.envelopeId).toMatch(/^hook\./);
    await agentSaid('fran', 'echo: a hook says hi');
    expect(model.requests().some((r) => HOOK_BLOCK.test(r.lastUserText) && hookText(r.lastUserText) === 'a hook says hi')).toBe(true);
  });

  it('answers a hook in its own session without delivering it anywhere', async () => {
    const res = await hook('/hooks/agent', { message: 'log this one', agentId: 'fran' });
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ sessionKey: 'agent:fran:hook:default' });
    await until(
      () => log.lines.some((l) => l.msg === 'reply not delivered: its inbound has nobody to answer' && l.sessionKey === 'agent:fran:hook:default'),
      'the hook session’s reply logged',
    );
    expect(modelSaw('log this one')).toBe(true);
  });

  it('refuses hooks without the bearer token, with a token in the query, or by GET', async () => {
    const noAuth = await fetch(`${fleet.url}/hooks/agent`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"message":"x"}' });
    expect(noAuth.status).toBe(401);
    const wrong = await hook('/hooks/agent', { message: 'x' }, { authorization: 'Bearer not-the-token-at-all' });
    expect(wrong.status).toBe(401);
    const query = await fetch(`${fleet.url}/hooks/agent?token=${HOOKS_TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":"x"}',
    });
    expect(query.status).toBe(400);
    const get = await fetch(`${fleet.url}/hooks/agent`);
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    const unknown = await hook('/hooks/nope', { message: 'x' });
    expect(unknown.status).toBe(404);
    expect(modelSaw('x')).toBe(false);
  });

  it('wakes a hibernated agent for a hook, through the registry as on AWS', async () => {
    const io = captureIO({ cwd: dir });
    expect(await runCli(['runtime', 'hibernate', '--agent', 'ray', '--state', 'state'], io)).toBe(0);
    expect(fleet.supervisor.state('ray')).toBe('hibernating');
    expect((await fleet.cp.registry.get('ray'))?.state).toBe('asleep');

    const res = await hook('/hooks/agent', { message: 'wake up, ray', agentId: 'ray' });
    expect(res.status).toBe(202);
    // Woken by the hook itself (not by the next health tick): the registry says so at once.
    expect((await fleet.cp.registry.get('ray'))?.state).toMatch(/waking|awake/);
    await until(() => modelSaw('wake up, ray'), 'ray answers the hook');
    await until(async () => (await fleet.cp.registry.get('ray'))?.state === 'awake', 'ray awake in the registry');
    expect(fleet.supervisor.state('ray')).toBe('running');
    expect(log.lines.some((l) => l.msg === 'agent waking' && l.agentId === 'ray' && l.reason === 'hook')).toBe(true);
  });
});

describe('agent-to-agent messages in local mode', () => {
  it('relays a permitted sessions_send and brings the answer back into the asker’s session', async () => {
    await chat('fran', 'ask ray: what is 2+2?');
    await agentSaid('fran', 'echo: [Answer from agent ray] echo: [Message from agent fran] what is 2+2?', 30_000);
    expect(modelSaw('[Message from agent fran] what is 2+2?')).toBe(true);
  });

  it('refuses a sessions_send the config does not allow, into the sender’s outbox dead letters', async () => {
    const before = fleet.cp.dlq('fran').depth;
    await chat('fran', 'ask grif: are you there?');
    await until(() => fleet.cp.dlq('fran').depth > before, 'the refused agent_send parked');
    expect(fleet.cp.dlq('fran').list(1)[0]!.reason).toMatch(/^RELAY_NOT_ALLOWED: agentToAgent.allow does not let "fran" message "grif"/);
    expect(log.lines.some((l) => l.msg === 'outbox envelope rejected' && l.agentId === 'fran' && l.code === 'RELAY_NOT_ALLOWED')).toBe(true);
    const status = await fetch(`${fleet.url}/api/agents`, { headers: dashboardAuth(fleet) });
    expect(status.status).toBe(200);
    // grif never hears of it: refused into the DLQ (awaited above) is the envelope's one outcome, never a relay too.
    expect(model.requests().some((r) => r.lastUserText.includes('are you there?') && r.lastUserText.includes('[Message from agent'))).toBe(false);
  });
});

describe('cron in local mode', () => {
  it('schedules an agent’s own job from its cron tool call, fires it on time, and removes the one-off after', async () => {
    // 20 s ahead: the turn that schedules it must come first, and a time already past is refused;
    // 8 s was a guess a busy machine could lose.
    const at = new Date(Date.now() + 20_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await chat('fran', `remind me at ${at} to stretch your legs`);
    await until(async () => (await fleet.cp.scheduler.list('agent-fran-')).includes('agent-fran-stretch'), 'the job scheduled');
    expect(fleet.cp.scheduler.get('agent-fran-stretch')).toMatchObject({ expression: `at(${at.slice(0, 19)})`, nextAt: Date.parse(at) });
    await agentSaid('fran', 'echo: stretch your legs', 60_000);
    const turn = model.requests().find((r) => r.lastUserText === 'stretch your legs')!;
    expect(turn.at).toBeGreaterThanOrEqual(Date.parse(at));
    expect(await fleet.cp.scheduler.list('agent-fran-')).toEqual([]);
  }, 120_000);

  it('fires a config job with a short `every` and the agent’s heartbeat when their time comes, and the turns run', async () => {
    await chat('grif', 'hi grif');
    await agentSaid('grif', 'echo: hi grif');
    const schedule = fleet.cp.scheduler.get('config-grif-tick')!;
    expect(schedule).toMatchObject({ expression: 'rate(1 minute)', nextAt: schedule.createdAt + 60_000 });
    expect(modelSaw('cron says hello')).toBe(false);
    // A minute passes for the scheduler (the real clock is not waited for).
    scheduleSkewMs = 61_000;
    await agentSaid('grif', 'echo: cron says hello', 30_000);
    expect(fleet.cp.scheduler.get('config-grif-tick')).toMatchObject({ lastFiredAt: schedule.nextAt, nextAt: schedule.createdAt + 120_000 });
    expect(model.requests().filter((r) => r.lastUserText === 'cron says hello')).toHaveLength(1);
    // The heartbeat fired too; its HEARTBEAT_OK is not delivered.
    await until(() => model.requests().some((r) => r.lastUserText === '[System event] heartbeat check'), 'the heartbeat turn');
    expect(fleet.cp.scheduler.get('heartbeat-grif')).toMatchObject({ expression: 'rate(1 minute)', lastFiredAt: expect.any(Number) });
    // Its turn has ended (the status follows any reply on the agent's outbox), so whatever it was going to
    // say has been said: no fixed wait for "nothing more comes".
    await until(
      () => log.lines.some((l) => l.msg === 'runtime status' && l.agentId === 'grif' && l.turn === 'ended' && String(l.inboundId).startsWith('hb.grif.')),
      'the heartbeat turn ended',
    );
    expect((await chatLines('grif')).some((m) => m.text.includes('HEARTBEAT_OK'))).toBe(false);
  });
});

describe('the state that outlives a run', () => {
  it('keeps agents’ own jobs and replaces the config’s at the next start', async () => {
    await fleet.stop();
    const config = JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8'));
    config.cron.jobs = [];
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
    // An agent's own job from the last run, put there as the outbox would.
    const { openStateDatabase } = await import('../../shared/adapters/sqlite/sqlite-database.ts');
    const { SqliteCronScheduler } = await import('../../shared/adapters/sqlite/sqlite-cron-scheduler.ts');
    const db = openStateDatabase(join(dir, 'state', 'state.db'));
    await new SqliteCronScheduler(db).put({ name: 'agent-ray-weekly', expression: 'cron(0 9 ? * 2 *)', timezone: 'Europe/Berlin', input: '{}' });
    db.close();
    fleet = await startFleet({ dir, log });
    expect(await fleet.cp.scheduler.list('')).toEqual(['agent-ray-weekly', 'heartbeat-grif']);
    expect(log.lines.some((l) => l.msg === 'schedules no longer in the config removed' && JSON.stringify(l.removed) === '["config-grif-tick"]')).toBe(true);
  });
});
