// Commands that change a fleet step by step (`deploy`, `agents remove`): each step says what
// it did, or why there was nothing to do; the first that fails stops the rest and says what to
// do about it. Steps are written so that running the command again resumes: a step already
// done finds nothing left to do.
import { awsProblem, isAwsError } from './aws-errors.ts';

export type StepResult = { status: 'done' | 'skipped'; detail: string };

export interface Step {
  /** A short name: credentials, bootstrap, deploy… */
  name: string;
  /** What it will do, for a plan. */
  plan: string;
  run(): Promise<StepResult>;
}

/** A step that could not finish: what went wrong, and what the operator can do. */
export class StepFailed extends Error {
  override name = 'StepFailed';
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

interface StepIO {
  out(text: string): void;
  err(text: string): void;
}

/**
 * Runs the steps in order; true if all finished. A failure is printed with its hint and the
 * names of the steps not run. With `numbered`, each line starts [i/n].
 */
export async function runSteps(steps: Step[], io: StepIO, opts: { numbered?: boolean; indent?: string; again?: string } = {}): Promise<boolean> {
  const indent = opts.indent ?? '  ';
  for (const [i, step] of steps.entries()) {
    const label = `${opts.numbered ? `[${i + 1}/${steps.length}] ` : ''}${step.name}`;
    let result: StepResult;
    try {
      result = await step.run();
    } catch (err) {
      const again = opts.again ?? 'run the same command again';
      // An AWS error no step worded is said as every AWS failure is: what is wrong, and what to do.
      const aws = !(err instanceof StepFailed) && isAwsError(err) ? awsProblem(err) : undefined;
      const message = aws ? `${aws.problem} [${aws.code}]` : (err as Error).message;
      const hint =
        err instanceof StepFailed
          ? err.hint
          : aws?.next
            ? aws.next.replace(/run this again$/, `${again}: finished steps are skipped`)
            : `fix what the error says, then ${again}: finished steps are skipped`;
      io.err(`${indent}✗ ${label}: ${message}\n${indent}  ${hint}`);
      const left = steps.slice(i + 1).map((s) => s.name);
      if (left.length) io.err(`${indent}  not done: ${left.join(', ')}`);
      return false;
    }
    io.out(`${indent}${result.status === 'done' ? '✓' : '–'} ${label}: ${result.detail}`);
  }
  return true;
}
