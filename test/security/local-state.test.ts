// Local mode's state directory (issue #12, "Why" 11): one fleet at a time on it — a second
// `clawfleet start` exits naming the running one's pid, a fleet killed with SIGKILL leaves
// nothing that blocks the next, and of starts racing for one directory exactly one wins —
// and nothing in it readable by anyone but its owner after a real run (the runtime's
// transcripts and seeded workspace files included), with what an earlier run left readable
// tightened at the next start and an agent's symlink, hard link or FIFO not turned into a
// way to change files elsewhere.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, linkSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { startLocalFleet, type LocalFleet, type LocalFleetOptions } from '../../local/fleet.ts';
import { readAdminFile } from '../../local/admin-file.ts';
import { lockStateDir, readHolder } from '../../local/state-lock.ts';
import { memoryLogger } from '../../shared/log.ts';
import { chatLines, postChat } from '../support/local-api.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const REPO = process.cwd();
let dir: string;
let state: string;
let outside: string;
let options: LocalFleetOptions;
let fleet: LocalFleet | undefined;
let cli: ChildProcess | undefined;
let cliOutput = '';
const scan = new SecretScan();
const fleetLog = memoryLogger();

/** Every entry under `root` (not following symlinks) with its permission bits. */
function modes(root: string): Map<string, number> {
  const found = new Map<string, number>();
  const walk = (path: string) => {
    const stat = lstatSync(path);
    found.set(relative(root, path) || '.', stat.mode & 0o7777);
    if (stat.isDirectory()) for (const name of readdirSync(path)) walk(join(path, name));
  };
  walk(root);
  return found;
}

const octal = (entries: Map<string, number>) => Object.fromEntries([...entries].map(([k, v]) => [k, v.toString(8).padStart(4, '0')]));

async function answered(f: LocalFleet, text: string): Promise<void> {
  expect((await postChat(f, 'solo', text)).status).toBe(202);
  await expect
    .poll(async () => (await chatLines(f, 'solo')).some((m) => m.role === 'agent' && m.text.includes(text)), { timeout: 30_000, interval: 100 })
    .toBe(true);
}

async function running(f: LocalFleet): Promise<void> {
  await expect.poll(() => f.supervisor.state('solo'), { timeout: 30_000, interval: 100 }).toBe('running');
}

beforeAll(() => {
  dir = tempDir('cf-local-state-');
  state = join(dir, 'state');
  outside = join(dir, 'outside');
  mkdirSync(outside);
  // No model key: the agent answers with the offline model, which is all a run needs here.
  writeFileSync(
    join(dir, 'clawfleet.json'),
    JSON.stringify({
      fleet: 'statedir',
      agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'solo', default: true }] },
      models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
    }),
  );
  writeFileSync(join(dir, 'secrets.json'), '{}');
  options = { configPath: join(dir, 'clawfleet.json'), secretsPath: join(dir, 'secrets.json'), stateDir: state, port: 0, log: fleetLog };
});

afterAll(async () => {
  await fleet?.stop();
  if (cli && cli.exitCode === null && cli.signalCode === null) process.kill(-cli.pid!, 'SIGKILL');
});

describe('the state directory after a real run', () => {
  it('holds nothing that group or others may read, write or enter: state.db and its WAL, tokens, logs, workspaces, transcripts', async () => {
    fleet = await startLocalFleet(options);
    scan.addSecrets(fleet.dashboardToken, readAdminFile(state)!.token);
    await running(fleet);
    await answered(fleet, 'write me a transcript');
    const found = modes(state);
    const loose = [...found].filter(([, mode]) => mode & 0o077);
    expect(octal(new Map(loose))).toEqual({});
    for (const file of ['state.db', 'state.db-wal', 'state.db-shm', 'admin.json', 'dashboard-token', 'fleet.pid', 'fleet.lock', 'logs/solo.log']) {
      expect(found.get(file)?.toString(8), file).toBe('600');
    }
    for (const d of ['.', 'logs', 'workspaces', 'workspaces/solo', 'workspaces/solo/sessions']) expect(found.get(d)?.toString(8), d).toBe('700');
    // What the runtime wrote: its seeded bootstrap files and the session transcript.
    const written = [...found.keys()].filter((k) => k.startsWith('workspaces/solo/') && statSync(join(state, k)).isFile());
    expect(written.some((k) => k.startsWith('workspaces/solo/sessions/'))).toBe(true);
    expect(written).toContain('workspaces/solo/AGENTS.md');
    await fleet.stop();
    fleet = undefined;
  });
});

