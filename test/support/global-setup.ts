/**
 * Vitest globalSetup: gives every test an AWS-compatible endpoint.
 *
 * - `AWS_ENDPOINT_URL` set: use that emulator (LocalStack, MiniStack, Floci) as is,
 *   after checking that it answers its health endpoint.
 * - Otherwise: install MiniStack (pinned) into `.cache/ministack-venv`, start it on a
 *   free 127.0.0.1 port with in-memory state, and stop it in teardown.
 *
 * Tests see the endpoint through `process.env.AWS_ENDPOINT_URL` (forks inherit the
 * environment set here) and through `inject('awsEndpoint')`; use `awsTestEnv()` from
 * `./aws.ts` rather than reading either directly.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import installBubblewrap from './bubblewrap-setup.ts';

export const MINISTACK_VERSION = '1.5.33';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const CACHE_DIR = join(REPO_ROOT, '.cache');
const LOG_FILE = join(CACHE_DIR, 'ministack.log');
const HEALTH_TIMEOUT_MS = 30_000;
const NO_PYTHON = 'install Python 3.10+ (python3 with venv) or set AWS_ENDPOINT_URL to a running LocalStack-compatible emulator';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the AWS emulator the tests run against, e.g. http://127.0.0.1:45123 */
    awsEndpoint: string;
  }
}

function log(message: string): void {
  process.stderr.write(`[emulator] ${message}\n`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Runtimes these tests start run exec in bubblewrap: install it first (no root needed).
  await installBubblewrap();
  process.env.AWS_REGION ??= 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID ??= 'test';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'test';

  const external = process.env.AWS_ENDPOINT_URL?.trim();
  if (external) {
    const endpoint = external.replace(/\/+$/, '');
    await checkExternalHealth(endpoint);
    process.env.AWS_ENDPOINT_URL = endpoint;
    project.provide('awsEndpoint', endpoint);
    log(`using AWS_ENDPOINT_URL=${endpoint}`);
    return async () => {};
  }

  const python = await ensureVenv();
  const emulator = await startMiniStack(python);
  process.env.AWS_ENDPOINT_URL = emulator.endpoint;
  project.provide('awsEndpoint', emulator.endpoint);
  return emulator.stop;
}

// ---------------------------------------------------------------- external emulator

async function checkExternalHealth(endpoint: string): Promise<void> {
  const failures: string[] = [];
  for (const path of ['/_localstack/health', '/_ministack/health']) {
    try {
      const res = await fetch(endpoint + path, { signal: AbortSignal.timeout(5_000) });
      await res.body?.cancel();
      if (res.ok) return;
      failures.push(`${path}: HTTP ${res.status}`);
    } catch (err) {
      failures.push(`${path}: ${describeError(err)}`);
    }
  }
  throw new Error(
    `AWS_ENDPOINT_URL=${endpoint} is not a healthy LocalStack-compatible emulator ` +
      `(${failures.join('; ')}). Start it, or unset AWS_ENDPOINT_URL to let the tests start MiniStack.`,
  );
}

function describeError(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}

// ---------------------------------------------------------------- venv

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  error?: NodeJS.ErrnoException;
}

function run(file: string, args: string[], timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((done) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      const err = error as (NodeJS.ErrnoException & { code?: unknown }) | null;
      done({
        code: err ? (typeof err.code === 'number' ? err.code : null) : 0,
        stdout: String(stdout),
        stderr: String(stderr),
        ...(err ? { error: err } : {}),
      });
    });
  });
}

function tail(text: string, lines = 30): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

async function installedVersion(python: string, extras: readonly string[] = []): Promise<string | undefined> {
  if (!existsSync(python)) return undefined;
  const r = await run(python, ['-c', "import importlib.metadata as m; print(m.version('ministack'))"]);
  if (r.code !== 0) return undefined;
  // Each extra pinned as name==version: the venv is this version only with each of them at theirs.
  for (const pin of extras) {
    const [name, version] = pin.split('==');
    const x = await run(python, ['-c', `import importlib.metadata as m; print(m.version(${JSON.stringify(name)}))`]);
    if (x.code !== 0 || x.stdout.trim() !== version) return undefined;
  }
  return r.stdout.trim();
}

/** A MiniStack venv other than the tests' own: its directory under .cache, and pinned packages beside ministack. */
export interface VenvVariant {
  name: string;
  extras: readonly string[];
}

/**
 * A failure of this machine's set-up, not of the code: said in its message alone, since a
 * stack trace would only bury the line that says what to install.
 */
export function setupError(message: string): Error {
  const err = new Error(message);
  err.stack = `Error: ${message}`;
  return err;
}

/**
 * What to do when `python3 -m venv` failed. Debian and Ubuntu ship venv's pip bootstrap
 * (ensurepip) apart, as python3-venv: that case gets one line naming the package to install.
 */
