// `npm start` as a user, a service manager or `timeout` runs it, stopped the ways they stop
// it: SIGTERM, SIGINT or SIGHUP sent to the npm process itself, and the fleet process killed
// outright. Each time, every process it started must be gone — the fleet, each agent's
// runtime, and a command an agent was running — and the port must stop answering.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readAdminFile } from '../../local/admin-file.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { alive, mentioning, tree, type ProcessInfo } from '../support/process-tree.ts';
import { dashboardTokenPath } from '../../local/dashboard-token.ts';
import { postChat } from '../support/local-api.ts';
import { tempDir } from '../support/temp-dirs.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FRAN_KEY = 'sk-test-signals-fran-0123456789abcdef';

let model: FakeModel;
let dir: string;

interface NpmStart {
  npm: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  url: string;
  state: string;
  output(): string;
}

beforeAll(async () => {
  model = await startModel({ apiKey: FRAN_KEY });
});

afterAll(async () => {
  await model?.close();
});

let started: NpmStart | undefined;
afterEach(() => {
  // Whatever a failed test left behind is not left running for the next one.
  for (const p of started ? mentioning(started.state) : []) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  started = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `npm start -- …` in the repository, as README says, with a two-agent fleet in a temp dir; resolves once every agent is ready. */
async function npmStart(): Promise<NpmStart> {
  dir = tempDir('cf-signals-');
  const config = JSON.parse(readFileSync(join(REPO, 'clawfleet.json'), 'utf8'));
  config.agents.list = config.agents.list.filter((a: { id: string }) => a.id === 'jerry' || a.id === 'fran');
  config.bindings = config.bindings.filter((b: { agentId: string }) => b.agentId === 'jerry' || b.agentId === 'fran');
  config.channels.telegram.accounts = { jerry: config.channels.telegram.accounts.jerry, fran: config.channels.telegram.accounts.fran };
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: FRAN_KEY } }));
  const state = join(dir, 'state');

  // A user's shell: none of the npm_* variables of the `npm test` that runs this file.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  const npm = spawn('npm', ['start', '--', '--config', join(dir, 'clawfleet.json'), '--secrets', join(dir, 'secrets.json'), '--state', state, '--port', '0'], {
    cwd: REPO,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  npm.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  npm.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once('exit', (code, signal) => resolve({ code, signal })),
  );
  started = { npm, exited, url: '', state, output: () => out };

  await until(
    () => /dashboard and chat: (http:\/\/127\.0\.0\.1:\d+)\//.test(out) || npm.exitCode !== null,
    60_000,
    () => `the dashboard's address in:\n${out}`,
  );
  const url = /dashboard and chat: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1];
  if (!url) throw new Error(`npm start ended before it served anything:\n${out}`);
  started.url = url;
  const admin = readAdminFile(state)!;
  await until(
    async () => {
      const res = await fetch(`${admin.url}/admin/status`, { headers: { authorization: `Bearer ${admin.token}` } });
      const status = (await res.json()) as { agents: { state: string }[] };
      return status.agents.length === 2 && status.agents.every((a) => a.state === 'running');
    },
    60_000,
    () => `both runtimes ready:\n${out}`,
  );
  return started;
}

/** The fleet process under npm, and its runtimes under it. */
function fleetTree(s: NpmStart): { all: ProcessInfo[]; fleet: ProcessInfo; runtimes: ProcessInfo[] } {
  const all = tree(s.npm.pid!);
  const fleet = all.find((p) => p.ppid === s.npm.pid && p.command.includes('bin/clawfleet.js start'));
  if (!fleet) throw new Error(`no fleet process under npm (pid ${s.npm.pid}): ${JSON.stringify(all)}`);
  // A runtime runs from its bundle, or from the sources where the bundle is out of date.
  return { all, fleet, runtimes: all.filter((p) => p.ppid === fleet.pid && /runtime-image\/(dist\/main\.mjs|src\/main\.ts)/.test(p.command)) };
}

