// Runs each agent's runtime as its own child process with only its own secrets in its
// environment, and restarts one that dies (with backoff) without touching the others.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RuntimeConfig } from '../shared/config/resolve.ts';
import type { Logger } from '../shared/log.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = join(REPO, 'runtime-image', 'src', 'main.ts');

export type RuntimeState = 'starting' | 'running' | 'restarting' | 'stopped';

export interface AgentRuntimeSpec {
  agentId: string;
  config: RuntimeConfig;
  /** This agent's own secret values, and nothing else. */
  secrets: Record<string, string>;
  /** Why this agent runs the offline model, when it has no model key. */
  offlineReason: string | undefined;
}

interface Managed {
  spec: AgentRuntimeSpec;
  token: string;
  state: RuntimeState;
  child?: ChildProcess;
  restarts: number;
  startedAt: number;
  timer?: NodeJS.Timeout;
}

export class Supervisor {
  private readonly agents = new Map<string, Managed>();
  private stopping = false;

  constructor(
    private readonly controlUrl: string,
    private readonly workspaceRoot: string,
    private readonly log: Logger,
    /** Called with each JSON log line a runtime writes. */
    private readonly onLine: (agentId: string, line: Record<string, unknown>) => void,
    /** Called when a runtime process has exited, before any restart. */
    private readonly onExit: (agentId: string) => void = () => {},
  ) {}

  start(spec: AgentRuntimeSpec): void {
    const managed: Managed = { spec, token: randomBytes(24).toString('hex'), state: 'starting', restarts: 0, startedAt: Date.now() };
    this.agents.set(spec.agentId, managed);
    this.spawn(managed);
  }

  agentOfToken(token: string): string | undefined {
    const given = Buffer.from(token);
    for (const [id, m] of this.agents) {
      const mine = Buffer.from(m.token);
      if (mine.length === given.length && timingSafeEqual(mine, given)) return id;
    }
    return undefined;
  }

  state(agentId: string): RuntimeState {
    return this.agents.get(agentId)?.state ?? 'stopped';
  }

  private spawn(m: Managed): void {
    const { spec } = m;
    const workspace = join(this.workspaceRoot, spec.agentId);
    mkdirSync(workspace, { recursive: true });
    m.state = 'starting';
    m.startedAt = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', ENTRY], {
      cwd: REPO,
      // Only what this agent may know: no other agent's secrets, no bot tokens.
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        CLAWFLEET_AGENT_ID: spec.agentId,
        CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(spec.config),
        CLAWFLEET_CONTROL_URL: this.controlUrl,
        CLAWFLEET_RUNTIME_TOKEN: m.token,
        CLAWFLEET_SECRETS: JSON.stringify(spec.secrets),
        CLAWFLEET_WORKSPACE: workspace,
        ...(spec.offlineReason ? { CLAWFLEET_OFFLINE_MODEL: spec.offlineReason } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    m.child = child;
    let buffer = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        let line: Record<string, unknown>;
        try {
          line = JSON.parse(text) as Record<string, unknown>;
        } catch {
          line = { level: 'info', msg: text };
        }
        if (line.msg === 'ready') m.state = 'running';
        this.onLine(spec.agentId, line);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.onLine(spec.agentId, { level: 'error', msg: chunk.trimEnd() }));
    child.once('exit', (code, signal) => {
      m.child = undefined;
      this.onExit(spec.agentId);
      if (this.stopping) return void (m.state = 'stopped');
      // Back off 1 s, 2 s, 4 s … 30 s; a runtime that ran a minute starts over at 1 s.
      if (Date.now() - m.startedAt > 60_000) m.restarts = 0;
      const delay = Math.min(30_000, 1000 * 2 ** m.restarts++);
      m.state = 'restarting';
      this.log.warn('runtime exited; restarting', { agentId: spec.agentId, code, signal, inMs: delay });
      m.timer = setTimeout(() => this.spawn(m), delay);
    });
  }

  /** The child process of an agent, for tests and the CLI. */
  pid(agentId: string): number | undefined {
    return this.agents.get(agentId)?.child?.pid;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.agents.values()].map(async (m) => {
        clearTimeout(m.timer);
        const child = m.child;
        if (!child) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
