// The host's processes seen through /proc, for a sandbox to find and end what a call left
// behind once the process it launched is gone (and its children re-parented away from it).
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the processes one of whose command-line arguments is exactly `arg` (none off Linux). */
export function processesWithArgument(arg: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) return [];
    try {
      return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg) ? [Number(entry)] : [];
    } catch {
      return []; // gone while we looked
    }
  });
}

/** SIGKILLs every process with `arg` among its command-line arguments. */
export function killProcessesWithArgument(arg: string): void {
  for (const pid of processesWithArgument(arg)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // ESRCH: it ended meanwhile.
    }
  }
}