/** Every process of this start is gone (those seen under npm, and any naming its directory), and the port is closed. */
async function expectAllGone(s: NpmStart, seen: ProcessInfo[]): Promise<void> {
  await until(
    () => seen.every((p) => !alive(p)) && mentioning(s.state).length === 0,
    45_000,
    () =>
      `every process to stop; still running: ${JSON.stringify([...seen.filter(alive), ...mentioning(s.state)].map((p) => `${p.pid} ${p.command}`))}\n${s.output()}`,
  );
  await expect(fetch(`${s.url}/healthz`)).rejects.toThrow();
}

describe('npm start, stopped by a signal to npm', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal}: npm passes it on, the fleet stops its runtimes and exits cleanly`, async () => {
      const s = await npmStart();
      const { all, fleet, runtimes } = fleetTree(s);
      expect(runtimes).toHaveLength(2);
      // npm runs the fleet itself (the script execs it): no shell in between to swallow the signal.
      expect(fleet.ppid).toBe(s.npm.pid);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
      // Jerry has no key: the banner says so, with the command that gives it one.
      expect(s.output()).toContain(
        'jerry: offline model — no ANTHROPIC_API_KEY in clawfleet/demo/agents/jerry; give it the key with: printf %s "$ANTHROPIC_API_KEY" | npx clawfleet secrets set ANTHROPIC_API_KEY --agent jerry',
      );
      // Started with its own files, it names them, so the pasted command reaches this fleet.
      const dir = dirname(s.state);
      expect(s.output()).toContain(
        `--agent jerry --config ${join(dir, 'clawfleet.json')} --secrets ${join(dir, 'secrets.json')} --state ${s.state} (the agent restarts with it)`,
      );
      expect(s.output()).toContain(`\`npx clawfleet dashboard --state ${s.state}\` prints a sign-in link`);

      s.npm.kill(signal);
      // A clean stop: the fleet exits 0, and so does npm.
      expect(await s.exited).toEqual({ code: 0, signal: null });
      await expectAllGone(s, all);
      expect(s.output()).toContain(`clawfleet: stopping agents (${signal})…`);
      expect(s.output()).toContain('clawfleet: stopped.');
    });
  }

  it('SIGHUP: npm dies without passing it on, and the fleet, seeing npm gone, stops all the same', async () => {
    const s = await npmStart();
    const { all, runtimes } = fleetTree(s);
    expect(runtimes).toHaveLength(2);

    s.npm.kill('SIGHUP');
    expect(await s.exited).toEqual({ code: null, signal: 'SIGHUP' });
    await expectAllGone(s, all);
    expect(s.output()).toContain('clawfleet: stopping agents (npm, which started it, is gone)…');
    expect(s.output()).toContain('clawfleet: stopped.');
  });
});

describe('the fleet process killed outright (SIGKILL)', () => {
  it('takes its runtimes with it, and the command an agent was running', async () => {
    const s = await npmStart();
    // Fran runs a long command for the user; the fleet dies while it runs.
    model.script({ toolCalls: [{ name: 'exec', arguments: { command: 'sleep 300', timeoutSeconds: 600 } }] }, { text: 'done' });
    // Signed in as the dashboard is: the token the fleet keeps in its state directory.
    const res = await postChat({ url: s.url, dashboardToken: readFileSync(dashboardTokenPath(s.state), 'utf8').trim() }, 'fran', 'please run the long job');
    expect(res.status).toBe(202);
    const workspace = join(s.state, 'workspaces', 'fran');
    await until(
      () => mentioning(workspace).some((p) => p.command === 'sleep 300'),
      30_000,
      () => `fran's command to start:\n${s.output()}`,
    );
    const { all, fleet, runtimes } = fleetTree(s);
    expect(runtimes).toHaveLength(2);
    const command = all.find((p) => p.command === 'sleep 300');
    expect(command, 'the command runs under fran’s runtime').toBeDefined();

    process.kill(fleet.pid, 'SIGKILL');
    await expectAllGone(s, all);
    // npm saw its child killed and ends itself the same way.
    expect(await s.exited).toEqual({ code: null, signal: 'SIGKILL' });
  });
});
