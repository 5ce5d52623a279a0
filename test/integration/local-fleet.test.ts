// `npm start`'s fleet, started in-process: the local control plane, a runtime child
// process per agent, chat over its HTTP API, managed with the `clawfleet` CLI; its state
// survives a restart.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAdminFile } from '../../local/admin-file.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { runCli } from '../../cli/main.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { captureIO } from '../unit/cli-io.ts';
import { chatLines, dashboardAuth, postChat } from '../support/local-api.ts';
import { startFleet, untilRunning, type StartFleetOptions } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

const FRAN_KEY = 'sk-test-local-fran-0123456789abcdef';
let fleet: LocalFleet;
let model: FakeModel;
let dir: string;
let state: string;
let options: StartFleetOptions;
const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];

async function chat(agentId: string, text: string): Promise<string> {
  const res = await postChat(fleet, agentId, text);
  expect(res.status).toBe(202);
  return text;
}

async function replyTo(agentId: string, predicate: (text: string) => boolean, timeout = 20_000): Promise<string> {
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const messages = await chatLines(fleet, agentId);
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
  dir = tempDir('cf-local-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  // The chat box streams as the channel says: in blocks here (a test below), of at least 10 characters.
  config.channels.telegram.streaming = 'block';
  config.channels.telegram.blockStreamingChunk = { minChars: 10 };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: FRAN_KEY } }));
  state = join(dir, 'state');
  // Every runtime says it is ready before the tests talk to it.
  options = { dir, running: 'all', onRuntimeLine: (agentId, line) => runtimeLines.push({ agentId, line }) };
  fleet = await startFleet(options);
});

