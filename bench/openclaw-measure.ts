// Measurement for bench/openclaw-compare.ts: start a group of processes at once, time
// spawn → each one's ready signal, wait until idle, then read the memory of every process
// tree from /proc (RSS, and PSS, which splits pages shared between processes — the Node
// binary, shared libraries — so that a sum over several processes counts them once), and
// the CPU time they used, which on a shared machine varies less with load than wall time.
// Then stop them all, their children included.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export interface ProcessSpec {
  name: string;
  cmd: string[];
  env: Record<string, string>;
  cwd: string;
  /** A fresh checker per start: told each output line (ANSI colours removed), true once this process counts as ready. */
  readiness: () => (line: string) => boolean;
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

const ANSI = /\x1b\[[0-9;]*m/g;

function descendants(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name in field 2 may hold spaces or parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  return children;
}

/** The pid and every process below it. */
export function processTree(pid: number): number[] {
  const children = descendants();
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

function readKb(file: string, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(file, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** utime + stime + cutime + cstime, in seconds. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields.slice(11, 15).reduce((s, f) => s + Number(f), 0) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

export function treeUsage(pid: number): { rssKb: number; pssKb: number; cpuSeconds: number; processes: number } {
  const pids = processTree(pid);
  return {
    rssKb: pids.reduce((s, p) => s + readKb(`/proc/${p}/status`, 'VmRSS'), 0),
    pssKb: pids.reduce((s, p) => s + readKb(`/proc/${p}/smaps_rollup`, 'Pss'), 0),
    cpuSeconds: pids.reduce((s, p) => s + cpuSeconds(p), 0),
    processes: pids.length,
  };
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

interface Running {
  spec: ProcessSpec;
  child: ChildProcess;
  output: string;
  ready: Promise<number>;
  exited: Promise<void>;
}

function startOne(spec: ProcessSpec, t0: number, timeoutMs: number): Running {
  const child = spawn(spec.cmd[0]!, spec.cmd.slice(1), { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'pipe', 'pipe'] });
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
    const timer = setTimeout(() => !done && reject(new Error(`${spec.name} was not ready within ${timeoutMs / 1000} s; its output ends:\n${running.output.slice(-3000)}`)), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!done) reject(new Error(`${spec.name} exited (${signal ?? `code ${code}`}) before it was ready; its output ends:\n${running.output.replace(ANSI, '').slice(-3000)}`));
    });
    child.once('error', (err) => reject(new Error(`${spec.name} could not be started (${spec.cmd[0]}): ${err.message}`)));
  });
  return running;
}

/** SIGTERM to each root, then SIGKILL to whatever of its tree is left after `graceMs`. */
async function stopAll(group: Running[], graceMs: number): Promise<void> {
  const trees = group.map((r) => (r.child.pid ? processTree(r.child.pid) : []));
  for (const r of group) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
  await Promise.race([Promise.all(group.map((r) => r.exited)), new Promise((r) => setTimeout(r, graceMs))]);
  for (const pid of trees.flat()) {
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