describe('one fleet per state directory, and what an earlier run left readable', () => {
  it('tightens what an earlier version left readable when the next fleet starts, without following an agent’s symlink, hard link or FIFO out of the workspace', async () => {
    // As an older version (or a copied directory) left it: everything readable by all.
    for (const [path] of modes(state)) chmodSync(join(state, path), statSync(join(state, path)).isDirectory() ? 0o755 : 0o644);
    // What an agent may leave in its workspace, pointing at files outside the state directory.
    const ws = join(state, 'workspaces', 'solo');
    writeFileSync(join(outside, 'victim.txt'), 'not the fleet’s', { mode: 0o644 });
    writeFileSync(join(outside, 'linked.txt'), 'not the fleet’s either', { mode: 0o644 });
    mkdirSync(join(outside, 'dir'), { mode: 0o755 });
    writeFileSync(join(outside, 'dir', 'inner.txt'), 'nor this', { mode: 0o644 });
    chmodSync(join(outside, 'victim.txt'), 0o644);
    chmodSync(join(outside, 'linked.txt'), 0o644);
    chmodSync(join(outside, 'dir'), 0o755);
    chmodSync(join(outside, 'dir', 'inner.txt'), 0o644);
    symlinkSync(join(outside, 'victim.txt'), join(ws, 'escape'));
    symlinkSync(join(outside, 'dir'), join(ws, 'dirlink'));
    linkSync(join(outside, 'linked.txt'), join(ws, 'hard'));
    expect(spawnSync('mkfifo', [join(ws, 'pipe')]).status).toBe(0);

    // The next start is a real `clawfleet start`, the process a second one will meet.
    cli = spawn(
      process.execPath,
      ['bin/clawfleet.js', 'start', '--config', options.configPath, '--secrets', options.secretsPath, '--state', state, '--port', '0'],
      {
        cwd: REPO,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    cli.stdout!.on('data', (c: Buffer) => (cliOutput += c.toString()));
    cli.stderr!.on('data', (c: Buffer) => (cliOutput += c.toString()));
    await expect.poll(() => cliOutput, { timeout: 60_000, interval: 100 }).toContain('dashboard and chat:');
    scan.addSecrets(readAdminFile(state)!.token);

    const loose = [...modes(state)].filter(
      ([path, mode]) => mode & 0o077 && !['workspaces/solo/escape', 'workspaces/solo/dirlink', 'workspaces/solo/hard', 'workspaces/solo/pipe'].includes(path),
    );
    expect(octal(new Map(loose))).toEqual({});
    // Untouched: what the links point at, the hard-linked file (other links: it is not only the fleet's), and the FIFO (never opened).
    const after = octal(modes(outside));
    delete after['.'];
    expect(after).toEqual({ 'victim.txt': '0644', 'linked.txt': '0644', dir: '0755', 'dir/inner.txt': '0644' });
    expect(lstatSync(join(ws, 'escape')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(ws, 'pipe')).isFIFO()).toBe(true);
  });

  it('refuses a second `clawfleet start` on the directory, naming the running one’s pid, and leaves the first running', async () => {
    const io = captureIO({ cwd: dir });
    const code = await runCli(['start', '--config', 'clawfleet.json', '--secrets', 'secrets.json', '--state', 'state', '--port', '0'], io);
    expect(code).toBe(1);
    expect(io.errText()).toMatch(new RegExp(`state directory .*state is in use by clawfleet pid ${cli!.pid}\\b.*\\(STATE_DIR_IN_USE\\)`, 's'));
    expect(readHolder(state)?.pid).toBe(cli!.pid);
    scan.record('second start', io.outText() + io.errText());
    // The first fleet is still the one the CLI talks to.
    const status = captureIO({ cwd: dir });
    expect(await runCli(['status', '--state', 'state', '--json'], status)).toBe(0);
    expect(JSON.parse(status.outText()).agents[0].detail).toMatch(/^pid \d+/);
  });

  it('lets the next start take the directory once the holder is killed with SIGKILL (the kernel drops its lock with it)', async () => {
    const exited = new Promise((resolve) => cli!.once('exit', resolve));
    process.kill(-cli!.pid!, 'SIGKILL');
    await exited;
    fleet = await startLocalFleet(options);
    expect(readHolder(state)?.pid).toBe(process.pid);
    await running(fleet);
    await answered(fleet, 'still mine after the takeover');
    await fleet.stop();
    fleet = undefined;
    // A clean stop says no one holds it.
    expect(readHolder(state)).toBeUndefined();
  });
});

describe('starts racing for one state directory', () => {
  it('let exactly one of four processes take it; the others are told who has it', async () => {
    const raced = join(dir, 'raced');
    mkdirSync(raced, { mode: 0o700 });
    const script = join(dir, 'race.ts');
    writeFileSync(
      script,
      `import { lockStateDir } from ${JSON.stringify(join(REPO, 'local', 'state-lock.ts'))};
       process.stdout.write('ready\\n');
       process.stdin.once('data', () => {
         lockStateDir(${JSON.stringify(raced)}, { pid: process.pid, startedAt: Date.now() }).then(
           () => process.stdout.write('won\\n'),
           (err) => process.stdout.write('lost ' + err.code + ' ' + err.message + '\\n'),
         );
       });
       process.stdin.once('end', () => process.exit(0));`,
    );
    // Bundled once, so four processes start in a blink rather than compile TypeScript each.
    const bundle = join(REPO, '.cache', `race-${process.pid}.mjs`);
    buildSync({ entryPoints: [script], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'error' });
    const racers = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, [bundle], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      return { child, out: () => out };
    });
    await expect.poll(() => racers.every((r) => r.out().includes('ready')), { timeout: 60_000, interval: 50 }).toBe(true);
    for (const r of racers) r.child.stdin!.write('go\n');
    await expect.poll(() => racers.every((r) => /\n(won|lost)/.test(r.out())), { timeout: 30_000, interval: 50 }).toBe(true);
    const winners = racers.filter((r) => r.out().includes('won'));
    const said = racers.map((r) => `${r.child.pid}: ${r.out().trim()}`).join(' | ');
    expect(winners, said).toHaveLength(1);
    for (const r of racers.filter((x) => x !== winners[0]))
      expect(r.out(), said).toMatch(new RegExp(`lost STATE_DIR_IN_USE .*clawfleet pid ${winners[0]!.child.pid}\\b`));
    expect(readHolder(raced)?.pid).toBe(winners[0]!.child.pid);
    await Promise.all(racers.map((r) => new Promise((resolve) => (r.child.once('exit', resolve), r.child.stdin!.end()))));
    // The winner is gone, and its lock with it.
    (await lockStateDir(raced, { pid: process.pid, startedAt: Date.now() })).release();
    rmSync(bundle, { force: true });
  });
});

