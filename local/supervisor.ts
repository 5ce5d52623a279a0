// Runs each agent's runtime as its own child process, handing it only its own secrets and
// token — on a pipe it reads at start, never in its environment, which anything running as
// the same user could read at /proc/<pid>/environ — restarts one that dies (with backoff)
// without touching the others, and carries out the operator's lifecycle commands: restart,
// upgrade, hibernate, wake.
import { LOCAL_MAX_RECEIVE_COUNT } from './sqlite-control-plane.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { RuntimeConfig } from '../shared/config/resolve.ts';
import { runtimeCommand } from './runtime-entry.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { runtimeEnvironment, type RuntimePipeInputs } from '../shared/runtime-env.ts';
import type { Logger } from '../shared/log.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** How long a stopping runtime may finish its turn before it is killed. */
const STOP_GRACE_MS = 30_000;
/** The child's file descriptor for the pipe that carries its token and secrets (stdio index 3). */
const SECRETS_FD = 3;

export type RuntimeState = 'starting' | 'running' | 'restarting' | 'hibernating' | 'stopped';
export type LifecycleAction = 'restart' | 'upgrade' | 'hibernate' | 'wake';

export interface AgentRuntimeSpec {
  agentId: string;
  config: RuntimeConfig;
  /** This agent's own secret values, and nothing else. */
  secrets: Record<string, string>;
  /** Why this agent runs the offline model, when it has no model key. */
  offlineReason: string | undefined;
  /** The fleet's skills folder, when there is one (copied into the workspace by the runtime). */
  fleetSkills?: string | undefined;
}

export interface RuntimeInfo {
  state: RuntimeState;
  pid: number | undefined;
  /** Crash restarts since the process last ran a minute. */
  restarts: number;
  startedAt: number | undefined;
  lastExit: { code: number | null; signal: string | null; at: number } | undefined;
}

interface Managed {
  spec: AgentRuntimeSpec;
  token: string;
  state: RuntimeState;
  child?: ChildProcess;
  restarts: number;
  startedAt?: number;
  timer?: NodeJS.Timeout;
  /** Set while an operator action stops the process, so its exit is not a crash. */
  held: boolean;
  /** The action in progress, which the next one waits for. */
  acting: Promise<unknown>;
  lastExit?: RuntimeInfo['lastExit'];
}

export interface SupervisorEvents {
  /** Each JSON log line a runtime writes. */
  onLine(agentId: string, line: Record<string, unknown>): void;
  /** A runtime process has exited, before any restart. */
  onExit(agentId: string, code: number | null, signal: string | null, crashed: boolean): void;
  /** Rebuilds an agent's spec (fresh secrets) before an operator starts it again. */
  respec?(agentId: string): Promise<AgentRuntimeSpec>;
  /** A runtime was told to stop (SIGTERM sent); `false` once its next process starts. */
  onStopping?(agentId: string, stopping: boolean): void;
}

export class Supervisor {
  private readonly agents = new Map<string, Managed>();
  private stopping = false;

  /** What a runtime's sandbox must never show, even inside a system directory such as /opt. */
  private readonly hide: string[];
  /** The pinned OpenClaw install that runtime.kind "openclaw" agents' gateways run on. */
  private readonly openclaw: { node: string; cli: string } | undefined;
  /** Test-only (LocalFleetOptions.uncheckedPathsForTests): runtimes resolve file-tool paths naively. */
  private readonly uncheckedPathsForTests: boolean;

  constructor(
    private readonly controlUrl: string,
    private readonly workspaceRoot: string,
    private readonly log: Logger,
    private readonly events: SupervisorEvents,
    options: { hide?: string[]; openclaw?: { node: string; cli: string }; uncheckedPathsForTests?: boolean } = {},
  ) {
    this.openclaw = options.openclaw;
    this.uncheckedPathsForTests = options.uncheckedPathsForTests === true;
    // The state directory (every agent's workspace, the tokens, state.db), the code and the
    // directory the fleet runs from (the secrets file by default), and the user's home.
    this.hide = [dirname(workspaceRoot), REPO, process.cwd(), ...(process.env.HOME ? [process.env.HOME] : []), ...(options.hide ?? [])];
  }

