// Finds a process below another through /proc's parent links: a boxed runtime below the
// bwrap the supervisor started (local/runtime-box.ts), which is the process an operator or a
// test means by "the runtime" — to read its environment, or to kill it as a crash would.
// The benchmarks read process trees with its parent links (bench/proc-usage.ts).
import { readdirSync, readFileSync } from 'node:fs';

/** The first process, breadth first from `root` (itself included), whose command line is exactly `argv`; undefined where there is none (yet). */
export function processBelow(root: number, argv: readonly string[]): number | undefined {
  const children = processChildren();
  if (!children) return undefined; // no /proc: not Linux
  const wanted = argv.join('\0');
  for (const queue = [root]; queue.length > 0; ) {
    const pid = queue.shift()!;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '') === wanted) return pid;
    } catch {
      continue; // gone
    }
    queue.push(...(children.get(pid) ?? []));
  }
  return undefined;
}

/** Every process's children, by parent pid, read from /proc; undefined where there is no /proc (not Linux). */
export function processChildren(): Map<number, number[]> | undefined {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) may hold spaces or parentheses: the fields after its last ')' are fixed.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone while we looked
    }
  }
  return children;
}