describe('a lock its holder keeps no reference to', () => {
  // better-sqlite3 closes a handle when it is garbage-collected, and closing drops the
  // kernel lock: CI once saw two of four racers win because a racer kept nothing of its
  // StateLock. The lock stays held until release() or exit, whatever the caller keeps.
  it('is still held after a full garbage collection in the holder', async () => {
    const held = join(dir, 'held-after-gc');
    mkdirSync(held, { mode: 0o700 });
    const script = join(dir, 'hold.ts');
    writeFileSync(
      script,
      `import { lockStateDir } from ${JSON.stringify(join(REPO, 'local', 'state-lock.ts'))};
       await lockStateDir(${JSON.stringify(held)}, { pid: process.pid, startedAt: Date.now() });
       globalThis.gc();
       await new Promise((resolve) => setTimeout(resolve, 50));
       globalThis.gc();
       process.stdout.write('collected\\n');
       process.stdin.resume();
       process.stdin.once('end', () => process.exit(0));`,
    );
    const bundle = join(REPO, '.cache', `hold-${process.pid}.mjs`);
    buildSync({ entryPoints: [script], bundle: true, platform: 'node', format: 'esm', packages: 'external', outfile: bundle, logLevel: 'error' });
    const child = spawn(process.execPath, ['--expose-gc', bundle], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await expect.poll(() => out, { timeout: 60_000, interval: 50 }).toContain('collected');
      await expect(lockStateDir(held, { pid: process.pid, startedAt: Date.now() })).rejects.toMatchObject({
        code: 'STATE_DIR_IN_USE',
        message: expect.stringContaining(`clawfleet pid ${child.pid}`),
      });
    } finally {
      await new Promise((resolve) => (child.once('exit', resolve), child.stdin!.end()));
      rmSync(bundle, { force: true });
    }
    (await lockStateDir(held, { pid: process.pid, startedAt: Date.now() })).release();
  });
});

describe('what the fleets said', () => {
  it('never printed or logged a dashboard or admin token', () => {
    scan.record('clawfleet start output', cliOutput);
    scan.record('in-process fleet log', fleetLog.lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(cliOutput).toContain('dashboard and chat:');
    expect(scan.hits()).toEqual([]);
  });
});
