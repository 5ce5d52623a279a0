// Runs the AWS CDK CLI for `clawfleet deploy`: this repository's (node_modules/aws-cdk), or
// another given with --cdk (cdklocal for the emulator), on the CDK app in this repository
// (cdk.json), with the fleet's config and context. On a terminal its output and questions
// (approval of IAM changes) are the terminal's; otherwise its lines come through the CLI's
// output and nothing is asked (--require-approval never).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../infra/app-options.ts';

export interface CdkRunner {
  /** Resolves when the CDK CLI exited 0; rejects with the last lines it printed otherwise. */
  run(args: string[], opts?: { cwd?: string }): Promise<void>;
  /** Whether the CDK CLI talks to the terminal itself (and may ask). */
  readonly interactive: boolean;
}

export interface CdkOptions {
  /** Another CDK CLI (a path), e.g. node_modules/.bin/cdklocal. */
  command?: string | undefined;
  env: NodeJS.ProcessEnv;
  interactive: boolean;
  out(line: string): void;
}

export const CDK_CLI = join(REPO_ROOT, 'node_modules', 'aws-cdk', 'bin', 'cdk');

export function cdkRunner(opts: CdkOptions): CdkRunner {
  return {
    interactive: opts.interactive,
    run(args, { cwd = REPO_ROOT } = {}) {
      const [file, argv] = opts.command ? [opts.command, args] : [process.execPath, [CDK_CLI, ...args]];
      return new Promise((resolve, reject) => {
        const child = spawn(file, [...argv, '--no-notices'], {
          cwd,
          env: { ...opts.env, CDK_DISABLE_CLI_TELEMETRY: 'true' },
          stdio: opts.interactive ? 'inherit' : ['ignore', 'pipe', 'pipe'],
        });
        const tail: string[] = [];
        const take = (stream: NodeJS.ReadableStream | null) => {
          let buffer = '';
          stream?.setEncoding('utf8');
          stream?.on('data', (chunk: string) => {
            buffer += chunk;
            let nl: number;
            while ((nl = buffer.indexOf('\n')) >= 0) {
              const line = buffer.slice(0, nl).trimEnd();
              buffer = buffer.slice(nl + 1);
              if (!line) continue;
              tail.push(line);
              if (tail.length > 20) tail.shift();
              opts.out(`    │ ${line}`);
            }
          });
        };
        take(child.stdout);
        take(child.stderr);
        child.once('error', (err) => reject(new Error(`cannot run the CDK CLI ${file}: ${err.message}`)));
        child.once('exit', (code, signal) => {
          if (code === 0) resolve();
          else
            reject(
              new Error(
                `cdk ${args[0]} ${signal ? `was killed (${signal})` : `exited ${code}`}${tail.length ? `; its last lines:\n${tail.map((l) => `      ${l}`).join('\n')}` : ''}`,
              ),
            );
        });
      });
    },
  };
}