/** Runs a `clawfleet` command against this fleet, as a user in its directory would. */
async function clawfleet(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = captureIO({ cwd: dir });
  const code = await runCli([...argv, '--state', 'state'], io);
  return { code, out: io.outText(), err: io.errText() };
}

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

  it('says in /status, after a real turn, how long the session is and how full the model’s context is (the provider’s count)', async () => {
    await chat('fran', 'how long is this session?');
    await replyTo('fran', (t) => t === 'echo: how long is this session?');
    // The runtime's ended status carries the session's stats; the outbox records them on the session.
    let status = '';
    await expect
      .poll(
        async () => {
          await chat('fran', '/status');
          status = (await chatLines(fleet, 'fran')).filter((m) => m.role === 'agent' && m.text.startsWith('🤖')).at(-1)?.text ?? '';
          return /^Session length: [1-9]\d* turns?, [1-9]\d* messages in context/m.test(status);
        },
        { timeout: 20_000, interval: 300 },
      )
      .toBe(true);
    // Counted by the model server (its usage), not estimated: no "~".
    expect(status).toMatch(/^Context: \d+(\.\d)?k? \/ \d+(\.\d)?k tokens \((\d+%|<1%)\)$/m);
    expect(status).not.toMatch(/^Context: ~/m);
  });

  it('answers with a clearly labelled offline model when the agent has no key', async () => {
    await chat('grif', 'anyone there?');
    const text = await replyTo('grif', (t) => t.includes('anyone there?'));
    expect(text).toMatch(/^\[offline model — not an AI\] no OPENAI_API_KEY/);
    // What to do about it, as a command to paste.
    expect(text).toContain('printf %s "$OPENAI_API_KEY" | npx clawfleet secrets set OPENAI_API_KEY --agent grif');
    const agents = (await (await fetch(`${fleet.url}/api/agents`, { headers: dashboardAuth(fleet) })).json()) as { agents: { id: string; model: string }[] };
    expect(agents.agents.find((a) => a.id === 'grif')?.model).toMatch(/^offline/);
    // And /status says so, rather than naming only the model it would use with a key.
    await chat('grif', '/status');
    expect(await replyTo('grif', (t) => t.startsWith('🤖'))).toMatch(
      /^Model: openai\/gpt-4\.1-mini \(offline: no OPENAI_API_KEY in clawfleet\/demo\/agents\/grif; /m,
    );
  });

  it('streams the chat box in blocks where the channel says so: each paragraph a bubble of its own, then the rest', async () => {
    model.script({ text: 'First, the coffee at nine.\n\nThen a walk by the river.\n\nLunch last.', frameDelayMs: 20 });
    await chat('fran', 'plan it in paragraphs');
    await replyTo('fran', (t) => t === 'Lunch last.');
    const agentLines = (await chatLines(fleet, 'fran')).filter((m) => m.role === 'agent').map((m) => m.text);
    expect(agentLines.slice(-3)).toEqual(['First, the coffee at nine.', 'Then a walk by the river.', 'Lunch last.']);
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

  it('shows every agent’s state, model, queue depth and heartbeat in `clawfleet status`', async () => {
    const { code, out } = await clawfleet('status');
    expect(code).toBe(0);
    expect(out.split('\n')[0]).toMatch(/^fleet "demo" at http:\/\/127\.0\.0\.1:\d+ \(state in \/.*\/state\)$/);
    expect(out).toMatch(/^fran\s+awake\s+openai\/gpt-4\.1-mini\s+0\/0\s+0\s+\d+s ago/m);
    expect(out).toMatch(/^grif\s+awake\s+offline \(no key for openai\/gpt-4\.1-mini\)/m);
    const json = await clawfleet('status', '--json');
    expect(JSON.parse(json.out).agents).toHaveLength(4);
  });

  it('hibernates one agent with the CLI, wakes it when a message waits, and answers it', async () => {
    const franPid = fleet.supervisor.pid('fran');
    const hibernated = await clawfleet('runtime', 'hibernate', '--agent', 'ray');
    expect(hibernated).toMatchObject({ code: 0 });
    expect(hibernated.out).toContain('ray: asleep');
    expect(fleet.supervisor.pid('ray')).toBeUndefined();
    await chat('ray', 'wake up please');
    expect(await replyTo('ray', (t) => t.includes('wake up please'))).toBeTruthy();
    expect(fleet.supervisor.pid('fran')).toBe(franPid);
  });

  it('restarts one agent with the CLI, which reads its secrets again', async () => {
    const before = fleet.supervisor.pid('grif');
    writeFileSync(
      join(dir, 'secrets.json'),
      JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: FRAN_KEY }, 'clawfleet/demo/agents/grif': { OPENAI_API_KEY: FRAN_KEY } }),
    );
    const { code, out } = await clawfleet('runtime', 'restart', '--agent', 'grif');
    expect(code).toBe(0);
    // It waits, saying so, until the new runtime is ready: the agent answers at once.
    expect(out).toMatch(
      /^restart grif in fleet "demo" at http:\/\/127\.0\.0\.1:\d+…\ngrif: waiting until its runtime is ready \(--no-wait skips this\)…\ngrif: awake \(ready after \d+\.\d s\)$/,
    );
    expect(fleet.supervisor.state('grif')).toBe('running');
    expect(fleet.supervisor.pid('grif')).not.toBe(before);
    await chat('grif', 'a real model now?');
    expect(await replyTo('grif', (t) => t === 'echo: a real model now?')).toBeTruthy();
  });

  it('returns at once from a restart with --no-wait, before the runtime is ready', async () => {
    const { code, out } = await clawfleet('runtime', 'restart', '--agent', 'ray', '--no-wait');
    expect(code).toBe(0);
    expect(out).toMatch(/^restart ray in fleet "demo" at http:\/\/127\.0\.0\.1:\d+…\nray: waking$/);
    await untilRunning(
      fleet,
      fleet.cp.config.agents.list.map((a) => a.id),
      30_000,
      (id) => runtimeLines.filter((l) => l.agentId === id).map((l) => l.line),
    );
  });

  it('prints an agent’s runtime log with `clawfleet logs`, and follows it', async () => {
    const { code, out } = await clawfleet('logs', '--agent', 'fran', '--lines', '200');
    expect(code).toBe(0);
    expect(out).toMatch(/ready/);
    // As `npm start` prints it: the agent in its column, not a blank column and agent=fran again.
    expect(out).toMatch(/^\d\d:\d\d:\d\d fran {5}ready /m);
    expect(out).not.toContain('agent=fran');
    expect(out).not.toContain(FRAN_KEY);

    const io = captureIO({ cwd: dir });
    const following = runCli(['logs', '--agent', 'fran', '--follow', '--lines', '0', '--state', 'state'], io);
    await chat('fran', 'followed?');
    await expect.poll(() => io.outText(), { timeout: 20_000 }).toMatch(/turn|reply|envelope/i);
    io.interrupt();
    expect(await following).toBe(0);
  });

  it('runs a cron job now with `clawfleet cron run`, and its turn’s answer reaches the main session’s chat', async () => {
    const config = JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8'));
    config.cron = {
      jobs: [{ id: 'brief', agentId: 'fran', schedule: { kind: 'every', every: '1d' }, payload: { kind: 'agentTurn', message: 'Morning brief' } }],
    };
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
    // fran's main session last heard from the dashboard's chat box.
    await chat('fran', 'brief me when the job runs');
    await replyTo('fran', (t) => t === 'echo: brief me when the job runs');
    const { code, out } = await clawfleet('cron', 'run', 'brief');
    expect(code).toBe(0);
    expect(out).toMatch(/queued brief for fran in fleet "demo" at http:\/\/127\.0\.0\.1:\d+: envelope cron\.fran\.brief\.manual\./);
    // Dispatched as its schedule would be: the answer goes where the main session last heard
    // from someone, not refused for want of an origin.
    expect(await replyTo('fran', (t) => t === 'echo: Morning brief')).toBeTruthy();
    const id = /envelope (\S+)/.exec(out)![1]!;
    expect(await fleet.cp.origins.get(id)).toMatchObject({ agentId: 'fran', sessionKey: 'agent:fran:main', target: { channel: 'local', chatId: 'fran' } });
    // A second run in the same minute is a run of its own, not a repeat of the first.
    const again = await clawfleet('cron', 'run', 'brief');
    expect(/envelope (\S+)/.exec(again.out)![1]).not.toBe(id);
  });

  it('refuses a cron run meant for another fleet, naming the fleet it reached and its agents', async () => {
    const config = JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8'));
    const other = { ...config, fleet: 'home', agents: { ...config.agents, list: [{ id: 'solo' }] }, bindings: [] };
    other.cron = { jobs: [{ id: 'solo-brief', agentId: 'solo', schedule: { kind: 'every', every: '1d' }, payload: { kind: 'agentTurn', message: 'hi' } }] };
    writeFileSync(join(dir, 'home.json'), JSON.stringify(other));
    const wrong = await clawfleet('cron', 'run', 'solo-brief', '--config', 'home.json');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/fleet "demo" at http:\/\/127\.0\.0\.1:\d+ \(state in .*\) runs agents jerry, fran, grif, ray; the config names fleet "home"/);
  });

  it('plans `agents prune --dry-run` beside the running fleet, changing nothing', async () => {
    const { code, out } = await clawfleet('agents', 'prune', '--dry-run');
    expect(code).toBe(0);
    expect(out).toContain('nothing to prune: every agent found is in the config (jerry, fran, grif, ray)');
    const removeGone = await clawfleet('agents', 'remove', 'old', '--dry-run');
    expect(removeGone.code, removeGone.err).toBe(0);
    expect(removeGone.out).toMatch(/nothing of agent "old" is left in fleet "demo", state in /);
  });

  it('lists pairing requests with `clawfleet pairing list`', async () => {
    const { code, out } = await clawfleet('pairing', 'list');
    expect(code).toBe(0);
    expect(out).toContain('no pending pairing requests');
    const bad = await clawfleet('pairing', 'approve', 'NOPE1234');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/no pending pairing with code NOPE1234/);
  });

  it('answers after a restart what was queued before the fleet stopped, and keeps the dashboard signed in', async () => {
    const token = readFileSync(join(state, 'dashboard-token'), 'utf8').trim();
    expect(statSync(join(state, 'dashboard-token')).mode & 0o077).toBe(0);
    // The state directory the fleet made (transcripts, chats, memory) is its owner's alone.
    expect(statSync(state).mode & 0o077).toBe(0);
    const signedIn = async (t: string) => (await fetch(`${fleet.url}/api/fleet`, { headers: { authorization: `Bearer ${t}` } })).status;
    expect(await signedIn(token)).toBe(200);
    expect(await signedIn(readAdminFile(state)!.token)).toBe(401);
    await clawfleet('runtime', 'hibernate', '--agent', 'ray');
    await chat('ray', 'still there after the restart?');
    await fleet.stop();
    const stopped = await clawfleet('status');
    expect(stopped.code).toBe(1);

    fleet = await startFleet(options);
    expect(await replyTo('ray', (t) => t.includes('still there after the restart?'))).toBeTruthy();
    // The chat survived the restart too.
    const messages = await chatLines(fleet, 'ray');
    expect(messages.some((m) => m.role === 'user' && m.text === 'still there after the restart?')).toBe(true);
    // The same dashboard token still signs in: a restart does not sign the browser out.
    expect(await signedIn(token)).toBe(200);
  });
});
