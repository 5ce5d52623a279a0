// The local sandbox (bubblewrap) holds what docs/security.md claims for code the agent
// chooses: its workspace writable and the system read-only, a /tmp of its own, no other
// process in sight, no capability even when the runtime is root, no user namespace of its
// own, no network when the config says so, nothing of the runtime's environment, paths
// the launcher hides hidden even inside a system directory, and nothing of a call left
// running once it ends, times out or is cancelled — a `setsid` grandchild included
// (issue #12, "Why" 7). Real bwrap (the harness installs it), real processes.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BwrapSandbox, findBwrap, SYSTEM_DIRS } from '../../shared/adapters/sandbox/bwrap-sandbox.ts';
import { baseSandboxEnv, type Sandbox } from '../../shared/adapters/sandbox/sandbox-port.ts';
import { runSandboxed } from '../../runtime-image/src/tools/exec-tool.ts';
import { livingWith, uniqueSleep } from '../support/processes.ts';
import { bwrapSandbox } from '../support/sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';

const CACHE = fileURLToPath(new URL('../../.cache/', import.meta.url));
let workspace: string;
let sandbox: Sandbox;
let server: Server;
let port: number;

beforeAll(async () => {
  workspace = realpathSync(tempDir('cf-bwrap-'));
  sandbox = await bwrapSandbox(workspace);
  server = createServer((_req, res) => res.end('host server')).listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  port = (server.address() as AddressInfo).port;
});

const after: (() => void)[] = [];
afterAll(async () => {
  for (const f of after) f();
  await new Promise<void>((r) => server.close(() => r()));
});

/** Runs `command` (sh -c) in `box` as exec does, stdout and stderr together. */
async function sh(command: string, opts: { box?: Sandbox; network?: boolean; timeoutMs?: number; signal?: AbortSignal; env?: Record<string, string> } = {}) {
  return runSandboxed(['/bin/sh', '-c', `{ ${command}\n} 2>&1`], {
    sandbox: opts.box ?? sandbox,
    env: opts.env ?? baseSandboxEnv(workspace),
    network: opts.network ?? true,
    timeoutMs: opts.timeoutMs ?? 20_000,
    maxOutputBytes: 200_000,
    signal: opts.signal,
  });
}

