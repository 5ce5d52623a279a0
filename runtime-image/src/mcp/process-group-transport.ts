// MCP over stdio with the server in a process group of its own, so that stopping it (or
// cleaning up after it crashed) kills everything it started — `npx` wrappers, shells,
// grandchildren — not just the direct child. The stock StdioClientTransport signals only
// the child, which is how orphaned MCP servers pile up. A server configured with
// `sandbox: true` is launched through the runtime's sandbox, whose lease is released
// (everything of the server killed) when it exits.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Sandbox, SandboxLease } from '../../../shared/adapters/sandbox/sandbox-port.ts';

export interface ProcessGroupSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  onStderr?: (line: string) => void;
  /** Runs the server inside this sandbox (the env is then all it gets, as for exec). */
  sandbox?: Sandbox | undefined;
}

export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer = new ReadBuffer();
  private exited: Promise<void> = Promise.resolve();
  private lease: SandboxLease | undefined;

  constructor(private readonly spec: ProcessGroupSpec) {}

  /** The process group id (the leader's pid) while the server runs. */
  get pgid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    const lease = this.spec.sandbox
      ? await this.spec.sandbox.lease({ argv: [this.spec.command, ...this.spec.args], env: this.spec.env, network: true })
      : undefined;
    this.lease = lease;
    const launch = lease?.launch ?? { file: this.spec.command, args: this.spec.args, env: this.spec.env, cwd: this.spec.cwd };
    return new Promise((resolve, reject) => {
      const child = spawn(launch.file, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
      this.child = child;
      this.exited = new Promise((done) => child.once('exit', () => done()));
      child.once('error', (err) => {
        reject(err);
        this.onerror?.(err);
      });
      child.once('spawn', () => resolve());
      // The leader is gone: whatever it left in its group goes too (a grandchild would
      // otherwise keep the pipes open and the server would never be seen as down).
      child.once('exit', () => {
        killGroup(child.pid, 'SIGKILL');
        void lease?.release();
      });
      child.once('close', () => {
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (err) {
            this.onerror?.(err as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      let partial = '';
      child.stderr!.setEncoding('utf8').on('data', (text: string) => {
        partial += text;
        const lines = partial.split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) this.spec.onStderr?.(line.slice(0, 1_000));
      });
      child.stdin!.on('error', (err) => this.onerror?.(err));
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) throw new Error('the MCP server is not running');
    await new Promise<void>((resolve, reject) => stdin.write(serializeMessage(message), (err) => (err ? reject(err) : resolve())));
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves once the leader has exited. */
  async close(graceMs = 2_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.stdin?.end();
    killGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    killGroup(child.pid, 'SIGKILL');
    await this.lease?.release();
  }
}

export function killGroup(pgid: number | undefined, signal: NodeJS.Signals): void {
  if (!pgid) return;
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}
