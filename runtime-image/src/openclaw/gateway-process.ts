// A managed OpenClaw gateway: its config written (0600, in the runtime's own state, out of
// the sandbox's sight), the pinned OpenClaw started on Node 24 as a child of this runtime
// with an environment holding no secret at all (the agent's keys are in its config file,
// which holds this agent's alone), and watched until it says it is ready. A small guard
// process stands between: it kills the gateway's whole process group when this runtime's
// end of its stdin closes, so a SIGKILLed runtime leaves no gateway behind with its keys.
// The install it is given must be the pinned release (shared/config/openclaw-release.ts).
// In the image the gateway runs as a user of its own (never root), so nothing OpenClaw runs
// can read the runtime's environment or memory, where the task role's credentials URI is;
// locally it runs, guard and all, inside bubblewrap (gateway-sandbox.ts), so nothing it runs
// sees the fleet's secrets file or another agent's directories.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchownSync, lchownSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { OPENCLAW_VERSION } from '../../../shared/config/openclaw-release.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import { processRedactor, type Logger } from '../../../shared/log.ts';
import type { Sandbox, SandboxLease } from '../../../shared/adapters/sandbox/sandbox-port.ts';
import { gatewayConfig, type GatewayConfigInputs } from './gateway-config.ts';

/**
 * Run by Node 24 with `-e`: spawns the gateway in a process group of its own, passes
 * SIGTERM on, and when stdin ends (the runtime is gone, however it died) stops it: SIGTERM
 * to its group, SIGKILL after 5 s to the group and every descendant it has (OpenClaw starts
 * helpers in sessions of their own, out of its group). Exits with the gateway's code.
 */
const GUARD = `
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const [cmd, ...args] = process.argv.slice(1);
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], detached: true });
const descendants = (root) => {
  const parent = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d)) continue;
    try { const s = fs.readFileSync('/proc/' + d + '/stat', 'utf8'); parent.set(Number(d), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1])); } catch {}
  }
  const out = []; let frontier = [root];
  while (frontier.length) { const next = []; for (const [p, pp] of parent) if (frontier.includes(pp)) { out.push(p); next.push(p); } frontier = next; }
  return out;
};
let known = [];
const group = (sig) => { try { process.kill(-child.pid, sig); } catch {} };
const all = (sig) => { group(sig); for (const p of known) { try { process.kill(p, sig); } catch {} } };
let ending = false;
const end = (sig) => { if (ending) return; ending = true; known = descendants(child.pid); group(sig); setTimeout(() => all('SIGKILL'), 5000).unref(); };
process.stdin.on('data', () => {});
process.stdin.on('end', () => end('SIGTERM'));
process.stdin.on('error', () => end('SIGTERM'));
process.on('SIGTERM', () => end('SIGTERM'));
process.on('SIGINT', () => end('SIGTERM'));
// Its helpers are reparented once it dies: they are learnt while it runs.
setInterval(() => { if (!ending) known = descendants(child.pid); }, 2000).unref();
child.on('exit', (code, signal) => { all('SIGKILL'); process.exit(code ?? (signal ? 1 : 0)); });
`;

export interface OpenclawInstallPaths {
  /** Node 24. */
  node: string;
  /** OpenClaw's CLI entry (openclaw.mjs). */
  cli: string;
}

export interface ManagedGateway {
  url: string;
  token: string;
  pid: number | undefined;
  /** The written config file (tests read it to prove what it holds). */
  configPath: string;
  /** Resolves with the exit code once the gateway (and its guard) are gone. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Processes a previous gateway of this agent left (its guard killed too, or a helper in a
 * session of its own that outlived it): they would hold its state database's lock. Known by
 * the state directory in their environment, which only this agent's gateways carry.
 */
async function reapStale(stateDir: string, log: Logger): Promise<void> {
  const mark = `OPENCLAW_STATE_DIR=${stateDir}\0`;
  const stale = readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid)
    .filter((d) => {
      try {
        return readFileSync(`/proc/${d}/environ`, 'latin1').includes(mark);
      } catch {
        return false;
      }
    });
  if (stale.length === 0) return;
  log.warn('killing what an earlier OpenClaw gateway of this agent left running', { pids: stale.map(Number) });
  for (const pid of stale) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  for (let i = 0; i < 50 && stale.some((pid) => existsSync(`/proc/${pid}/stat`) && !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))); i++)
    await new Promise((r) => setTimeout(r, 100));
}

/**
 * The install is the pinned release, or a clear error before anything starts: the bridge
 * speaks the Gateway protocol of that release, and the image installs the same pin.
 */
export function checkPinnedInstall(install: OpenclawInstallPaths): void {
  for (const file of [install.node, install.cli]) {
    if (!existsSync(file))
      throw new ClawfleetError(
        'OPENCLAW_NOT_INSTALLED',
        `runtime.kind "openclaw" needs OpenClaw installed: ${file} is missing (docs/runtime.md, "Installing OpenClaw")`,
      );
  }
  const manifest = join(dirname(install.cli), 'package.json');
  let version: unknown;
  try {
    version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown }).version;
  } catch {
    version = undefined;
  }
  if (version !== OPENCLAW_VERSION) {
    throw new ClawfleetError(
      'OPENCLAW_NOT_INSTALLED',
      `runtime.kind "openclaw" runs OpenClaw ${OPENCLAW_VERSION}, but ${manifest} says ${typeof version === 'string' ? version : 'no version'} (docs/runtime.md, "Compatibility")`,
    );
  }
}

