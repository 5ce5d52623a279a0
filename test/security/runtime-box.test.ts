// Issue #27, item 2: each local runtime in a bubblewrap box of its own. A real fleet
// (startFleet: runtimes as child processes, the fake model scripting their tool calls) of
// alpha (exec in its inner sandbox, a sandboxed MCP server), beta, and delta (tools.exec.sandbox
// "off": its commands run as its runtime, so the box is the only wall they meet). Looked at
// from the host (/proc/<runtime>/root) and from inside (delta's commands): the box shows the
// runtime its own workspace and runtime state and what it runs from, and none of the fleet's
// state, the secrets file, the tokens, beta's files, $HOME or the repository; a root fleet's
// box runs nothing as root; inside it the runtime still answers, exec and the MCP server still
// run in boxes of their own, and a stop still drains to exactly one reply. Then without
// bubblewrap: the start refuses, saying what is missing and how to get it, unless the config
// says "off" — then it warns once per agent, and `clawfleet security audit` reports it.
import { spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { adminFilePath, readAdminFile } from '../../local/admin-file.ts';
import { dashboardTokenPath } from '../../local/dashboard-token.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { BOX_UID } from '../../local/runtime-box.ts';
import { memoryLogger } from '../../shared/log.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { agentKeySecrets, startFleet, untilRunning, writeFleetFiles } from '../support/local-fleet.ts';
import { askChat, execResultResponder } from '../support/exec-turns.ts';
import { alive, tree, type ProcessInfo } from '../support/process-tree.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { captureIO } from '../unit/cli-io.ts';

const REPO = realpathSync(fileURLToPath(new URL('../../', import.meta.url))).replace(/\/$/, '');
const PROBE_SERVER = fileURLToPath(new URL('./fixtures/probe-mcp-server.mjs', import.meta.url));
const ROOT = process.getuid?.() === 0;
const HOME = process.env.HOME ?? '/root';
const KEYS = {
  alpha: 'sk-box-alpha-model-key-0123456789abcdef',
  beta: 'sk-box-beta-model-key-0123456789abcdef0',
  delta: 'sk-box-delta-model-key-0123456789abcde',
};
const BOT_TOKEN = '7000027:AAbox-bot-token-000000000000000000000';
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

/** The fake model: `run: <command>` → an exec call, `mcp: probe` → the MCP probe's tool; a tool's result → a reply that carries it. */
const responder = execResultResponder(120, (req) => (req.lastUserText === 'mcp: probe' ? { toolCalls: [{ name: 'probe__probe', arguments: {} }] } : undefined));

/** Posts `text` to an agent's chat box and returns the text of its next answer that `match`es (default: a `run:` turn's result). */
const ask = (fleet: LocalFleet, agentId: string, text: string, match?: (t: string) => boolean): Promise<string> =>
  askChat(fleet, agentId, text, { match, timeoutMs: 60_000 });

/** The runtime's own process inside its box: node running the runtime, below the box's bwraps (and what the supervisor names as the agent's pid). */
function runtimeProcess(fleet: LocalFleet, agentId: string): ProcessInfo {
  const below = tree(fleet.supervisor.topPid(agentId)!);
  const runtime = below.find((p) => p.command.startsWith(`${process.execPath} `) && /runtime-image\/(dist\/main\.mjs|src\/main\.ts)/.test(p.command));
  if (!runtime) throw new Error(`no runtime process under ${agentId}'s box: ${JSON.stringify(below.map((p) => p.command.slice(0, 100)))}`);
  expect(fleet.supervisor.pid(agentId)).toBe(runtime.pid);
  return runtime;
}

/** A field of /proc/<pid>/status; undefined once the process is gone. */
function status(pid: number, field: string): string | undefined {
  try {
    return new RegExp(`^${field}:[ \\t]*(.*)$`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]?.trim() ?? '';
  } catch {
    return undefined;
  }
}

describe('a fleet whose runtimes are boxed', () => {
  let fleet: LocalFleet;
  let model: FakeModel;
  let dir: string;
  let state: string;
  let secretsPath: string;
  /** alpha's runtime's root, as the host sees into it. */
  let alphaRoot: string;
  const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    model = await startModel({ responder });
    cleanups.push(() => model.close());
    dir = tempDir('cf-box-');
    state = join(dir, 'state');
    secretsPath = join(dir, 'clawfleet.secrets.json');
    // The probe MCP server sits in alpha's workspace: a sandboxed server sees the system and that, nothing else.
    const alphaWorkspace = join(state, 'workspaces', 'alpha');
    mkdirSync(alphaWorkspace, { recursive: true });
    copyFileSync(PROBE_SERVER, join(alphaWorkspace, 'probe-server.mjs'));
    const config = {
      fleet: 'box',
      agents: {
        defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
        list: [
          {
            id: 'alpha',
            // (Its last argument is a folder it tries to list: one that is nowhere. An absolute path that exists would be shown to the box, read-only.)
            mcp: {
              servers: {
                probe: { command: process.execPath, args: [join(alphaWorkspace, 'probe-server.mjs'), '3600.27', join(dir, 'nowhere')], sandbox: true },
              },
            },
          },
          { id: 'beta' },
          { id: 'delta', tools: { exec: { sandbox: 'off' } } },
        ],
      },
      models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
    };
    writeFleetFiles(dir, config, { ...agentKeySecrets('box', KEYS), 'clawfleet/box/control/telegram': { BOX_BOT_TOKEN: BOT_TOKEN } }, secretsPath);
    fleet = await startFleet({
      dir,
      secretsPath,
      stateDir: state,
      running: 'all',
      timeoutMs: 60_000,
      onRuntimeLine: (agentId, line) => runtimeLines.push({ agentId, line }),
    });
    cleanups.push(() => fleet.stop());
    writeFileSync(join(state, 'workspaces', 'beta', 'diary.md'), 'beta’s private notes\n');
    alphaRoot = `/proc/${runtimeProcess(fleet, 'alpha').pid}/root`;
  }, 120_000);

  const secretValues = () => [...Object.values(KEYS), BOT_TOKEN, readAdminFile(state)!.token, readFileSync(dashboardTokenPath(state), 'utf8').trim()];

  it('answers a chat message from inside its box, over the control plane on loopback', async () => {
    expect(await ask(fleet, 'beta', 'hello from outside', (t) => t.startsWith('echo:'))).toBe('echo: hello from outside');
    // And it runs where the host sees it in a mount namespace of its own.
    expect(readlinkSync(`/proc/${runtimeProcess(fleet, 'beta').pid}/ns/mnt`)).not.toBe(readlinkSync('/proc/self/ns/mnt'));
  });

  it('shows the runtime its workspace and runtime state, and nothing else of the state directory, the config’s folder or the tokens', () => {
    const inBox = (path: string) => join(alphaRoot, path);
    expect(existsSync(inBox(join(state, 'workspaces', 'alpha', 'AGENTS.md')))).toBe(true);
    expect(existsSync(inBox(join(state, 'runtime', 'alpha')))).toBe(true);
    // Every other thing the state directory holds is simply not there.
    for (const gone of ['state.db', 'admin.json', 'dashboard-token', 'logs', 'media', join('workspaces', 'beta'), join('runtime', 'beta')])
      expect(existsSync(inBox(join(state, gone))), gone).toBe(false);
    expect(existsSync(join(state, 'state.db'))).toBe(true); // (while the host has them)
    expect(existsSync(adminFilePath(state))).toBe(true);
    expect(readdirSync(inBox(state)).sort()).toEqual(['runtime', 'workspaces']);
    expect(readdirSync(inBox(join(state, 'workspaces')))).toEqual(['alpha']);
    expect(readdirSync(inBox(join(state, 'runtime')))).toEqual(['alpha']);
    // The folder of the config: neither the secrets file nor the config.
    expect(existsSync(inBox(secretsPath))).toBe(false);
    expect(readdirSync(inBox(dir))).toEqual(['state']);
  });

  it('shows of the repository only what the runtime runs from, and nothing of $HOME', () => {
    const repoInBox = join(alphaRoot, REPO);
    // The bundle (or, when it is stale, the sources), the templates, node_modules' part and the bubblewrap in .cache/.
    const shown = readdirSync(repoInBox).sort();
    expect(
      shown.every((name) => ['.cache', 'node_modules', 'package.json', 'runtime-image', 'shared'].includes(name)),
      shown.join(', '),
    ).toBe(true);
    for (const never of ['.git', 'local', 'cli', 'clawfleet.json', 'clawfleet.secrets.example.json', 'test', 'dist'])
      expect(existsSync(join(repoInBox, never)), never).toBe(false);
    expect(readdirSync(join(repoInBox, 'runtime-image')).every((name) => ['dist', 'src', 'templates'].includes(name))).toBe(true);
    // $HOME: nothing of it, but for the way to a folder the box binds (a repository or .cache kept under it).
    const bound = [REPO, realpathSync(join(REPO, '.cache')), dir];
    for (const name of existsSync(HOME) ? readdirSync(HOME) : []) {
      const path = join(HOME, name);
      if (bound.some((b) => b === path || b.startsWith(path + sep))) continue;
      expect(existsSync(join(alphaRoot, path)), path).toBe(false);
    }
  });

  it('leaves a command with the exec sandbox off (the box its only wall) nothing of the fleet’s to read or write', async () => {
    const probe = [
      `cat ${adminFilePath(state)}`,
      `cat ${dashboardTokenPath(state)}`,
      `cat ${secretsPath}`,
      `ls ${join(state, 'workspaces', 'beta')}; cat ${join(state, 'workspaces', 'beta', 'diary.md')}`,
      `ls -a ${state} ${dir} ${HOME} ${REPO}`,
      `cat ${join(state, 'state.db')} | head -c 200`,
      `touch ${join(state, 'workspaces', 'delta', 'written-from-the-box')} && echo wrote-own-workspace`,
      `touch ${join(state, 'planted')} 2>&1 || echo state-not-writable`,
      'id -u',
      'echo done',
    ]
      .map((line) => `{ ${line}; } 2>&1`)
      .join('\n');
    const saw = await ask(fleet, 'delta', `run: ${probe}`);
    const scan = new SecretScan();
    scan.addSecrets(...secretValues());
    scan.record('delta exec output', saw);
    expect(scan.hits()).toEqual([]);
    expect(saw).not.toContain('beta’s private notes');
    expect(saw).toContain('wrote-own-workspace');
    expect(saw).toContain('state-not-writable');
    expect(existsSync(join(state, 'workspaces', 'delta', 'written-from-the-box'))).toBe(true);
    expect(existsSync(join(state, 'planted'))).toBe(false);
    expect(saw).toMatch(/No such file or directory/);
    if (ROOT) expect(saw).toMatch(new RegExp(`^${BOX_UID}$`, 'm'));
  });

  it('still runs exec in a sandbox of its own inside the box: its own processes, the runtime’s out of sight', async () => {
    const saw = await ask(fleet, 'alpha', 'run: ls /proc | grep -E "^[0-9]+$" | wc -l; tr "\\0" "\\n" </proc/$PPID/environ; echo done');
    expect(saw, saw).toContain('done');
    // bwrap's init is pid 1, then the shell and its few children: the runtime and the box's other processes are not there.
    expect(Number(/^(\d+)$/m.exec(saw)?.[1]), saw).toBeLessThan(10);
    // Its parent is the inner bwrap's init, with the sandbox's environment: nothing of the runtime's.
    expect(saw).toContain('HOME=' + join(state, 'workspaces', 'alpha'));
    expect(saw).not.toMatch(/CLAWFLEET_(AGENT_ID|CONTROL_URL|RUNTIME_CONFIG)|main\.mjs/);
  });

  it('still runs a sandboxed MCP server in a sandbox of its own inside the box', async () => {
    const saw = await ask(fleet, 'alpha', 'mcp: probe');
    // The server's words reach the model inside the untrusted markers: the report is the JSON object between them.
    const json = saw.slice(saw.indexOf('{'), saw.lastIndexOf('}') + 1);
    const report = JSON.parse(json) as { uid: number; env: Record<string, string>; pids: number[]; home: unknown };
    expect(report.pids.length).toBeLessThan(10);
    // bwrap sets PWD to where it starts the command: the workspace.
    expect(Object.keys(report.env).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PWD']);
    expect(report.env.HOME).toBe(join(state, 'workspaces', 'alpha'));
    expect(report.home).toMatch(/^unreadable: ENOENT/);
  });

  it.skipIf(!ROOT)(`runs nothing as root when the fleet is root: the runtime and all it starts run as uid ${BOX_UID}, without capabilities`, async () => {
    const workspace = join(state, 'workspaces', 'alpha');
    const answer = ask(fleet, 'alpha', 'run: while [ ! -e release-the-wait ]; do sleep 0.1; done; echo released');
    // While the command waits: every process of alpha's box, from the runtime down to the command's sleep.
    let below: ProcessInfo[] = [];
    await expect
      .poll(
        () => {
          below = tree(fleet.supervisor.topPid('alpha')!);
          return below.some((p) => p.command === 'sleep 0.1');
        },
        { timeout: 60_000, interval: 100 },
      )
      .toBe(true);
    const runtime = runtimeProcess(fleet, 'alpha');
    const fromRuntime = tree(runtime.pid);
    expect(fromRuntime.length).toBeGreaterThan(3); // the runtime, exec's bwrap and its init, the shell…
    let seen = 0;
    for (const p of fromRuntime) {
      const [uid, gid, groups, caps] = ['Uid', 'Gid', 'Groups', 'CapEff'].map((f) => status(p.pid, f));
      if (uid === undefined || gid === undefined) continue; // gone meanwhile (a sleep ends every 0.1 s)
      seen++;
      expect([...uid.split(/\s+/), ...gid.split(/\s+/)].map(Number), `${p.pid} ${p.command}`).toEqual(Array(8).fill(BOX_UID));
      expect(groups, p.command).toBe('');
      expect(caps, p.command).toBe('0000000000000000');
    }
    expect(seen).toBeGreaterThan(3);
    // Root above it: only the box's first stage, bwrap and its pid namespace's init, which build the view and drop to the box's user.
    const rootOnes = below.filter((p) => !fromRuntime.some((q) => q.pid === p.pid) && (status(p.pid, 'Uid') ?? '').split(/\s+/).includes('0'));
    expect(rootOnes).toHaveLength(2);
    for (const p of rootOnes) expect(p.command).toMatch(/\/bwrap --unshare-pid --die-with-parent --bind \/proc \/proc /);
    writeFileSync(join(workspace, 'release-the-wait'), '');
    expect(await answer).toContain('released');
  });

  it('drains a turn in flight when the fleet stops the runtime: answered exactly once, then the box is gone', async () => {
    const box = tree(fleet.supervisor.topPid('beta')!);
    const linesBefore = runtimeLines.length;
    model.script({ text: 'answered while draining', delayMs: 3_000 });
    const before = model.requests().length;
    await fleet.cp.chatMessage('beta', 'take your time');
    await model.waitForRequests(before + 1, 30_000);
    await expect(fleet.supervisor.act('beta', 'hibernate')).resolves.toBe('hibernating');
    // It heard the stop (the SIGTERM on its lifeline: bwrap passes no signal on) and exited by
    // itself, cleanly, within the grace — not SIGKILLed — after the turn's answer.
    const said = runtimeLines.slice(linesBefore).filter((l) => l.agentId === 'beta');
    expect(said.find((l) => l.line.msg === 'stopping')?.line.signal).toBe('SIGTERM');
    expect(said.some((l) => l.line.msg === 'turn answered')).toBe(true);
    expect(fleet.supervisor.info('beta').lastExit).toMatchObject({ code: 0, signal: null });
    expect(fleet.cp.chat.since('beta', 0).messages.filter((m) => m.role === 'agent' && m.text === 'answered while draining')).toHaveLength(1);
    // Nothing of the box is left: its bwraps, its init, the runtime.
    await expect.poll(() => box.filter(alive), { timeout: 15_000 }).toEqual([]);
    await fleet.supervisor.act('beta', 'wake');
    await untilRunning(fleet, ['beta'], 60_000);
    expect(await ask(fleet, 'beta', 'still there?', (t) => t.startsWith('echo:'))).toBe('echo: still there?');
    expect(fleet.cp.chat.since('beta', 0).messages.filter((m) => m.role === 'agent' && m.text === 'answered while draining')).toHaveLength(1);
  });
});

