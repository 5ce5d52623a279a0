// `exec`: one command in the workspace, inside the sandbox (sandbox/), with a timeout and
// an output cap. The command gets a bare environment (the runtime's secrets are not passed
// down) and everything it started is killed when it ends, times out or its turn is
// cancelled. Whether exec is offered at all follows `tools.exec` and the sandbox found.
import { spawn } from 'node:child_process';
import { z } from 'zod';
import type { ExecPolicy } from '../../../shared/config/schema.ts';
import type { SandboxChoice } from '../../../shared/adapters/sandbox/choose-sandbox.ts';
import { Unsandboxed } from '../../../shared/adapters/sandbox/no-sandbox.ts';
import { baseSandboxEnv, type Sandbox } from '../../../shared/adapters/sandbox/sandbox-port.ts';
import { allowlistedArgv } from './exec-allowlist.ts';
import { defineTool, type AgentTool } from './tool.ts';

export interface ExecLimits {
  defaultTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  maxOutputBytes: number;
}

const defaultExecLimits: ExecLimits = { defaultTimeoutSeconds: 60, maxTimeoutSeconds: 600, maxOutputBytes: 32_000 };

export interface ExecToolOptions {
  workspace: string;
  sandbox: Sandbox;
  /** Whether commands may use the network (default true); only offered where the sandbox can enforce it. */
  network?: boolean;
  /** Values of the agent's secret every command gets (tools.exec.env), by variable name. */
  env?: Record<string, string> | undefined;
  /** `security: "allowlist"`: the programs exec may run, without a shell. Undefined: any shell command. */
  allowlist?: string[] | undefined;
  limits?: ExecLimits;
}

function describeExec(o: ExecToolOptions, limits: ExecLimits): string {
  const what = o.allowlist
    ? `Run one program from the allowlist (${o.allowlist.join(', ')}) with its arguments in your workspace. No shell: pipes, ";", "&&", redirection, variables, globs and $(…) are refused; quote arguments with '…' or "…".`
    : 'Run a shell command (sh -c) in your workspace.';
  const where =
    o.sandbox.kind === 'none'
      ? ''
      : ` It runs in a sandbox: the workspace is writable, the rest of the system read-only, no other processes are visible${o.network === false ? ', there is no network' : ''}, and anything it leaves running is stopped when it ends.`;
  return `${what}${where} Output (stdout and stderr) is cut after ${limits.maxOutputBytes} bytes; the command is killed after timeoutSeconds (default ${limits.defaultTimeoutSeconds}).`;
}

