// `exec`: one shell command in the workspace, with a timeout and an output cap. The
// command runs in its own process group so a timeout or shutdown kills everything it
// started, and with a bare environment: the runtime's secrets are not passed down.
import { spawn } from 'node:child_process';
import { z } from 'zod';
import { defineTool, type AgentTool } from './tool.ts';

export interface ExecLimits {
  defaultTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  maxOutputBytes: number;
}

export const defaultExecLimits: ExecLimits = { defaultTimeoutSeconds: 60, maxTimeoutSeconds: 600, maxOutputBytes: 32_000 };

export function execTool(workspace: string, limits: ExecLimits = defaultExecLimits): AgentTool {
  return defineTool({
    name: 'exec',
    description: `Run a shell command (sh -c) in your workspace. Output (stdout and stderr) is cut after ${limits.maxOutputBytes} bytes; the command is killed after timeoutSeconds (default ${limits.defaultTimeoutSeconds}).`,
    schema: z.strictObject({
      command: z.string().min(1).max(20_000),
      timeoutSeconds: z.number().int().min(1).max(limits.maxTimeoutSeconds).optional(),
    }),
    async run({ command, timeoutSeconds }, ctx) {
      const r = await runCommand(command, { cwd: workspace, timeoutMs: (timeoutSeconds ?? limits.defaultTimeoutSeconds) * 1000, maxOutputBytes: limits.maxOutputBytes, signal: ctx.signal });
      const why = r.timedOut ? `killed after ${timeoutSeconds ?? limits.defaultTimeoutSeconds} s` : r.aborted ? 'killed: the turn was cancelled' : `exit code ${r.code ?? r.signal}`;
      const cut = r.droppedBytes > 0 ? `\n[${r.droppedBytes} more bytes of output cut]` : '';
      return { text: `${why}\n${r.output}${cut}`, isError: r.code !== 0 };
    },
  });
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  droppedBytes: number;
  timedOut: boolean;
  aborted: boolean;
}

export function runCommand(command: string, opts: { cwd: string; timeoutMs: number; maxOutputBytes: number; signal?: AbortSignal }): Promise<CommandResult> {
  return new Promise((resolve) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd: opts.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: opts.cwd, LANG: 'C.UTF-8' },
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    const take = (b: Buffer) => {
      const room = opts.maxOutputBytes - kept;
      if (room > 0) chunks.push(b.subarray(0, room));
      kept += Math.min(room > 0 ? room : 0, b.length);
      dropped += Math.max(0, b.length - Math.max(room, 0));
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => ((timedOut = true), killGroup()), opts.timeoutMs);
    const onAbort = () => ((aborted = true), killGroup());
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (err) => chunks.push(Buffer.from(`could not start: ${err.message}`)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      // Whatever the shell left running in its group goes with it.
      killGroup();
      resolve({ code, signal, output: Buffer.concat(chunks).toString('utf8'), droppedBytes: dropped, timedOut, aborted });
    });
  });
}
