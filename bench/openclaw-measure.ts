// Measurement for bench/openclaw-compare.ts: start a group of processes at once, time
// spawn → each one's ready signal, wait until idle, then read the memory of every process
// tree from /proc (RSS, and PSS, which splits pages shared between processes — the Node
// binary, shared libraries — so that a sum over several processes counts them once), and
// the CPU time they used, which on a shared machine varies less with load than wall time.
// Then stop them all, their children included.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startTimeOf as startTime } from '../runtime-image/src/mcp/orphan-reaper.ts';
import { processTree, treeUsage } from './proc-usage.ts';

export interface ProcessSpec {
  name: string;
  cmd: string[];
  env: Record<string, string>;
  cwd: string;
  /** A fresh checker per start: told each output line (ANSI colours removed), true once this process counts as ready. */
  readiness: () => (line: string) => boolean;
  /** Written to the child's fd 3 and closed: a clawfleet runtime's token and secrets (CLAWFLEET_SECRETS_FD). */
  pipedInputs?: string;
}

export interface GroupSample {
  /** Spawn → the last process of the group ready. */
  readyMs: number;
  /** Summed over every process tree of the group, after the idle wait. */
  rssKb: number;
  pssKb: number;
  /** User + system CPU seconds of every process of the trees (and of their reaped children) from spawn to the sample. */
  cpuSeconds: number;
  processes: number;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes it strips.
const ANSI = /\x1b\[[0-9;]*m/g;

interface Running {
  spec: ProcessSpec;
  child: ChildProcess;
  output: string;
  ready: Promise<number>;
  exited: Promise<void>;
}

function startOne(spec: ProcessSpec, t0: number, timeoutMs: number): Running {
  const child = spawn(spec.cmd[0]!, spec.cmd.slice(1), {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe', spec.pipedInputs === undefined ? 'ignore' : 'pipe'],
  });
  if (spec.pipedInputs !== undefined) (child.stdio[3] as NodeJS.WritableStream).end(spec.pipedInputs);
  const isReady = spec.readiness();
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const running: Running = { spec, child, output: '', exited, ready: Promise.resolve(0) };
  running.ready = new Promise<number>((resolve, reject) => {
    let done = false;
    const partial = { stdout: '', stderr: '' };
    const onData = (stream: 'stdout' | 'stderr') => (chunk: string) => {
      running.output = (running.output + chunk).slice(-20_000);
      partial[stream] += chunk;
      let nl: number;
      while ((nl = partial[stream].indexOf('\n')) >= 0) {
        const line = partial[stream].slice(0, nl).replace(ANSI, '');
        partial[stream] = partial[stream].slice(nl + 1);
        if (!done && isReady(line)) {
          done = true;
          clearTimeout(timer);
          resolve(performance.now() - t0);
        }
      }
    };
    child.stdout!.setEncoding('utf8').on('data', onData('stdout'));
    child.stderr!.setEncoding('utf8').on('data', onData('stderr'));
    const timer = setTimeout(
      () => !done && reject(new Error(`${spec.name} was not ready within ${timeoutMs / 1000} s; its output ends:\n${running.output.slice(-3000)}`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!done)
        reject(
          new Error(
            `${spec.name} exited (${signal ?? `code ${code}`}) before it was ready; its output ends:\n${running.output.replace(ANSI, '').slice(-3000)}`,
          ),
        );
    });
    child.once('error', (err) => reject(new Error(`${spec.name} could not be started (${spec.cmd[0]}): ${err.message}`)));
  });
  return running;
}

/** SIGTERM to each root, then SIGKILL to whatever of its tree is left after `graceMs`. */
async function stopAll(group: Running[], graceMs: number): Promise<void> {
  // Taken before SIGTERM: children that outlive their parent are re-parented and could not
  // be found from the roots afterwards. Each with its start time, so a pid the system has
  // since given to an unrelated process is left alone.
  const trees = group.flatMap((r) => (r.child.pid ? processTree(r.child.pid) : [])).map((pid) => ({ pid, started: startTime(pid) }));
  for (const r of group) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
  await Promise.race([Promise.all(group.map((r) => r.exited)), new Promise((r) => setTimeout(r, graceMs))]);
  for (const { pid, started } of trees) {
    if (started === undefined || startTime(pid) !== started) continue;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.all(group.map((r) => r.exited));
}

/**
 * Starts every process of the group at the same moment; resolves when all are ready and
 * `idleMs` has passed, with the memory of all their trees. `afterReady` runs once all are
 * ready (a check of the product's own health endpoint, say); a throw there fails the run.
 */
export async function measureGroup(
  specs: ProcessSpec[],
  opts: { idleMs: number; timeoutMs?: number; graceMs?: number; afterReady?: () => Promise<void> },
): Promise<GroupSample> {
  const t0 = performance.now();
  const group = specs.map((s) => startOne(s, t0, opts.timeoutMs ?? 120_000));
  try {
    const readyMs = Math.max(...(await Promise.all(group.map((r) => r.ready))));
    await opts.afterReady?.();
    await new Promise((r) => setTimeout(r, opts.idleMs));
    const usage = group.map((r) => treeUsage(r.child.pid!));
    return {
      readyMs,
      rssKb: usage.reduce((s, m) => s + m.rssKb, 0),
      pssKb: usage.reduce((s, m) => s + m.pssKb, 0),
      cpuSeconds: usage.reduce((s, m) => s + m.cpuSeconds, 0),
      processes: usage.reduce((s, m) => s + m.processes, 0),
    };
  } finally {
    await stopAll(group, opts.graceMs ?? 30_000);
  }
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
