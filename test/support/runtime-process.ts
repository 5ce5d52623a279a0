// Starts the agent runtime as a real child process — the same entry point the container
// runs — and collects its JSON log lines so tests can wait on what it says.
import { spawn, type ChildProcess } from 'node:child_process';
import { runtimeCommand } from '../../local/runtime-entry.ts';

export interface RuntimeProcess {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** Raw stdout and stderr, for scanning and for failure messages. */
  output(): string;
  waitFor(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `command` defaults to local mode's (the runtime bundle while it matches the sources, else the sources through tsx). */
export function startRuntime(env: Record<string, string>, command: string[] = runtimeCommand()): RuntimeProcess {
  const child = spawn(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let raw = '';
  const waiters = new Set<() => void>();
  let buffer = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    raw += chunk;
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        lines.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        lines.push({ msg: line });
      }
    }
    waiters.forEach((w) => w());
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (raw += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    child,
    lines,
    output: () => raw,
    exited,
    waitFor(predicate, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hit = lines.find(predicate);
          if (hit) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hit);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`runtime did not log the awaited line within ${timeoutMs} ms; output:\n${raw.slice(-4000)}`));
        }, timeoutMs);
        waiters.add(check);
        void exited.then(() => {
          if (waiters.has(check)) {
            waiters.delete(check);
            clearTimeout(timer);
            check();
            reject(new Error(`runtime exited before logging the awaited line; output:\n${raw.slice(-4000)}`));
          }
        });
        check();
      });
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
