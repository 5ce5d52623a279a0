/**
 * The Docker engine the image tests build and run the runtime image with, as the emulator's
 * harness (global-setup.ts) provides MiniStack:
 *
 * - `DOCKER_HOST` set: that engine, as it is, once it answers.
 * - Otherwise, as root: Debian's `docker.io` (installed with apt-get where `dockerd` is
 *   missing), started as an engine of this repository's own — its data root in
 *   `.cache/container-engine/` (the built layers stay there between runs), its own exec root,
 *   pid file and socket, `--iptables=false` — and stopped when the run ends. Only one run at a
 *   time uses it: a second waits for the first (a kernel lock, as local/install-lock.ts takes).
 * - Otherwise (not root, no DOCKER_HOST): no engine, and `engineUnavailable()` says why, so the
 *   image tests are skipped with that reason on a bare machine (never on CI, which runs as root).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
/** The engine's home: its data root (images, build cache), log, pid file, socket and lock. */
export const ENGINE_DIR = join(REPO_ROOT, '.cache', 'container-engine');
/** dockerd, containerd and runc live in sbin on Debian; PATH under vitest may lack it. */
const SYSTEM_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
const READY_TIMEOUT_MS = 120_000;
/** A second run waits this long for the first to release the engine. */
const LOCK_WAIT_MS = 60 * 60_000;

export interface Engine {
  /** What DOCKER_HOST must say to reach it, e.g. unix:///…/docker.sock. */
  host: string;
  /** Whose engine: the one DOCKER_HOST named, or the one started here. */
  source: 'DOCKER_HOST' | 'own';
  stop(): Promise<void>;
}

/** A machine that has no engine for the tests, said in one line (a skip reason, not a failure). */
export function engineUnavailable(env: NodeJS.ProcessEnv = process.env, uid = process.getuid?.()): string | undefined {
  if (env.DOCKER_HOST?.trim()) return undefined;
  if (uid === 0) return undefined;
  return 'no container engine: the image tests start their own (Debian docker.io) only as root; run them as root, or set DOCKER_HOST to an engine you run';
}

function say(line: string): void {
  process.stderr.write(`[engine] ${line}\n`);
}

function run(file: string, args: string[], timeoutMs: number): Promise<{ ok: boolean; output: string }> {
  return new Promise((done) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, PATH: SYSTEM_PATH, DEBIAN_FRONTEND: 'noninteractive' } },
      (err, stdout, stderr) => done({ ok: !err, output: `${stdout}${stderr}${err && !stderr ? err.message : ''}`.trim() }),
    );
  });
}

const tail = (text: string, lines = 25) => text.trimEnd().split('\n').slice(-lines).join('\n');

/** The first of `names` found in the system's bin directories. */
export function findSystemBinary(...names: string[]): string | undefined {
  for (const dir of SYSTEM_PATH.split(':')) for (const name of names) if (existsSync(join(dir, name))) return join(dir, name);
  return undefined;
}

/**
 * Debian packages, installed once where their binary is missing (root only). `apt-get update`
 * first: a fresh machine has no package lists.
 */
