// Memory and CPU of a process tree, read from /proc: RSS, PSS (which splits pages shared
// between processes — the Node binary, shared libraries — so that a sum over several
// processes counts them once) and user + system CPU time. Used by the start benchmarks.
import { readFileSync } from 'node:fs';
import { processChildren } from '../local/process-below.ts';

/** The pid and every process below it. */
export function processTree(pid: number): number[] {
  const children = processChildren() ?? new Map<number, number[]>();
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return out;
}

export function readKb(file: string, field: string): number {
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
