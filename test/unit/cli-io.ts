// A CliIO for tests: collects what a command prints, feeds it standard input, and lets the
// test say when a long-running command should stop.
import type { CliIO } from '../../cli/command.ts';

export interface CapturedIO extends CliIO {
  outText(): string;
  errText(): string;
  interrupt(): void;
  /** The questions a command asked on the (test's) terminal. */
  asked?: { question: string; secret: boolean }[];
}

/** `answers`: a terminal that answers each question in turn (what was asked is kept in `asked`); absent, no terminal. */
export function captureIO(opts: { cwd?: string; stdin?: string; env?: NodeJS.ProcessEnv; answers?: string[] } = {}): CapturedIO {
  const out: string[] = [];
  const err: string[] = [];
  const asked: { question: string; secret: boolean }[] = [];
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
    ...(opts.answers
      ? {
          asked,
          prompt: async (question: string, o: { secret?: boolean } = {}) => {
            asked.push({ question, secret: o.secret === true });
            const answer = opts.answers!.shift();
            if (answer === undefined) throw new Error(`the test has no answer for: ${question}`);
            return answer;
          },
        }
      : {}),
  };
}
