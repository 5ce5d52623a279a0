// What is running, read from Linux's /proc: a process's descendants, and every process that
// mentions a path (in its command line, its environment or as its working directory), so a
// test can prove that nothing it started outlived what should have stopped it.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Start time in clock ticks since boot: with the pid, names one process even if its pid is reused. */
  started: number;
  command: string;
}

function read(pid: number): ProcessInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (2nd field) is in parentheses and may hold spaces: parse after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, ppid: Number(fields[1]), started: Number(fields[19]), command };
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
}

export function processes(): ProcessInfo[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => read(Number(name)) ?? []);
}

/** The process and everything below it, as the kernel's parent links say now. */
export function tree(rootPid: number): ProcessInfo[] {
  const all = processes();
  const found = all.filter((p) => p.pid === rootPid);
  for (let i = 0; i < found.length; i++) found.push(...all.filter((p) => p.ppid === found[i]!.pid));
  return found;
}

export function alive(p: ProcessInfo): boolean {
  const now = read(p.pid);
  return now !== undefined && now.started === p.started;
}

/** Processes whose command line, environment or working directory names `path`, wherever they were re-parented to. */
export function mentioning(path: string): ProcessInfo[] {
  return processes().filter((p) => {
    if (p.pid === process.pid) return false;
    if (p.command.includes(path)) return true;
    try {
      if (readlinkSync(`/proc/${p.pid}/cwd`).startsWith(path)) return true;
      return readFileSync(`/proc/${p.pid}/environ`, 'utf8').includes(path);
    } catch {
      return false;
    }
  });
}