export async function ensureDebianPackages(wanted: Record<string, string>): Promise<void> {
  const missing = Object.entries(wanted)
    .filter(([binary]) => !findSystemBinary(binary))
    .map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (!existsSync('/usr/bin/apt-get'))
    throw new Error(`${missing.join(', ')} missing and this machine has no apt-get: install them (a Docker engine), or set DOCKER_HOST`);
  const started = Date.now();
  say(`installing ${missing.join(' ')} from Debian's packages (once per machine) …`);
  const update = await run('apt-get', ['update', '-qq'], 600_000);
  if (!update.ok) throw new Error(`apt-get update failed:\n${tail(update.output)}`);
  const install = await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], 1_200_000);
  if (!install.ok) throw new Error(`apt-get install ${missing.join(' ')} failed:\n${tail(install.output)}`);
  for (const binary of Object.keys(wanted))
    if (!findSystemBinary(binary)) throw new Error(`apt-get installed ${missing.join(' ')}, but ${binary} is still missing`);
  say(`installed ${missing.join(' ')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** GET /_ping on the engine's socket: true once it answers OK. */
function ping(socketPath: string): Promise<boolean> {
  return new Promise((done) => {
    const req = request({ socketPath, path: '/_ping', timeout: 2_000 }, (res) => {
      res.resume();
      done(res.statusCode === 200);
    });
    req.on('error', () => done(false));
    req.on('timeout', () => {
      req.destroy();
      done(false);
    });
    req.end();
  });
}

/** An engine named by DOCKER_HOST must answer before the tests lean on it. */
async function externalEngine(host: string): Promise<Engine> {
  const check = await run('docker', ['--host', host, 'version', '--format', '{{.Server.Version}}'], 30_000);
  if (!check.ok)
    throw new Error(
      `DOCKER_HOST=${host} does not answer (docker version: ${tail(check.output, 5)}); start it, or unset DOCKER_HOST to let the tests start their own (as root)`,
    );
  say(`using DOCKER_HOST=${host} (engine ${check.output.split('\n').at(-1)})`);
  return { host, source: 'DOCKER_HOST', stop: async () => {} };
}

/**
 * Holds ENGINE_DIR's lock until the returned function is called: one run at a time starts,
 * uses and stops the engine. The kernel releases it however its holder ends.
 */
function holdEngineLock(): () => void {
  mkdirSync(ENGINE_DIR, { recursive: true });
  const file = join(ENGINE_DIR, 'engine.lock');
  let db = new Database(file, { timeout: 0 });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err;
    db.close();
    say(`another test run is using the engine in ${ENGINE_DIR}; waiting for it to finish (up to ${LOCK_WAIT_MS / 60_000} min) …`);
    db = new Database(file, { timeout: LOCK_WAIT_MS });
    db.exec('BEGIN EXCLUSIVE');
  }
  return () => db.close();
}

/** A dockerd a killed run left behind (we hold the lock, so it is nobody's now): stopped. */
async function stopLeftover(pidFile: string, dataRoot: string): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return;
  }
  const alive = () => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(dataRoot);
    } catch {
      return false;
    }
  };
  if (!pid || !alive()) return;
  say(`stopping the engine a previous run left running (pid ${pid})`);
  process.kill(pid, 'SIGTERM');
  for (let i = 0; i < 300 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) process.kill(pid, 'SIGKILL');
}

// dockerd under a watchdog: when our end of its stdin closes (the run ended, however it
// ended), dockerd gets SIGTERM and stops its containers, so no engine outlives the tests.
const WATCHDOG = 'exec 3<&0; dockerd "$@" </dev/null & d=$!; ( cat <&3 >/dev/null; kill -TERM "$d" 2>/dev/null ) & wait "$d"';

async function ownEngine(): Promise<Engine> {
  await ensureDebianPackages({ dockerd: 'docker.io' });
  const release = holdEngineLock();
  try {
    const dataRoot = join(ENGINE_DIR, 'data');
    const socketPath = join(ENGINE_DIR, 'docker.sock');
    const pidFile = join(ENGINE_DIR, 'dockerd.pid');
    const logFile = join(ENGINE_DIR, 'dockerd.log');
    // Its runtime state (containerd's sockets) apart from any other engine's, named by the cache it serves.
    const execRoot = `/run/clawfleet-engine-${createHash('sha256')
      .update(realpathSync(join(ENGINE_DIR, '..')))
      .digest('hex')
      .slice(0, 8)}`;
    mkdirSync(dataRoot, { recursive: true });
    await stopLeftover(pidFile, dataRoot);
    rmSync(socketPath, { force: true });
    const args = [
      '--iptables=false',
      '--ip-masq=false',
      '--storage-driver=overlay2',
      `--data-root=${dataRoot}`,
      `--exec-root=${execRoot}`,
      `--pidfile=${pidFile}`,
      `--host=unix://${socketPath}`,
      '--log-level=warn',
    ];
    const started = Date.now();
    const logFd = openSync(logFile, 'w');
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', WATCHDOG, 'dockerd', ...args], {
        env: { ...process.env, PATH: SYSTEM_PATH },
        stdio: ['pipe', logFd, logFd],
        detached: true,
      });
    } finally {
      closeSync(logFd);
    }
    child.once('error', () => {});
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    let gone = false;
    void exited.then(() => (gone = true));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await ping(socketPath))) {
      if (gone || Date.now() > deadline) {
        child.stdin?.end();
        throw new Error(
          `dockerd ${gone ? 'exited' : `did not answer on ${socketPath} within ${READY_TIMEOUT_MS / 1000} s`} (log ${logFile}):\n${tail(readLog(logFile))}`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    say(`engine ready in ${((Date.now() - started) / 1000).toFixed(1)} s (unix://${socketPath}, log ${logFile})`);
    const stop = async () => {
      child.stdin?.end();
      // dockerd stops its containers first (up to their stop timeouts); then it is gone.
      const timedOut = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), 60_000).unref())]);
      if (timedOut) await stopLeftover(pidFile, dataRoot);
      release();
    };
    return { host: `unix://${socketPath}`, source: 'own', stop };
  } catch (err) {
    release();
    throw err;
  }
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '(no log)';
  }
}

/** The engine the image tests use: DOCKER_HOST's, or one of our own (root). Throws why when neither can be had. */
export async function startEngine(env: NodeJS.ProcessEnv = process.env): Promise<Engine> {
  const external = env.DOCKER_HOST?.trim();
  if (external) return externalEngine(external);
  const why = engineUnavailable(env);
  if (why) throw new Error(why);
  return ownEngine();
}
