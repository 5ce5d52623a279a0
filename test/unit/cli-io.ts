// A CliIO for tests: collects what a command prints, feeds it standard input, and lets the
// test say when a long-running command should stop.
import type { CliIO } from '../../cli/command.ts';

export interface CapturedIO extends CliIO {
  outText(): string;
  errText(): string;
  interrupt(): void;
}

export function captureIO(opts: { cwd?: string; stdin?: string; env?: NodeJS.ProcessEnv } = {}): CapturedIO {
  const out: string[] = [];
  const err: string[] = [];
  let interrupt!: () => void;
  const interrupted = new Promise<string>((resolve) => (interrupt = () => resolve('interrupted by the test')));
  return {
    out: (t) => void out.push(t),
    err: (t) => void err.push(t),
    readStdin: async () => opts.stdin ?? '',
    env: opts.env ?? {},
    cwd: opts.cwd ?? process.cwd(),
    interrupted: () => interrupted,
    outText: () => out.join('\n'),
    errText: () => err.join('\n'),
    interrupt: () => interrupt(),
  };
}