export function venvFailure(output: string): string {
  if (/ensurepip is not\s+available|No module named ensurepip|No module named venv/i.test(output)) {
    const pkg = /apt(?:-get)? install (python3[\w.]*-venv)/.exec(output)?.[1] ?? 'python3-venv';
    return `Cannot start MiniStack: python3 cannot make a venv here (no ensurepip). Install it: apt-get install ${pkg} (or set AWS_ENDPOINT_URL to a running LocalStack-compatible emulator)`;
  }
  return `Cannot start MiniStack: \`python3 -m venv\` failed (${NO_PYTHON}; on Debian: apt-get install python3-venv):\n${tail(output)}`;
}

/** Returns the venv's python, installing MiniStack first if it is missing or another version. */
export async function ensureVenv(cacheDir = CACHE_DIR, variant: VenvVariant = { name: 'ministack-venv', extras: [] }): Promise<string> {
  const venvDir = join(cacheDir, variant.name);
  const venvPython = join(venvDir, 'bin', 'python');
  if ((await installedVersion(venvPython, variant.extras)) === MINISTACK_VERSION) return venvPython;

  const probe = await run('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
  if (probe.code !== 0) {
    const why = probe.error?.code === 'ENOENT' ? 'python3 is not on PATH' : `python3 failed: ${tail(probe.stderr, 5)}`;
    throw setupError(`Cannot start MiniStack (${why}): ${NO_PYTHON}.`);
  }
  const [major, minor] = probe.stdout.trim().split('.').map(Number);
  if (major !== 3 || (minor ?? 0) < 10) {
    throw setupError(`Cannot start MiniStack (python3 is ${probe.stdout.trim()}): ${NO_PYTHON}.`);
  }

  log(`installing MiniStack ${MINISTACK_VERSION} into ${relative(REPO_ROOT, venvDir)} (once per version, ~15 s)`);
  const installStarted = Date.now();
  mkdirSync(cacheDir, { recursive: true });
  // Build in a sibling directory and rename into place, so an interrupted install or a
  // concurrent run never leaves a half-built venv behind (a moved venv works when it is
  // started as `<venv>/bin/python -m ministack`, which is how we start it).
  const staging = await mkdtemp(join(cacheDir, `${variant.name}.tmp-`));
  try {
    const venv = await run('python3', ['-m', 'venv', staging], 120_000);
    if (venv.code !== 0) {
      throw setupError(venvFailure(`${venv.stderr}\n${venv.stdout}`));
    }
    const pip = await run(
      join(staging, 'bin', 'python'),
      ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', `ministack==${MINISTACK_VERSION}`, ...variant.extras],
      600_000,
    );
    if (pip.code !== 0) {
      throw setupError(
        `Cannot start MiniStack: pip install ministack==${MINISTACK_VERSION} ${variant.extras.join(' ')} failed:\n${tail(pip.stderr || pip.stdout)}`,
      );
    }
    // A concurrent run may have finished first: keep its venv (it may be running from it).
    if ((await installedVersion(venvPython, variant.extras)) !== MINISTACK_VERSION) {
      if (existsSync(venvDir)) {
        const old = `${staging}.old`;
        await rename(venvDir, old);
        await rm(old, { recursive: true, force: true });
      }
      await rename(staging, venvDir);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const version = await installedVersion(venvPython, variant.extras);
  if (version !== MINISTACK_VERSION) {
    throw new Error(`MiniStack install in ${venvDir} reports version ${version ?? '(none)'}, expected ${MINISTACK_VERSION}`);
  }
  log(`installed MiniStack ${MINISTACK_VERSION} in ${((Date.now() - installStarted) / 1000).toFixed(1)} s`);
  return venvPython;
}

// ---------------------------------------------------------------- process

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/** A temp dir for the emulator that is not inside this repo (see TOOLCHAIN.md: TMPDIR). */
async function emulatorTempDir(): Promise<string> {
  let base = tmpdir();
  const root = realpathSync(REPO_ROOT);
  const real = existsSync(base) ? realpathSync(base) : base;
  if (real === root || real.startsWith(root + sep)) base = '/tmp';
  return mkdtemp(join(base, 'clawfleet-ministack-'));
}

// Runs MiniStack's own entry point, plus a watchdog thread: when our end of its stdin
// closes (vitest exited, however it exited), it removes the emulator's temp dir and
// terminates its process group, so no emulator outlives the test run.
const LAUNCHER = `
import os, shutil, signal, sys, threading, time
def watchdog():
    while os.read(0, 4096):
        pass
    tmp = os.environ.get("TMPDIR", "")
    if os.path.basename(tmp).startswith("clawfleet-ministack-"):
        shutil.rmtree(tmp, ignore_errors=True)
    try:
        os.killpg(os.getpgid(0), signal.SIGTERM)
    finally:
        time.sleep(5)
        os._exit(1)
threading.Thread(target=watchdog, daemon=True).start()
sys.argv = ["ministack"]
from ministack.app import main
main()
`;

// Configuration a user may have exported for their own emulator; never pass it on.
const STRIPPED_ENV =
  /^(AUTH|PERSIST_STATE|S3_PERSIST|LOCALSTACK_PERSISTENCE|STATE_DIR|S3_DATA_DIR|SERVICES|EDGE_PORT|GATEWAY_PORT|BIND_HOST|MINISTACK_.*|USE_SSL|AWS_ENDPOINT_URL.*|PYTHON.*)$/;

export interface Running {
  endpoint: string;
  stop: () => Promise<void>;
}

/** Starts MiniStack from `python`'s venv with `extraEnv` (after the user's own emulator settings are stripped), logging to `logFile`. */
export async function startMiniStack(python: string, extraEnv: NodeJS.ProcessEnv = {}, logFile = LOG_FILE): Promise<Running> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const tmp = await emulatorTempDir();
  const started = Date.now();
  let lastError: Error | undefined;
  for (let attempt = 1; attempt <= 3; attempt++) {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!STRIPPED_ENV.test(k)) env[k] = v;
    Object.assign(env, {
      GATEWAY_PORT: String(port),
      BIND_HOST: '127.0.0.1',
      MINISTACK_HOST: '127.0.0.1',
      MINISTACK_REGION: 'us-east-1',
      // State in memory only; the few files it writes anyway go to a temp dir outside the repo.
      PERSIST_STATE: '0',
      S3_PERSIST: '0',
      STATE_DIR: join(tmp, 'state'),
      S3_DATA_DIR: join(tmp, 's3'),
      TMPDIR: tmp,
      PYTHONUNBUFFERED: '1',
      PYTHONDONTWRITEBYTECODE: '1',
      ...extraEnv,
    });
    const logFd = openSync(logFile, 'w');
    let child: ChildProcess;
    try {
      child = spawn(python, ['-c', LAUNCHER], {
        cwd: tmp,
        env,
        detached: true, // own process group, so teardown reaches Lambda workers too
        stdio: ['pipe', logFd, logFd],
      });
    } finally {
      closeSync(logFd);
    }
    const exited = new Promise<string>((done) => child.once('exit', (code, signal) => done(signal ?? String(code))));
    child.once('error', () => {});
    const endpoint = `http://127.0.0.1:${port}`;
    const outcome = await waitForHealth(endpoint, exited);
    if (outcome === 'healthy') {
      log(`MiniStack ${MINISTACK_VERSION} at ${endpoint} (ready in ${Date.now() - started} ms, log ${relative(REPO_ROOT, logFile)})`);
      return { endpoint, stop: () => stopProcess(child, exited, tmp) };
    }
    await stopProcess(child, exited);
    const logTail = readLogTail(logFile);
    lastError = new Error(
      outcome === 'exited'
        ? `MiniStack exited during startup (log ${logFile}):\n${logTail}`
        : `MiniStack did not answer ${endpoint}/_ministack/health within ${HEALTH_TIMEOUT_MS / 1000} s (log ${logFile}):\n${logTail}`,
    );
    // Someone took the port between our probe and its bind: try another one.
    if (!(outcome === 'exited' && /already in use|address in use/i.test(logTail))) break;
  }
  await rm(tmp, { recursive: true, force: true });
  throw lastError;
}

function readLogTail(logFile = LOG_FILE): string {
  try {
    return tail(readFileSync(logFile, 'utf8'), 40);
  } catch {
    return '(no log)';
  }
}

async function waitForHealth(endpoint: string, exited: Promise<unknown>): Promise<'healthy' | 'exited' | 'timeout'> {
  let hasExited = false;
  void exited.then(() => (hasExited = true));
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (hasExited) return 'exited';
    try {
      const res = await fetch(`${endpoint}/_ministack/health`, { signal: AbortSignal.timeout(2_000) });
      await res.body?.cancel();
      if (res.ok) return 'healthy';
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return hasExited ? 'exited' : 'timeout';
}

async function stopProcess(child: ChildProcess, exited: Promise<unknown>, tmp?: string): Promise<void> {
  const pid = child.pid;
  const killGroup = (signal: NodeJS.Signals) => {
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // group already gone
    }
  };
  if (child.exitCode === null && child.signalCode === null) {
    child.stdin?.end();
    killGroup('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([exited.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(() => r(true), 5_000)))]);
    clearTimeout(timer);
    if (timedOut) {
      killGroup('SIGKILL');
      await exited;
    }
  }
  killGroup('SIGKILL'); // stragglers (e.g. Lambda workers) left in its group
  child.stdin?.destroy();
  if (tmp) await rm(tmp, { recursive: true, force: true });
}