describe('the bubblewrap sandbox', () => {
  it('lets the command write its workspace and nothing else: / and the system are read-only', async () => {
    const r = await sh('echo hello > note.txt && cat note.txt; for p in /x /usr/x /etc/x /bin/x /opt/x; do touch $p || echo "refused $p"; done');
    expect(r.code).toBe(0);
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('hello\n');
    for (const p of ['/x', '/usr/x', '/etc/x', '/bin/x']) expect(r.output).toContain(`refused ${p}`);
    expect(r.output).toMatch(/Read-only file system/);
    expect(existsSync('/usr/x')).toBe(false);
  });

  it('gives each call a /tmp of its own: the host’s is not there, and the next call does not see this one’s', async () => {
    const marker = join('/tmp', `cf-host-file-${process.pid}`);
    writeFileSync(marker, 'host');
    const first = await sh(`ls ${marker} || echo "no host file"; echo mine > /tmp/left-behind; cat /tmp/left-behind`);
    expect(first.output).toContain('no host file');
    expect(first.output).toContain('mine');
    const second = await sh('cat /tmp/left-behind || echo gone');
    expect(second.output).toContain('gone');
    expect(existsSync('/tmp/left-behind')).toBe(false);
  });

  it('shows no other process: only its own, in a pid namespace of its own', async () => {
    const r = await sh('ls /proc | grep -E "^[0-9]+$" | tr "\\n" " "; echo; echo "self $$"');
    const pids = r.output.split('\n')[0]!.trim().split(' ').map(Number);
    // bwrap's init, the shell, ls, grep and tr: a handful of small numbers, never the runtime's.
    expect(pids.length).toBeLessThan(10);
    expect(Math.max(...pids)).toBeLessThan(20);
    expect(pids).not.toContain(process.pid);
    expect(r.output).not.toMatch(/node|vitest/);
  });

  it('holds no capability and cannot make a user namespace, even when the runtime is root', async () => {
    const r = await sh('grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status; unshare -U true || echo "no userns"');
    expect(r.output).toMatch(/CapEff:\s+0{16}/);
    expect(r.output).toMatch(/CapBnd:\s+0{16}/);
    expect(r.output).toMatch(/NoNewPrivs:\s+1/);
    expect(r.output).toContain('no userns');
  });

  it('shows /etc without its credential files (the runtime may be root, and root owns them)', async () => {
    const r = await sh('cat /etc/shadow /etc/gshadow; test -r /etc/passwd && echo "passwd readable"');
    expect(r.output).not.toMatch(/^root:/m);
    expect(r.output).toContain('passwd readable');
  });

  it('gets exactly the environment it is given, nothing of the runtime’s', async () => {
    process.env.CLAWFLEET_SECRETS = 'sk-must-not-leak-into-the-sandbox-000';
    process.env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI = '/v2/credentials/must-not-leak';
    try {
      const r = await sh('env | sort');
      const names = r.output
        .trim()
        .split('\n')
        .map((l) => l.slice(0, l.indexOf('=')));
      // The shell adds PWD (and SHLVL on some shells); everything else is what exec gave it.
      expect(names.filter((n) => !['PWD', 'SHLVL', 'OLDPWD', '_'].includes(n))).toEqual(['HOME', 'LANG', 'PATH']);
      expect(r.output).not.toContain('must-not-leak');
    } finally {
      delete process.env.CLAWFLEET_SECRETS;
      delete process.env.AWS_CONTAINER_CREDENTIALS_RELATIVE_URI;
    }
  });

  it('reaches the network when allowed, and not even the host’s loopback when not', async () => {
    const fetchHost = `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log('got', t), e => console.log('failed', e.cause?.code ?? e.message))"`;
    expect((await sh(fetchHost, { network: true })).output).toContain('got host server');
    const cut = await sh(`${fetchHost}; cat /proc/net/dev | grep -c ":" `, { network: false });
    expect(cut.output).toMatch(/failed (ECONNREFUSED|ENETUNREACH)/);
  });

  it('leaves nothing running after the call: a setsid grandchild dies with the call’s pid namespace', async () => {
    const marker = uniqueSleep();
    const started = Date.now();
    const r = await sh(`setsid sh -c "sleep ${marker}" & echo started`);
    expect(r).toMatchObject({ code: 0, timedOut: false });
    expect(r.output).toContain('started');
    // The call did not wait for the 300 s sleep (a generous bound: a busy machine is slow, not that slow), and nothing of it is left on the host.
    expect(Date.now() - started).toBeLessThan(60_000);
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('kills everything the call started when its turn is cancelled', async () => {
    const marker = uniqueSleep();
    const abort = new AbortController();
    const running = sh(`setsid sh -c "sleep ${marker}" & sleep ${marker}`, { signal: abort.signal });
    // Both sleeps (and the shells and launcher whose command lines name them) are running.
    await expect.poll(() => livingWith(marker).length).toBeGreaterThanOrEqual(2);
    abort.abort();
    expect(await running).toMatchObject({ aborted: true });
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('ends the call on release even where bwrap died before its init could arm --die-with-parent (containers/bubblewrap#633)', async () => {
    const marker = uniqueSleep();
    const lease = await sandbox.lease({
      argv: ['/bin/sh', '-c', `setsid sh -c "sleep ${marker}" & sleep ${marker}`],
      env: baseSandboxEnv(workspace),
      network: false,
    });
    // The race's outcome, made certain: an init that never set its parent-death signal.
    const args = lease.launch.args.filter((a) => a !== '--die-with-parent');
    const bwrap = spawn(lease.launch.file, args, { cwd: lease.launch.cwd, env: lease.launch.env, detached: true, stdio: 'ignore' });
    after.push(() => {
      for (const pid of livingWith(marker)) process.kill(pid, 'SIGKILL');
    });
    await expect.poll(() => livingWith(marker).length).toBeGreaterThanOrEqual(4);
    const exited = new Promise((r) => bwrap.once('exit', r));
    process.kill(bwrap.pid!, 'SIGKILL'); // bwrap alone, as a cancelled call's process group kill reaches it
    await exited;
    // The namespace outlived bwrap: its init, the shell and both sleeps.
    await new Promise((r) => setTimeout(r, 300));
    expect(livingWith(marker).length).toBeGreaterThanOrEqual(3);
    await lease.release();
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('kills everything the call started when it times out', async () => {
    const marker = uniqueSleep();
    const r = await sh(`setsid sh -c "sleep ${marker}" & sleep ${marker}`, { timeoutMs: 1_000 });
    expect(r).toMatchObject({ timedOut: true });
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('hides the paths it is told to hide even inside a shown system directory (a fleet under /opt), and still shows its own workspace there', async () => {
    // A stand-in for /opt holding the fleet: its state dir, with this agent's workspace in it,
    // and its secrets file. Not under /tmp, which every call gets fresh (it would hide it anyway).
    mkdirSync(CACHE, { recursive: true });
    const opt = realpathSync(mkdtempSync(join(CACHE, 'fake-opt-')));
    after.push(() => rmSync(opt, { recursive: true, force: true }));
    const fleetDir = join(opt, 'clawfleet');
    const stateDir = join(fleetDir, '.clawfleet');
    const own = join(stateDir, 'workspaces', 'alpha');
    mkdirSync(own, { recursive: true });
    mkdirSync(join(stateDir, 'workspaces', 'beta'), { recursive: true });
    writeFileSync(join(stateDir, 'admin.json'), '{"token":"admin-token-inside-opt"}');
    writeFileSync(join(fleetDir, 'clawfleet.secrets.json'), '{"k":"secret-inside-opt"}');
    writeFileSync(join(opt, 'some-tool'), 'a tool installed under /opt');
    const box = new BwrapSandbox({
      bwrap: findBwrap(undefined)!,
      workspace: own,
      hide: [stateDir, join(fleetDir, 'clawfleet.secrets.json')],
      systemDirs: [...SYSTEM_DIRS, opt],
      disableUserns: true,
    });
    const r = await sh(
      `cat ${join(opt, 'some-tool')}; cat ${join(stateDir, 'admin.json')}; cat ${join(fleetDir, 'clawfleet.secrets.json')}; ls ${join(stateDir, 'workspaces')}; echo mine > ${join(own, 'x')} && echo "own workspace writable"`,
      { box, env: baseSandboxEnv(own) },
    );
    expect(r.output).toContain('a tool installed under /opt');
    expect(r.output).not.toContain('admin-token-inside-opt');
    expect(r.output).not.toContain('secret-inside-opt');
    expect(r.output).not.toMatch(/^beta$/m);
    expect(r.output).toContain('own workspace writable');
  });
});
