// The openclaw kind's start without OpenClaw (the real gateway is test/openclaw): the
// container health file is fresh from its first moment, while its gateway is still starting
// (~30 s on AWS, so ECS would otherwise replace the task); an install that is not the pinned
// release is refused before anything starts; and the image stage each kind runs from.
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InMemoryFifoQueue, InMemoryOutbox } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters } from '../../shared/adapters/memory/in-memory-state.ts';
import { imageVariantFor, imageVariantProblem } from '../../shared/config/image-variant.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { OPENCLAW_VERSION } from '../../shared/config/openclaw-release.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { readRuntimeEnv, type RuntimeEnv } from '../../runtime-image/src/env.ts';
import { openclawStateDir, startOpenclawRuntime } from '../../runtime-image/src/kinds/openclaw.ts';
import { checkPinnedInstall } from '../../runtime-image/src/openclaw/gateway-process.ts';
import { moveLegacyState } from '../../runtime-image/src/openclaw/legacy-state.ts';
import { downNoLongerThan } from '../../runtime-image/src/liveness/health-file.ts';
import { processes } from '../support/process-tree.ts';
import { tempDir } from '../support/temp-dirs.ts';

const KEY = 'sk-test-openclaw-health-0123456789';
const ROOT = process.getuid?.() === 0;

/** An "OpenClaw" install whose gateway never says it is ready (its entry runs `entry`, then just waits). */
function neverReadyInstall(version: string, entry = ''): { node: string; cli: string } {
  const dir = tempDir('cf-openclaw-fake-install-');
  // Readable by all, as an npm install is (the gateway may run as a user of its own).
  chmodSync(dir, 0o755);
  const pkg = join(dir, 'node_modules', 'openclaw');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'openclaw', version }));
  writeFileSync(join(pkg, 'openclaw.mjs'), `${entry}\nsetInterval(() => {}, 60_000);\n`);
  return { node: process.execPath, cli: join(pkg, 'openclaw.mjs') };
}

function franOnOpenclaw() {
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  raw.agents.list.find((a: { id: string }) => a.id === 'fran').runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };
  return runtimeConfigFor(parseConfig(raw), 'fran');
}

/** The openclaw kind started in-process with in-memory queues and fran's model key. */
const startWith = (env: RuntimeEnv) =>
  startOpenclawRuntime({
    env,
    inbox: new InMemoryFifoQueue(),
    outbox: new InMemoryOutbox(),
    deadLetters: new InMemoryDeadLetters(),
    secrets: { OPENAI_API_KEY: KEY },
    clock: systemClock,
    log: memoryLogger(),
    exit: () => {},
  });

/**
 * fran's openclaw runtime starting on a never-ready install, with `extra` in its environment:
 * local (npm start's pipe) unless told it is on AWS (its queues' URLs; the queues are in memory).
 */