/** A fleet directory of two agents with the echo model (no key: the offline model), and `runtime` for both. */
function twoAgents(runtime: Record<string, unknown> = {}): string {
  const dir = tempDir('cf-box-none-');
  const config = {
    fleet: 'nobox',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512, ...runtime } }, list: [{ id: 'fran' }, { id: 'grif' }] },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(join(dir, 'secrets.json'), '{}', { mode: 0o600 });
  return dir;
}

describe('a machine without bubblewrap', () => {
  const noBubblewrap = () =>
    Promise.reject(new Error('no bwrap on PATH, none in .cache/, and the pinned package cannot be downloaded (deb.debian.org: ENOTFOUND)'));

  it('refuses to start the fleet, saying what is missing and how to get it, and leaves the state directory free', async () => {
    const dir = twoAgents();
    const started = startFleet({ dir, bubblewrap: noBubblewrap, running: 'all' });
    await expect(started).rejects.toMatchObject({ code: 'RUNTIME_BOX_UNAVAILABLE' });
    const message = await started.catch((err: Error) => err.message);
    expect(message).toContain('bubblewrap is not installed and could not be: no bwrap on PATH');
    expect(message).toContain('apt-get install bubblewrap');
    expect(message).toContain('npx clawfleet sandbox install');
    expect(message).toContain('"localSandbox": "off"');
    // Nothing half-started: the next start (with a bubblewrap) takes the directory.
    const fleet = await startFleet({ dir, running: 'all' });
    await fleet.stop();
  });

  it('refuses where bubblewrap cannot make a box (no user namespaces), saying why', async () => {
    const dir = twoAgents();
    const fake = join(dir, 'bwrap');
    writeFileSync(
      fake,
      '#!/bin/sh\necho "bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const started = startFleet({ dir, bubblewrap: async () => fake, running: 'all' });
    await expect(started).rejects.toMatchObject({ code: 'RUNTIME_BOX_UNAVAILABLE' });
    const message = await started.catch((err: Error) => err.message);
    expect(message).toContain(`bubblewrap at ${fake} cannot make a runtime's box here (exit 1: bwrap: No permissions to creating new namespace`);
    expect(message).toContain('unprivileged user namespaces');
  });

  it('runs runtimes unboxed where the config says "off", warns once per agent (not at a restart), and the audit reports it', async () => {
    const dir = twoAgents({ localSandbox: 'off' });
    const log = memoryLogger();
    const fleet = await startFleet({ dir, log, bubblewrap: noBubblewrap, running: 'all' });
    cleanups.push(() => fleet.stop());
    // A plain process of the fleet's user: the host's root, the fleet's mount namespace.
    const runtime = runtimeProcess(fleet, 'fran');
    expect(runtime.pid).toBe(fleet.supervisor.pid('fran'));
    expect(readlinkSync(`/proc/${runtime.pid}/ns/mnt`)).toBe(readlinkSync('/proc/self/ns/mnt'));
    expect(await ask(fleet, 'fran', 'unboxed hello', (t) => t.includes('unboxed hello'))).toContain('unboxed hello');
    await fleet.supervisor.act('fran', 'restart');
    await untilRunning(fleet, ['fran'], 60_000);
    const warnings = log.lines.filter((l) => l.level === 'warn' && String(l.msg).includes('UNBOXED'));
    expect(warnings.map((l) => l.agentId).sort()).toEqual(['fran', 'grif']);
    expect(warnings[0]!.msg).toMatch(/runs UNBOXED \(runtime.localSandbox is "off"\)/);
    const io = captureIO({ cwd: dir });
    const code = await runCli(
      ['security', 'audit', '--config', join(dir, 'clawfleet.json'), '--secrets', join(dir, 'secrets.json'), '--state', join(dir, 'state'), '--json'],
      io,
    );
    const findings = (JSON.parse(io.outText()) as { findings: { id: string; where: string; severity: string; fix?: string }[] }).findings.filter(
      (f) => f.id === 'runtime.unboxed',
    );
    expect(findings.map((f) => f.where).sort()).toEqual(['agents.list[fran].runtime.localSandbox', 'agents.list[grif].runtime.localSandbox']);
    expect(findings[0]!.fix).toMatch(/localSandbox/);
    expect(code).toBe(0); // a weaker guard (warn), not a hole: the file checks still hold
  });

  it('refuses a box that would have to show what it hides: an MCP server whose folder holds the secrets file', async () => {
    const dir = twoAgents();
    writeFileSync(join(dir, 'server.mjs'), '');
    const config = JSON.parse(readFileSync(join(dir, 'clawfleet.json'), 'utf8'));
    config.agents.list[1].mcp = { servers: { files: { command: process.execPath, args: [join(dir, 'server.mjs')] } } };
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
    const started = startFleet({ dir, running: 'all' });
    await expect(started).rejects.toMatchObject({ code: 'RUNTIME_BOX_PATH_HIDDEN' });
    // (It holds the state directory too: whichever hidden path it names, the box would show it.)
    expect(await started.catch((err: Error) => err.message)).toMatch(
      new RegExp(`^grif: MCP server "files" is in ${dir}, which holds ${dir}/(state|secrets\\.json): the runtime's box would show it`),
    );
  });
});

/** A uid no other test uses, standing in for a normal user of the machine. */
const NORMAL_UID = 20201;
/** Whether NORMAL_UID may reach the repository (every folder on the way open to others), as a normal user's checkout is to its user. */
function reachableByOthers(path: string): boolean {
  for (let dir = path; ; dir = join(dir, '..')) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === '/') return true;
  }
}

