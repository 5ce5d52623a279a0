/**
 * Vitest globalSetup, first in every project: the test run gets a temp dir of its own,
 * `<system tmp>/cf-test-run-<pid>-XXXXXX`, as TMPDIR. It is set before the other setups run and
 * before any worker starts, so the workers, every process a test starts (runtimes, CLIs, npm,
 * Chromium) and the setups after this one make their temp files there.
 *
 * At the end of the run it lists whatever is left there and fails the run if anything is
 * (vitest ignores a teardown that throws, so it sets the exit code), then removes it: a temp dir
 * is removed by whoever made it (tests: temp-dirs.ts), and one that is not is a bug to fix there.
 * Projects share the run's dir: the first setup makes it, the last teardown checks it. The run
 * dir of a run that was killed is removed by the next run.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PREFIX = 'cf-test-run-';
/**
 * What tools keep in TMPDIR on purpose, across runs: not litter, removed with the run's dir.
 * - tsx's compile cache and IPC socket (`<tmp>/tsx-<uid>`), made by every process run through tsx;
 * - Node's own compile cache where a program enables it without naming a directory
 *   (`module.enableCompileCache()`: `<tmp>/node-compile-cache`), as OpenClaw's CLI does when
 *   npm runs it while installing it.
 */
const TOOL_CACHES = [/^tsx-\w+$/, /^node-compile-cache$/];
const SHARED = Symbol.for('clawfleet.test-temp-root');

interface RunTemp {
  dir: string;
  /** The TMPDIR before this run's. */
  before: string | undefined;
  projects: number;
}

function log(message: string): void {
  process.stderr.write(`[temp] ${message}\n`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Run dirs of runs whose process is gone (killed before their teardown). */
function removeAbandoned(systemTmp: string): void {
  for (const name of readdirSync(systemTmp)) {
    const pid = Number(new RegExp(`^${PREFIX}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid || alive(pid)) continue;
    log(`removing ${join(systemTmp, name)}, left by a run that was stopped before its end`);
    rmSync(join(systemTmp, name), { recursive: true, force: true });
  }
}

function sizeOf(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st?.isDirectory()) return st?.size ?? 0;
  let total = 0;
  for (const name of readdirSync(path)) total += sizeOf(join(path, name));
  return total;
}

/** What is left in the run's dir: one line per entry, with its size. */
export function leftovers(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => !TOOL_CACHES.some((cache) => cache.test(name)))
    .sort()
    .map((name) => {
      const path = join(dir, name);
      const st = statSync(path, { throwIfNoEntry: false });
      const kind = st?.isDirectory() ? 'dir' : 'file';
      return `${name} (${kind}, ${Math.ceil(sizeOf(path) / 1024)} KiB)`;
    });
}

export default function setup(): () => void {
  const shared = globalThis as { [SHARED]?: RunTemp };
  if (!shared[SHARED]) {
    const systemTmp = tmpdir();
    removeAbandoned(systemTmp);
    const dir = mkdtempSync(join(systemTmp, `${PREFIX}${process.pid}-`));
    // As the system's temp dir is (sticky, open to all): tests run tools, gateways and
    // sandboxes as other users, who reach files under it as they would under /tmp.
    chmodSync(dir, 0o1777);
    shared[SHARED] = { dir, before: process.env.TMPDIR, projects: 0 };
    process.env.TMPDIR = dir;
    log(`TMPDIR for this run: ${dir}`);
  }
  const run = shared[SHARED];
  run.projects++;
  return () => {
    if (--run.projects > 0) return;
    delete shared[SHARED];
    if (run.before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = run.before;
    const left = leftovers(run.dir);
    rmSync(run.dir, { recursive: true, force: true });
    if (!left.length) return;
    log(`the run left ${left.length} ${left.length === 1 ? 'entry' : 'entries'} in its temp dir ${run.dir} (now removed); whatever makes each must remove it:`);
    for (const line of left) log(`  ${line}`);
    process.exitCode = 1;
  };
}