  start(spec: AgentRuntimeSpec): void {
    const managed: Managed = { spec, token: randomBytes(24).toString('hex'), state: 'starting', restarts: 0, held: false, acting: Promise.resolve() };
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

  info(agentId: string): RuntimeInfo {
    const m = this.agents.get(agentId);
    return { state: m?.state ?? 'stopped', pid: m?.child?.pid, restarts: m?.restarts ?? 0, startedAt: m?.startedAt, lastExit: m?.lastExit };
  }

  /** The child process of an agent, for tests and the CLI. */
  pid(agentId: string): number | undefined {
    return this.agents.get(agentId)?.child?.pid;
  }

  /**
   * An operator's lifecycle command. `restart` and `upgrade` replace the process (an upgrade
   * runs whatever runtime code is on disk now); `hibernate` stops it until `wake`. Messages
   * keep queueing meanwhile and are answered once it runs again.
   */
  act(agentId: string, action: LifecycleAction): Promise<RuntimeState> {
    const m = this.agents.get(agentId);
    if (!m) return Promise.reject(new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in this fleet`));
    // One action at a time per agent: a wake that arrives while a hibernation is still
    // stopping the process runs after it, so it finds the process stopped and starts it.
    const next = m.acting.catch(() => undefined).then(() => this.actNow(m, action));
    m.acting = next;
    return next;
  }

  private async actNow(m: Managed, action: LifecycleAction): Promise<RuntimeState> {
    const agentId = m.spec.agentId;
    if (this.stopping) throw new ClawfleetError('FLEET_STOPPING', 'the fleet is stopping');
    const starts = action === 'restart' || action === 'upgrade' || (action === 'wake' && (m.state === 'hibernating' || m.state === 'stopped'));
    // A restart is how an operator hands the runtime a new key: read its secrets again.
    if (starts && this.events.respec) m.spec = await this.events.respec(agentId);
    switch (action) {
      case 'hibernate':
        await this.halt(m);
        m.state = 'hibernating';
        break;
      case 'wake':
        if (starts) this.spawn(m);
        break;
      case 'restart':
      case 'upgrade':
        await this.halt(m);
        m.restarts = 0;
        this.spawn(m);
        break;
    }
    this.log.info(`runtime ${action}`, { agentId, state: m.state });
    return m.state;
  }

  private async halt(m: Managed): Promise<void> {
    clearTimeout(m.timer);
    m.held = true;
    try {
      await this.kill(m);
    } finally {
      m.held = false;
    }
  }

  private async kill(m: Managed): Promise<void> {
    const child = m.child;
    if (!child) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    this.events.onStopping?.(m.spec.agentId, true);
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  private spawn(m: Managed): void {
    const { spec } = m;
    const workspace = join(this.workspaceRoot, spec.agentId);
    mkdirSync(workspace, { recursive: true });
    // The runtime's own bookkeeping, beside the workspaces rather than in one: the sandbox
    // hides the state directory, so nothing the agent runs can write it.
    const runtimeState = join(dirname(this.workspaceRoot), 'runtime', spec.agentId);
    mkdirSync(runtimeState, { recursive: true, mode: 0o700 });
    this.events.onStopping?.(spec.agentId, false);
    m.state = 'starting';
    m.startedAt = Date.now();
    const [node, ...args] = runtimeCommand();
    const child = spawn(node!, args, {
      cwd: REPO,
      // Names and settings only; no secret value, no token (those go on the pipe below).
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...runtimeEnvironment(
          spec.agentId,
          spec.config,
          { kind: 'local', controlUrl: this.controlUrl, secretsFd: SECRETS_FD },
          {
            CLAWFLEET_SANDBOX_HIDE: JSON.stringify(this.hide),
            CLAWFLEET_WORKSPACE: workspace,
            CLAWFLEET_RUNTIME_STATE: runtimeState,
            CLAWFLEET_MAX_RECEIVE_COUNT: String(LOCAL_MAX_RECEIVE_COUNT),
            CLAWFLEET_OFFLINE_MODEL: spec.offlineReason,
            CLAWFLEET_FLEET_SKILLS: spec.fleetSkills,
            CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: this.uncheckedPathsForTests ? '1' : undefined,
            ...(spec.config.agent.runtime.kind === 'openclaw' && this.openclaw
              ? { CLAWFLEET_OPENCLAW_NODE: this.openclaw.node, CLAWFLEET_OPENCLAW_CLI: this.openclaw.cli }
              : {}),
          },
        ),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C at the terminal reaches the fleet alone, which then
      // stops each runtime itself (a runtime whose fleet died stops on its own: its parent watch).
      detached: true,
    });
    m.child = child;
    // Only what this agent may know: its own token and secrets, no other agent's, no bot
    // token. The runtime reads the pipe to its end at start and closes it, so nothing it
    // runs inherits it. A child that dies first makes the write fail: its exit says why.
    const inputs = child.stdio[SECRETS_FD] as Writable | null;
    inputs?.on('error', () => {});
    inputs?.end(JSON.stringify({ token: m.token, secrets: spec.secrets } satisfies RuntimePipeInputs));
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
        if (line.msg === 'ready' && m.child === child) m.state = 'running';
        this.events.onLine(spec.agentId, line);
      }
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.events.onLine(spec.agentId, { level: 'error', msg: chunk.trimEnd() }));
    child.once('exit', (code, signal) => {
      if (m.child === child) m.child = undefined;
      m.lastExit = { code, signal, at: Date.now() };
      const crashed = !this.stopping && !m.held;
      this.events.onExit(spec.agentId, code, signal, crashed);
      if (!crashed) {
        if (this.stopping) m.state = 'stopped';
        return;
      }
      // Back off 1 s, 2 s, 4 s … 30 s; a runtime that ran a minute starts over at 1 s.
      if (Date.now() - (m.startedAt ?? 0) > 60_000) m.restarts = 0;
      const delay = Math.min(30_000, 1000 * 2 ** m.restarts++);
      m.state = 'restarting';
      this.log.warn('runtime exited; restarting', { agentId: spec.agentId, code, signal, inMs: delay });
      m.timer = setTimeout(() => this.spawn(m), delay);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.agents.values()].map(async (m) => {
        clearTimeout(m.timer);
        await this.kill(m);
        m.state = 'stopped';
      }),
    );
  }
}
