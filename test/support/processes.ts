// Looks at the host's processes from a test: what a call left running, seen from outside
// any sandbox (a sandboxed call's own pids are those of its pid namespace, not the host's).
import { readdirSync, readFileSync } from 'node:fs';

/** Host pids of live (not zombie) processes whose command line contains `marker`. */
export function livingWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .flatMap((d) => {
      try {
        const cmdline = readFileSync(`/proc/${d}/cmdline`, 'utf8');
        const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
        const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
        return cmdline.includes(marker) && state !== 'Z' ? [Number(d)] : [];
      } catch {
        return []; // gone while we looked
      }
    });
}

/** A sleep duration no other process on the machine uses, to find a test's sleeps by. */
export function uniqueSleep(seconds = 300): string {
  return `${seconds}.${String(process.pid).padStart(7, '0')}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`;
}