async function startNeverReady(
  extra: Record<string, string> = {},
  plant: (runtimeState: string) => void = () => {},
  opts: { placement?: 'local' | 'aws'; install?: { node: string; cli: string }; workspace?: string; runtimeState?: string } = {},
) {
  const install = opts.install ?? neverReadyInstall(OPENCLAW_VERSION);
  // Inside a temp dir of its own, so its -alive and -state siblings go with it.
  const workspace = opts.workspace ?? join(tempDir('cf-openclaw-health-'), 'workspace');
  mkdirSync(workspace, { recursive: true });
  const healthFile = `${workspace}-alive`;
  const runtimeState = opts.runtimeState ?? `${workspace}-state`;
  // As the image lays it out: the runtime's state passable (0711), not listable, by the gateway's user.
  mkdirSync(runtimeState, { recursive: true, mode: 0o711 });
  chmodSync(runtimeState, 0o711);
  plant(runtimeState);
  const env: RuntimeEnv = await readRuntimeEnv(
    {
      CLAWFLEET_AGENT_ID: 'fran',
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(franOnOpenclaw()),
      ...(opts.placement === 'aws'
        ? { CLAWFLEET_INBOX_URL: 'http://q/in', CLAWFLEET_OUTBOX_URL: 'http://q/out', CLAWFLEET_DLQ_URL: 'http://q/dlq' }
        : { CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1', CLAWFLEET_SECRETS_FD: '3' }),
      CLAWFLEET_WORKSPACE: workspace,
      CLAWFLEET_RUNTIME_STATE: runtimeState,
      CLAWFLEET_HEALTH_FILE: healthFile,
      CLAWFLEET_OPENCLAW_NODE: install.node,
      CLAWFLEET_OPENCLAW_CLI: install.cli,
      CLAWFLEET_OPENCLAW_READY_SECONDS: '5',
      ...extra,
    },
    async () => JSON.stringify({ token: 'x'.repeat(16), secrets: {} }),
  );
  const starting = startWith(env);
  const outcome = starting.then(
    () => 'started',
    (err: unknown) => err,
  );
  return { install, workspace, healthFile, outcome };
}

describe('the openclaw kind’s container health file', () => {
  it('is written from the first moment, while the gateway is still starting (its state on the workspace, its config not)', async () => {
    const { workspace, healthFile, outcome } = await startNeverReady();
    // Written before the gateway could be ready (it never is here), and fresh.
    await expect.poll(() => existsSync(healthFile)).toBe(true);
    // Fresh: stamped now, not some old run's (a generous bound: a busy machine is slow, not that slow).
    expect(Date.now() - Number(readFileSync(healthFile, 'utf8'))).toBeLessThan(30_000);
    // The gateway's state is on the agent's workspace (EFS on AWS), its config in the runtime's own state.
    await expect.poll(() => existsSync(openclawStateDir(workspace))).toBe(true);
    await expect.poll(() => existsSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json'))).toBe(true);
    const config = readFileSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json'), 'utf8');
    expect(statSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json')).mode & 0o777).toBe(0o600);
    expect(config).toContain(KEY);

    const err = await outcome;
    expect(err).toBeInstanceOf(ClawfleetError);
    expect((err as ClawfleetError).code).toBe('OPENCLAW_GATEWAY_FAILED');
    expect((err as Error).message).toMatch(/not ready within 5 s/);
    // The config with the key never went to the shared workspace.
    expect(existsSync(join(openclawStateDir(workspace), 'openclaw.json'))).toBe(false);
  }, 90_000);
});

describe('OpenClaw state from before the move into the workspace', () => {
  it('is moved over once, at the first start, so no session is lost; a state already in the workspace is left alone', async () => {
    const { workspace, outcome } = await startNeverReady({}, (state) => {
      mkdirSync(join(state, 'openclaw', 'state', 'agents', 'fran'), { recursive: true });
      writeFileSync(join(state, 'openclaw', 'state', 'agents', 'fran', 'sessions.marker'), 'old sessions');
    });
    await outcome;
    expect(readFileSync(join(openclawStateDir(workspace), 'agents', 'fran', 'sessions.marker'), 'utf8')).toBe('old sessions');
    expect(existsSync(join(`${workspace}-state`, 'openclaw', 'state'))).toBe(false);

    const log = memoryLogger();
    const legacy = tempDir('cf-openclaw-legacy-');
    const current = tempDir('cf-openclaw-current-');
    moveLegacyState(legacy, current, log);
    expect(existsSync(legacy)).toBe(true);
  }, 90_000);
});

describe('a gateway down too long', () => {
  it('leaves the health file to age after five minutes down, and is well again once it is back', () => {
    let t = 0;
    let up = false;
    const well = downNoLongerThan(
      5 * 60_000,
      () => up,
      () => t,
    );
    expect(well()).toBe(true); // down since 0
    t = 4 * 60_000 + 59_000;
    expect(well()).toBe(true);
    t = 5 * 60_000;
    expect(well()).toBe(false);
    up = true;
    expect(well()).toBe(true);
    // A new outage counts from when it is first seen, not from the old one.
    up = false;
    t = 6 * 60_000;
    expect(well()).toBe(true);
    t = 10 * 60_000;
    expect(well()).toBe(true);
    t = 11 * 60_000;
    expect(well()).toBe(false);
  });
});

describe('the gateway’s user', () => {
  it('is both CLAWFLEET_OPENCLAW_UID and _GID or neither', async () => {
    const base = {
      CLAWFLEET_AGENT_ID: 'fran',
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(franOnOpenclaw()),
      CLAWFLEET_INBOX_URL: 'http://q/in',
      CLAWFLEET_OUTBOX_URL: 'http://q/out',
      CLAWFLEET_DLQ_URL: 'http://q/dlq',
    };
    expect((await readRuntimeEnv(base)).openclaw.runAs).toBeUndefined();
    expect((await readRuntimeEnv({ ...base, CLAWFLEET_OPENCLAW_UID: '20100', CLAWFLEET_OPENCLAW_GID: '20000' })).openclaw.runAs).toEqual({
      uid: 20100,
      gid: 20000,
    });
    await expect(readRuntimeEnv({ ...base, CLAWFLEET_OPENCLAW_UID: '20100' })).rejects.toThrow(/CLAWFLEET_OPENCLAW_GID: is needed with the other/);
    await expect(readRuntimeEnv({ ...base, CLAWFLEET_OPENCLAW_UID: '0', CLAWFLEET_OPENCLAW_GID: '0' })).rejects.toThrow(/CLAWFLEET_OPENCLAW_UID/);
  });

  it.skipIf(!ROOT)(
    ROOT
      ? 'refuses, on AWS and as root, to start a gateway without a user of its own (an image without the openclaw stage’s)'
      : 'refuses a root gateway on AWS (skipped: only a root runtime can be refused so; run as root)',
    async () => {
      const install = neverReadyInstall(OPENCLAW_VERSION);
      const workspace = join(tempDir('cf-openclaw-rootless-'), 'workspace');
      mkdirSync(workspace);
      const env = await readRuntimeEnv({
        CLAWFLEET_AGENT_ID: 'fran',
        CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(franOnOpenclaw()),
        CLAWFLEET_INBOX_URL: 'http://q/in',
        CLAWFLEET_OUTBOX_URL: 'http://q/out',
        CLAWFLEET_DLQ_URL: 'http://q/dlq',
        CLAWFLEET_WORKSPACE: workspace,
        CLAWFLEET_RUNTIME_STATE: `${workspace}-state`,
        CLAWFLEET_OPENCLAW_NODE: install.node,
        CLAWFLEET_OPENCLAW_CLI: install.cli,
      });
      const started = startWith(env);
      await expect(started).rejects.toThrow(/on AWS runs its gateway as a user of its own, never root: set CLAWFLEET_OPENCLAW_UID and CLAWFLEET_OPENCLAW_GID/);
      // Refused before anything started: no gateway config was written.
      expect(existsSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json'))).toBe(false);
    },
  );

  it.skipIf(!ROOT)(
    ROOT
      ? 'runs the gateway (and its guard) as that user, owning its own directory and nothing else, led by no link it left there'
      : 'runs the gateway as that user — SKIPPED: not running as root, which dropping to another user needs',
    async () => {
      // What a gateway's user could have left in its own directory for the next (root's) start:
      // a link at the config's path and one in its home, both to a file of root's.
      const victim = join(tempDir('cf-openclaw-victim-'), 'root-only');
      writeFileSync(victim, 'root only\n', { mode: 0o600 });
      // The gateway's own user is the image's boundary (on AWS; locally it is bubblewrap).
      const { install, workspace, outcome } = await startNeverReady(
        { CLAWFLEET_OPENCLAW_UID: '65534', CLAWFLEET_OPENCLAW_GID: '65534' },
        (state) => {
          mkdirSync(join(state, 'openclaw', 'home'), { recursive: true });
          symlinkSync(victim, join(state, 'openclaw', 'openclaw.json'));
          symlinkSync(victim, join(state, 'openclaw', 'home', 'planted'));
        },
        { placement: 'aws' },
      );
      const gateway = await expect
        .poll(() => processes().find((p) => p.command.includes(install.cli) && !p.command.includes('-e')))
        .toBeDefined()
        .then(() => processes().find((p) => p.command.includes(install.cli) && !p.command.includes('-e'))!);
      const status = readFileSync(`/proc/${gateway.pid}/status`, 'utf8');
      expect(/^Uid:\s+(\d+)/m.exec(status)![1]).toBe('65534');
      expect(/^Gid:\s+(\d+)/m.exec(status)![1]).toBe('65534');
      // No supplementary group of root's kept, no capability.
      expect(/^Groups:[ \t]*(.*)$/m.exec(status)![1]!.trim()).toBe('');
      expect(/^CapEff:\s+(\S+)/m.exec(status)![1]).toBe('0000000000000000');
      const dir = join(`${workspace}-state`, 'openclaw');
      expect(statSync(dir)).toMatchObject({ uid: 65534 });
      expect(statSync(join(dir, 'openclaw.json'))).toMatchObject({ uid: 65534 });
      expect(statSync(openclawStateDir(workspace))).toMatchObject({ uid: 65534 });
      expect(statSync(`${workspace}-state`)).toMatchObject({ uid: 0 });
      // Neither link was followed: the file of root's is untouched and still root's; the config is a file of its own.
      expect(readFileSync(victim, 'utf8')).toBe('root only\n');
      expect(statSync(victim)).toMatchObject({ uid: 0, gid: 0 });
      expect(lstatSync(join(dir, 'openclaw.json')).isFile()).toBe(true);
      expect(await outcome).toBeInstanceOf(ClawfleetError);
    },
    20_000,
  );
});

describe('the local sandbox around the gateway', () => {
  it('refuses to start the kind locally without bubblewrap, saying why and how to get it, before anything is written', async () => {
    const { install, workspace, outcome } = await startNeverReady({ CLAWFLEET_BWRAP: '/nonexistent/bwrap' });
    const err = await outcome;
    expect(err).toBeInstanceOf(ClawfleetError);
    expect((err as ClawfleetError).code).toBe('OPENCLAW_SANDBOX_UNAVAILABLE');
    expect((err as Error).message).toContain('runs its gateway locally only inside a sandbox');
    expect((err as Error).message).toContain('bubblewrap not found at /nonexistent/bwrap');
    expect((err as Error).message).toContain('apt-get install bubblewrap');
    expect(existsSync(join(`${workspace}-state`, 'openclaw', 'openclaw.json'))).toBe(false);
    expect(processes().some((p) => p.command.includes(install.cli))).toBe(false);
  });

  it('asks for none on AWS, where the container and the gateway’s own user are the boundary', async () => {
    const { outcome } = await startNeverReady(
      { CLAWFLEET_BWRAP: '/nonexistent/bwrap', ...(ROOT ? { CLAWFLEET_OPENCLAW_UID: '65534', CLAWFLEET_OPENCLAW_GID: '65534' } : {}) },
      () => {},
      { placement: 'aws' },
    );
    // It got as far as starting the gateway (which never says it is ready).
    expect(await outcome).toMatchObject({ code: 'OPENCLAW_GATEWAY_FAILED', message: expect.stringMatching(/not ready within 5 s/) });
  }, 90_000);

  it('shows the gateway its own workspace and directory, and not the secrets file, another agent, the state database or the code', async () => {
    // npm start's layout: <state>/workspaces/<agent>, <state>/runtime/<agent>, <state>/state.db, the secrets file beside.
    const base = tempDir('cf-openclaw-sandbox-');
    const state = join(base, 'state');
    const t = {
      secrets: join(base, 'clawfleet.secrets.json'),
      otherNote: join(state, 'workspaces', 'grif', 'notes.txt'),
      otherRuntime: join(state, 'runtime', 'grif', 'token'),
      stateDb: join(state, 'state.db'),
      repo: join(process.cwd(), 'package.json'),
      ownNote: join(state, 'workspaces', 'fran', 'own-note.txt'),
      ownConfig: join(state, 'runtime', 'fran', 'openclaw', 'openclaw.json'),
    };
    mkdirSync(join(state, 'workspaces', 'fran'), { recursive: true });
    mkdirSync(join(state, 'workspaces', 'grif'), { recursive: true });
    mkdirSync(join(state, 'runtime', 'grif'), { recursive: true });
    writeFileSync(t.secrets, JSON.stringify({ 'clawfleet/demo/agents/grif': { OPENAI_API_KEY: 'sk-grif-never-seen' } }));
    writeFileSync(t.otherNote, 'grif private');
    writeFileSync(t.otherRuntime, 'grif token');
    writeFileSync(t.stateDb, 'SQLite format 3');
    writeFileSync(t.ownNote, 'fran own');
    const writes = { ownWorkspace: join(state, 'workspaces', 'fran', 'made.txt'), otherWorkspace: join(state, 'workspaces', 'grif', 'planted.txt') };
    // The "gateway": reads and writes what it is pointed at, records what happened in its state (the workspace), then waits.
    const install = neverReadyInstall(
      OPENCLAW_VERSION,
      `import fs from 'node:fs';
const out = {};
for (const [k, p] of Object.entries(${JSON.stringify(t)})) { try { out[k] = fs.readFileSync(p, 'utf8'); } catch (e) { out[k] = 'ERR ' + e.code; } }
for (const [k, p] of Object.entries(${JSON.stringify(writes)})) { try { fs.writeFileSync(p, 'x'); out['write:' + k] = 'written'; } catch (e) { out['write:' + k] = 'ERR ' + e.code; } }
fs.writeFileSync(process.env.OPENCLAW_STATE_DIR + '/probe.json.part', JSON.stringify(out));
fs.renameSync(process.env.OPENCLAW_STATE_DIR + '/probe.json.part', process.env.OPENCLAW_STATE_DIR + '/probe.json');`,
    );
    const workspace = join(state, 'workspaces', 'fran');
    const { outcome } = await startNeverReady({ CLAWFLEET_SANDBOX_HIDE: JSON.stringify([state, process.cwd(), base]) }, () => {}, {
      install,
      workspace,
      runtimeState: join(state, 'runtime', 'fran'),
    });
    const probe = join(openclawStateDir(workspace), 'probe.json');
    await expect.poll(() => existsSync(probe)).toBe(true);
    const seen = JSON.parse(readFileSync(probe, 'utf8')) as Record<string, string>;
    expect(seen.ownNote).toBe('fran own');
    expect(seen.ownConfig).toContain(KEY); // its own config, with this agent's own key
    expect(seen['write:ownWorkspace']).toBe('written');
    for (const hidden of ['secrets', 'otherNote', 'otherRuntime', 'stateDb', 'repo']) expect(seen[hidden], hidden).toBe('ERR ENOENT');
    expect(seen['write:otherWorkspace']).toMatch(/^ERR /);
    expect(existsSync(writes.otherWorkspace)).toBe(false);
    await outcome;
  }, 90_000);
});

describe('the pinned OpenClaw release', () => {
  it('is the only install the managed gateway starts: another version, or none, is refused with why', () => {
    expect(() => checkPinnedInstall(neverReadyInstall(OPENCLAW_VERSION))).not.toThrow();
    const other = neverReadyInstall('2026.8.1');
    expect(() => checkPinnedInstall(other)).toThrow(ClawfleetError);
    expect(() => checkPinnedInstall(other)).toThrow(`runtime.kind "openclaw" runs OpenClaw ${OPENCLAW_VERSION}, but`);
    expect(() => checkPinnedInstall(other)).toThrow(/says 2026\.8\.1/);
    expect(() => checkPinnedInstall({ node: process.execPath, cli: '/nonexistent/openclaw.mjs' })).toThrow(/\/nonexistent\/openclaw.mjs is missing/);
  });
});

describe('the image stage an agent runs from on AWS', () => {
  it('is openclaw for the openclaw kind, browser for a native agent with a browser, runtime otherwise', () => {
    const browser = { tools: { browser: { enabled: true } } };
    expect(imageVariantFor({ runtime: { kind: 'openclaw' } })).toBe('openclaw');
    expect(imageVariantFor({ ...browser, runtime: { kind: 'native' } })).toBe('browser');
    expect(imageVariantFor({})).toBe('runtime');
    expect(imageVariantProblem({ ...browser, runtime: { kind: 'openclaw' } })).toMatch(/openclaw image carries no Chromium/);
    expect(imageVariantProblem({ runtime: { kind: 'openclaw' } })).toBeUndefined();
    expect(imageVariantProblem(browser)).toBeUndefined();
  });
});