/**
 * Why "a fleet run by a normal user" cannot run here, if it cannot: it needs root to play that
 * user, and a checkout that user may reach, as a normal user's own checkout is to them (one
 * cloned beneath a private folder, e.g. `mktemp -d`'s, is not, and the runtime's bundle and Node
 * modules are read from it).
 */
const NORMAL_USER_SKIP = !ROOT
  ? 'not root, so no other user to play'
  : !reachableByOthers(REPO)
    ? `the checkout ${REPO} is beneath a folder other users may not enter`
    : !reachableByOthers(realpathSync(join(REPO, '.cache')))
      ? `${realpathSync(join(REPO, '.cache'))} is beneath a folder other users may not enter`
      : '';

describe.skipIf(NORMAL_USER_SKIP)(NORMAL_USER_SKIP ? `a fleet run by a normal user — SKIPPED: ${NORMAL_USER_SKIP}` : 'a fleet run by a normal user', () => {
  it('boxes each runtime as that user in a user namespace of its own (one stage): it answers, and sees none of the fleet’s state', async () => {
    const dir = twoAgents();
    chmodSync(dir, 0o700);
    for (const f of ['', 'clawfleet.json', 'secrets.json']) chownSync(join(dir, f), NORMAL_UID, NORMAL_UID);
    const state = join(dir, 'state');
    const fleet = spawn(
      'setpriv',
      [
        '--reuid',
        String(NORMAL_UID),
        '--regid',
        String(NORMAL_UID),
        '--clear-groups',
        '--',
        process.execPath,
        join(REPO, 'bin', 'clawfleet.js'),
        'start',
        '--config',
        join(dir, 'clawfleet.json'),
        '--secrets',
        join(dir, 'secrets.json'),
        '--state',
        state,
        '--port',
        '0',
      ],
      { cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    fleet.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    fleet.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
    const exited = new Promise((r) => fleet.once('exit', r));
    cleanups.push(async () => {
      if (fleet.exitCode === null) fleet.kill('SIGTERM');
      await exited;
    });
    await expect.poll(() => /dashboard and chat: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)?.[1], { timeout: 60_000, interval: 200 }).toBeDefined();
    const url = /dashboard and chat: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out)![1]!;
    const token = readFileSync(join(state, 'dashboard-token'), 'utf8').trim();
    // Both runtimes ready: the fleet's status says so.
    const admin = readAdminFile(state)!;
    await expect
      .poll(
        async () => {
          const res = await fetch(`${admin.url}/admin/status`, { headers: { authorization: `Bearer ${admin.token}` } });
          return ((await res.json()) as { agents: { state: string }[] }).agents.every((a) => a.state === 'running');
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    const runtime = tree(fleet.pid!).find((p) => p.command.startsWith(`${process.execPath} `) && p.command.includes('runtime-image/'));
    expect(runtime, out).toBeDefined();
    // The fleet's own user, in a user and mount namespace of its own: one bwrap above it, no setpriv, nothing as root.
    expect(status(runtime!.pid, 'Uid')!.split(/\s+/).map(Number)).toEqual(Array(4).fill(NORMAL_UID));
    expect(readlinkSync(`/proc/${runtime!.pid}/ns/user`)).not.toBe(readlinkSync('/proc/self/ns/user'));
    const boxRoot = `/proc/${runtime!.pid}/root`;
    for (const gone of [
      join(dir, 'secrets.json'),
      join(state, 'state.db'),
      join(state, 'admin.json'),
      join(state, 'dashboard-token'),
      join(state, 'workspaces', 'grif'),
    ])
      expect(existsSync(join(boxRoot, gone)), gone).toBe(false);
    expect(existsSync(join(boxRoot, state, 'workspaces', 'fran', 'AGENTS.md'))).toBe(true);
    expect(tree(fleet.pid!).filter((p) => p.command.includes('setpriv') || (status(p.pid, 'Uid') ?? '').startsWith('0'))).toEqual([]);
    // It answers the chat box.
    const post = await fetch(`${url}/api/chat/fran`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'are you boxed?' }),
    });
    expect(post.status).toBe(202);
    await expect
      .poll(
        async () => {
          const res = await fetch(`${url}/api/chat/fran/messages?after=0`, { headers: { authorization: `Bearer ${token}` } });
          return ((await res.json()) as { messages: { role: string }[] }).messages.some((m) => m.role === 'agent');
        },
        { timeout: 60_000, interval: 200 },
      )
      .toBe(true);
    const below = tree(fleet.pid!);
    fleet.kill('SIGTERM');
    expect(await exited).toBe(0);
    await expect.poll(() => below.filter(alive), { timeout: 30_000 }).toEqual([]);
  });
});
