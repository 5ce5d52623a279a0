// Runs a short helper command (a sandbox probe, the uid pool's kill) to its end and
// collects its output: what the sandboxes need to check themselves before they are used.
import { spawn } from 'node:child_process';

export interface ShortRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Set when the command could not be started or did not finish in time. */
  failure?: string;
}

export function runShort(file: string, args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<ShortRun> {
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let failure: string | undefined;
    const child = spawn(file, args, { env: opts.env ?? {}, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(0, 16_000)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(0, 16_000)));
    const timer = setTimeout(() => {
      failure = `did not finish within ${opts.timeoutMs ?? 10_000} ms`;
      child.kill('SIGKILL');
    }, opts.timeoutMs ?? 10_000);
    child.once('error', (err) => (failure = `could not start ${file}: ${err.message}`));
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...(failure ? { failure } : {}) });
    });
  });
}

/** The first line of a helper's complaint, for a reason shown to the operator. */
export function firstLine(text: string): string {
  return text.trim().split('\n')[0]?.slice(0, 300) ?? '';
}