export function execTool(options: ExecToolOptions): AgentTool {
  const limits = options.limits ?? defaultExecLimits;
  return defineTool({
    name: 'exec',
    description: describeExec(options, limits),
    schema: z.strictObject({
      command: z.string().min(1).max(20_000),
      timeoutSeconds: z.number().int().min(1).max(limits.maxTimeoutSeconds).optional(),
    }),
    async run({ command, timeoutSeconds }, ctx) {
      let argv = ['/bin/sh', '-c', command];
      if (options.allowlist) {
        const checked = allowlistedArgv(command, options.allowlist, options.sandbox.path);
        if (!checked.ok) return { text: checked.error, isError: true };
        argv = checked.value;
      }
      const seconds = timeoutSeconds ?? limits.defaultTimeoutSeconds;
      const r = await runSandboxed(argv, {
        sandbox: options.sandbox,
        // The secret values the operator named in tools.exec.env, and nothing else of the runtime's.
        env: { ...options.env, ...baseSandboxEnv(options.workspace, options.sandbox.path) },
        network: options.network ?? true,
        timeoutMs: seconds * 1000,
        maxOutputBytes: limits.maxOutputBytes,
        signal: ctx.signal,
      });
      const why = r.timedOut
        ? `killed after ${seconds} s`
        : r.aborted
          ? 'killed: the turn was cancelled'
          : r.code === null && r.signal === null
            ? 'could not run'
            : `exit code ${r.code ?? r.signal}`;
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

export interface RunOptions {
  sandbox: Sandbox;
  env: Record<string, string>;
  network: boolean;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal | undefined;
}

/** How long the output may stay open after the command and its sandbox are gone (an unsandboxed `setsid` child holding it). */
const OUTPUT_GRACE_MS = 1_000;

/**
 * Runs `argv` in the sandbox and collects its output. The launcher runs in a process group
 * of its own; once it exits (or is killed on timeout or cancel) the group is killed and the
 * lease released, which ends everything else the call started.
 */
export async function runSandboxed(argv: string[], o: RunOptions): Promise<CommandResult> {
  const base: CommandResult = { code: null, signal: null, output: '', droppedBytes: 0, timedOut: false, aborted: false };
  if (o.signal?.aborted) return { ...base, aborted: true };
  let lease;
  try {
    lease = await o.sandbox.lease({ argv, env: o.env, network: o.network, signal: o.signal });
  } catch (err) {
    return o.signal?.aborted ? { ...base, aborted: true } : { ...base, output: `could not start: ${(err as Error).message}` };
  }
  const { launch } = lease;
  return new Promise((resolve) => {
    const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let kept = 0;
    let dropped = 0;
    const take = (b: Buffer) => {
      const room = o.maxOutputBytes - kept;
      if (room > 0) chunks.push(b.subarray(0, room));
      kept += Math.min(room > 0 ? room : 0, b.length);
      dropped += Math.max(0, b.length - Math.max(room, 0));
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    let aborted = false;
    const killGroup = () => {
      if (!child.pid) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => ((timedOut = true), killGroup()), o.timeoutMs);
    const onAbort = () => ((aborted = true), killGroup());
    o.signal?.addEventListener('abort', onAbort, { once: true });
    let releasing: Promise<void> | undefined;
    const release = () => {
      killGroup();
      return (releasing ??= lease.release());
    };
    let graceTimer: NodeJS.Timeout | undefined;
    child.once('exit', () => {
      void release().then(() => {
        // Sandboxed, nothing of the call is left, so the pipes close now; unsandboxed, an
        // escaped child may hold them open for good: stop reading rather than wait on it.
        graceTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, OUTPUT_GRACE_MS);
      });
    });
    child.on('error', (err) => chunks.push(Buffer.from(`could not start: ${err.message}`)));
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      clearTimeout(graceTimer);
      o.signal?.removeEventListener('abort', onAbort);
      void release().then(() => resolve({ code, signal, output: Buffer.concat(chunks).toString('utf8'), droppedBytes: dropped, timedOut, aborted }));
    });
  });
}

export interface ExecSetup {
  tool?: AgentTool | undefined;
  /** Why exec is off, or that it runs unsandboxed: the operator sees it in the heartbeat's warnings. */
  warning?: string | undefined;
}

/**
 * Whether the agent gets `exec`, and how, from its `tools.exec` and the sandbox the runtime
 * found: `security: "deny"` → none; `sandbox: "off"` → unsandboxed, with a warning; else
 * only inside a sandbox that can do what the policy asks, and off (with the reason) where
 * there is none.
 */
export function execSetup(
  policy: ExecPolicy | undefined,
  choice: SandboxChoice | undefined,
  workspace: string,
  limits?: ExecLimits,
  secrets: Record<string, string> = {},
): ExecSetup {
  const env = Object.fromEntries(
    Object.entries(policy?.env ?? {}).flatMap(([name, secret]) => (secrets[secret] !== undefined ? [[name, secrets[secret]!]] : [])),
  );
  const security = policy?.security ?? 'full';
  if (security === 'deny') return {};
  const network = policy?.network ?? true;
  const allowlist = security === 'allowlist' ? (policy?.allowlist ?? []) : undefined;
  if (policy?.sandbox === 'off') {
    return {
      tool: execTool({ workspace, sandbox: new Unsandboxed(workspace), network, allowlist, limits, env }),
      warning: `exec runs UNSANDBOXED (tools.exec.sandbox is "off"): commands run as the runtime itself and can read whatever it can${network ? '' : ' (tools.exec.network: false is not enforced without a sandbox)'}`,
    };
  }
  if (!choice?.sandbox) {
    return {
      warning: `exec is off: no sandbox is available (${choice?.unavailable ?? 'none was looked for'}). Install bubblewrap (\`apt-get install bubblewrap\`, or \`npx clawfleet sandbox install\` for a copy of its own in .cache/), or set tools.exec.sandbox to "off" to run commands unsandboxed`,
    };
  }
  if (!network && !choice.sandbox.isolatesNetwork) {
    return { warning: `exec is off: tools.exec.network is false, and the ${choice.sandbox.kind} sandbox cannot cut the network` };
  }
  return { tool: execTool({ workspace, sandbox: choice.sandbox, network, allowlist, limits, env }) };
}
