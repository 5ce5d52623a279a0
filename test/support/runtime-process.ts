// Starts the agent runtime as a real child process — the same entry point the container
// runs — and collects its JSON log lines so tests can wait on what it says.
import { spawn, type ChildProcess } from 'node:child_process';
import { runtimeCommand } from '../../local/runtime-entry.ts';
import { JsonLineLog } from './json-line-log.ts';

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
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const log = new JsonLineLog('runtime', 'exited', exited);
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => log.take(chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => log.keep(chunk));

  return {
    child,
    lines: log.lines,
    output: () => log.raw(),
    exited,
    waitFor: (predicate, timeoutMs = 20_000) => log.waitFor(predicate, timeoutMs),
    async kill(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