/**
 * The gateway's user gets its own directories, not what is in them: what it made there is
 * its own already, and a walk down a tree it can write could be led by a link it planted to
 * a file of root's (lchown changes a link itself, never its target). The state directory may
 * be on a volume that maps every caller to one owner of its own (EFS through its access
 * point), which refuses chown and needs none.
 */
function giveDirs(user: { uid: number; gid: number }, dirs: string[], stateDir: string): void {
  for (const d of dirs) lchownSync(d, user.uid, user.gid);
  try {
    lchownSync(stateDir, user.uid, user.gid);
  } catch {
    // EFS: the access point's owner is everyone's.
  }
}

/**
 * The config, written afresh at each start: never through a link left at its path (the
 * gateway's user can write its directory; O_EXCL does not follow one), mode 0600, and that
 * user's when there is one.
 */
function writeConfig(path: string, text: string, user: { uid: number; gid: number } | undefined): void {
  rmSync(path, { force: true });
  const fd = openSync(path, 'wx', 0o600);
  try {
    if (user) fchownSync(fd, user.uid, user.gid);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** A free loopback port, asked of the kernel. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export async function startManagedGateway(opts: {
  install: OpenclawInstallPaths;
  /** The gateway's own directory: config, home, logs (inside the runtime's state). */
  dir: string;
  /**
   * OpenClaw's state (OPENCLAW_STATE_DIR: its sessions, memory index, databases): what must
   * outlive the process, and on AWS the task (default `<dir>/state`).
   */
  stateDir?: string;
  /** The user and group the gateway runs as; absent, this process's own. */
  runAs?: { uid: number; gid: number };
  /**
   * Local mode: the sandbox the gateway runs in (gateway-sandbox.ts), made with `dir` and the
   * workspace writable, and the install's directories to show it read-only.
   */
  sandbox?: { sandbox: Sandbox; readOnly: string[] };
  config: Omit<GatewayConfigInputs, 'port' | 'token' | 'logFile'>;
  log: Logger;
  readyTimeoutMs: number;
}): Promise<ManagedGateway> {
  const { install, dir, log } = opts;
  const stateDir = opts.stateDir ?? join(dir, 'state');
  checkPinnedInstall(install);
  await reapStale(stateDir, log);
  const port = await freePort();
  // Made for this gateway's life only, and kept out of every log line (a gateway line quoting it included).
  const token = randomBytes(32).toString('base64url');
  processRedactor.add(token);
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  for (const d of [dir, home, tmp, stateDir]) mkdirSync(d, { recursive: true, mode: 0o700 });
  const configPath = join(dir, 'openclaw.json');
  // Its own directories (config, home, logs) and its state become its user's; nothing else of the runtime's is.
  if (opts.runAs) giveDirs(opts.runAs, [dir, home, tmp], stateDir);
  writeConfig(configPath, JSON.stringify(gatewayConfig({ ...opts.config, port, token, logFile: join(dir, 'logs', 'openclaw.log') }), null, 2), opts.runAs);

  const argv = [install.node, '-e', GUARD, install.node, install.cli, 'gateway', 'run', '--port', String(port)];
  // No secret here, nothing of the runtime's own environment: names and paths only.
  const env = {
    PATH: `${dirname(install.node)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    TMPDIR: tmp,
    OPENCLAW_STATE_DIR: stateDir,
    OPENCLAW_CONFIG_PATH: configPath,
    NO_COLOR: '1',
  };
  // In the sandbox the guard runs inside too: the runtime's stdin closing still stops the
  // gateway gently, and bwrap (--die-with-parent) takes everything inside down with a killed runtime.
  let lease: SandboxLease | undefined;
  if (opts.sandbox) lease = await opts.sandbox.sandbox.lease({ argv, env, network: true, readOnly: opts.sandbox.readOnly });
  const launch = lease?.launch ?? { file: argv[0]!, args: argv.slice(1), env, cwd: dir };
  const child: ChildProcess = spawn(launch.file, launch.args, {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(opts.runAs ? { uid: opts.runAs.uid, gid: opts.runAs.gid } : {}),
  });
  // Released once the sandbox's process is gone: whatever of it is still running is killed.
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code))).then(async (code) => {
    await lease?.release();
    return code;
  });
  const recent: string[] = [];
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new ClawfleetError(
            'OPENCLAW_GATEWAY_FAILED',
            `the OpenClaw gateway was not ready within ${opts.readyTimeoutMs / 1000} s; its last lines: ${recent.join(' | ').slice(-1500)}`,
          ),
        ),
      opts.readyTimeoutMs,
    );
    const onLine = (line: string) => {
      recent.push(line);
      if (recent.length > 20) recent.shift();
      if (/\[gateway\] ready\b/.test(line)) {
        clearTimeout(timer);
        resolve();
      }
      if (/\b(error|failed|invalid)\b/i.test(line)) log.warn('openclaw gateway', { line: line.slice(0, 1000) });
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffer = '';
      stream.setEncoding('utf8').on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          onLine(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
      });
    }
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new ClawfleetError(
          'OPENCLAW_GATEWAY_FAILED',
          `the OpenClaw gateway exited (code ${code}) before it was ready; its last lines: ${recent.join(' | ').slice(-1500)}`,
        ),
      );
    });
  });
  child.stdin!.on('error', () => {});
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin!.end();
    await exited;
  };
  try {
    await ready;
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `ws://127.0.0.1:${port}`, token, pid: child.pid, configPath, exited, stop };
}
