// Runs each agent's runtime as its own child process, in a bubblewrap box of its own
// (runtime-box.ts) unless its runtime.localSandbox is "off", handing it only its own secrets
// and token — on a pipe it reads at start, never in its environment, which anything running
// as the same user could read at /proc/<pid>/environ — restarts one that dies (with backoff)
// without touching the others, and carries out the operator's lifecycle commands: restart,
// upgrade, hibernate, wake. It asks a runtime to stop on the runtime's stdin (bwrap passes no
// signal on); the pipe's end tells a runtime its fleet is gone.
import { LOCAL_MAX_RECEIVE_COUNT } from './sqlite-control-plane.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { RuntimeConfig } from '../shared/config/resolve.ts';
import { runtimeLaunch } from './runtime-entry.ts';
import { giveToBox } from './box-owner.ts';
import { processBelow } from './process-below.ts';
import { boxCommand, boxReadOnly, exitThroughBox, type BoxSetup } from './runtime-box.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { runtimeEnvironment, type RuntimePipeInputs } from '../shared/runtime-env.ts';
import type { Logger } from '../shared/log.ts';
import { DEFAULT_CHROMIUM } from '../shared/runtime-limits.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
/** How long a stopping runtime may finish its turn before it is killed. */
const STOP_GRACE_MS = 30_000;
/** How long after a runtime's process exits its output may stay open (its box's last processes dying) before it is closed for it. */
const OUTPUT_CLOSE_MS = 10_000;
/** The child's file descriptor for the pipe that carries its token and secrets (stdio index 3). */
const SECRETS_FD = 3;

/** How the supervisor runs boxed runtimes: the bubblewrap, and as root the user boxes run as (runtime-box.ts). */
export type RuntimeBoxing = Pick<BoxSetup, 'bwrap' | 'dropTo'>;

/** What a runtime is started with: the command (bwrap's, for a boxed one), its environment and working directory. */
export interface RuntimeStart {
  file: string;
  args: string[];
  /** The runtime's own command line (inside the box, for a boxed one). */
  argv: string[];
  env: Record<string, string>;
  cwd: string;
  boxed: boolean;
}

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
  /** A boxed child's runtime: its command line, and its pid once found below the box's bwrap. */
  runtime?: { argv: string[]; pid?: number };
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
  /** Absent: no runtime may be boxed (every agent's runtime.localSandbox is "off"). */
  private readonly boxing: RuntimeBoxing | undefined;
  /** Test-only (LocalFleetOptions.uncheckedPathsForTests): runtimes resolve file-tool paths naively. */
  private readonly uncheckedPathsForTests: boolean;

  constructor(
    private readonly controlUrl: string,
    private readonly workspaceRoot: string,
    private readonly log: Logger,
    private readonly events: SupervisorEvents,
    options: { hide?: string[]; openclaw?: { node: string; cli: string }; boxing?: RuntimeBoxing; uncheckedPathsForTests?: boolean } = {},
  ) {
    this.openclaw = options.openclaw;
    this.boxing = options.boxing;
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
    return { state: m?.state ?? 'stopped', pid: this.pid(agentId), restarts: m?.restarts ?? 0, startedAt: m?.startedAt, lastExit: m?.lastExit };
  }

  /**
   * An agent's runtime process, for tests, the CLI and the dashboard: for a boxed one, the
   * runtime inside the box (killing it is a crash, as for an unboxed one), or the box's bwrap
   * while the runtime is not started in it yet.
   */
  pid(agentId: string): number | undefined {
    const m = this.agents.get(agentId);
    const top = m?.child?.pid;
    if (!m?.runtime || top === undefined) return top;
    m.runtime.pid ??= processBelow(top, m.runtime.argv);
    return m.runtime.pid ?? top;
  }

  /** The bwrap an agent's box runs under (what killing kills the whole box), or an unboxed runtime's own process. */
  topPid(agentId: string): number | undefined {
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
    const exited = new Promise((resolve) => child.once('close', resolve));
    // Said on its stdin: a signal to bwrap would not reach the runtime in its box.
    child.stdin?.write('SIGTERM\n');
    this.events.onStopping?.(m.spec.agentId, true);
    // Killing the box's bwrap kills the box's whole pid namespace with it.
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /**
   * How this agent's runtime starts now: in its box, or as a plain process where its
   * runtime.localSandbox is "off". Throws, saying why, where the box cannot be made for it.
   * Makes its workspace and runtime state (and, for a root fleet's box, gives them to the box's user).
   * `command` replaces the runtime's own (a probe of the box).
   */
  startFor(spec: AgentRuntimeSpec, command?: string[]): RuntimeStart {
    const workspace = join(this.workspaceRoot, spec.agentId);
    mkdirSync(workspace, { recursive: true });
    // The runtime's own bookkeeping, beside the workspaces rather than in one: the sandbox
    // hides the state directory, so nothing the agent runs can write it.
    const runtimeState = join(dirname(this.workspaceRoot), 'runtime', spec.agentId);
    mkdirSync(runtimeState, { recursive: true, mode: 0o700 });
    const agent = spec.config.agent;
    const boxed = agent.runtime.localSandbox !== 'off';
    const openclaw = agent.runtime.kind === 'openclaw' ? this.openclaw : undefined;
    const launch = command ? { ...runtimeLaunch(), argv: command } : runtimeLaunch();
    const settings = {
      CLAWFLEET_SANDBOX_HIDE: JSON.stringify(this.hide),
      CLAWFLEET_WORKSPACE: workspace,
      CLAWFLEET_RUNTIME_STATE: runtimeState,
      CLAWFLEET_MAX_RECEIVE_COUNT: String(LOCAL_MAX_RECEIVE_COUNT),
      CLAWFLEET_OFFLINE_MODEL: spec.offlineReason,
      CLAWFLEET_FLEET_SKILLS: spec.fleetSkills,
      CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: this.uncheckedPathsForTests ? ('1' as const) : undefined,
      CLAWFLEET_LIFELINE: 'stdin' as const,
      ...(openclaw ? { CLAWFLEET_OPENCLAW_NODE: openclaw.node, CLAWFLEET_OPENCLAW_CLI: openclaw.cli } : {}),
    };
    const transport = { kind: 'local' as const, controlUrl: this.controlUrl, secretsFd: SECRETS_FD };
    if (!boxed) {
      // Names and settings only; no secret value, no token (those go on the pipe).
      const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...runtimeEnvironment(spec.agentId, spec.config, transport, settings) };
      return { file: launch.argv[0]!, args: launch.argv.slice(1), argv: launch.argv, env, cwd: REPO, boxed };
    }
    // (Throws where this fleet has no bubblewrap, or the box would show what it hides.)
    const readOnly = this.boxReadOnlyFor(spec, launch.runsFrom);
    const { bwrap, dropTo } = this.boxing!;
    // Its own home, in its runtime state: $HOME stays outside the box (npx's cache of an MCP server lands here).
    const home = join(runtimeState, 'home');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    if (dropTo) for (const dir of [workspace, runtimeState]) giveToBox(dir, dropTo.uid, dropTo.gid);
    // Names and settings only; no secret value, no token (those go on the pipe).
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: home,
      ...runtimeEnvironment(spec.agentId, spec.config, transport, { ...settings, CLAWFLEET_BWRAP: bwrap }),
    };
    const [file, ...args] = boxCommand({ bwrap, dropTo, hide: this.hide }, { workspace, runtimeState, readOnly }, launch.argv);
    return { file: file!, args, argv: launch.argv, env, cwd: '/', boxed };
  }

  /** What this agent's box shows read-only; throws RUNTIME_BOX_PATH_HIDDEN where it would show something hidden. Touches nothing. */
  boxReadOnlyFor(spec: AgentRuntimeSpec, runsFrom = runtimeLaunch().runsFrom): string[] {
    if (!this.boxing)
      throw new ClawfleetError(
        'RUNTIME_BOX_UNAVAILABLE',
        `${spec.agentId}'s runtime runs only in a box (runtime.localSandbox), and this fleet has no bubblewrap`,
      );
    const agent = spec.config.agent;
    const browser = agent.tools?.browser;
    return boxReadOnly(
      {
        runsFrom,
        bwrap: this.boxing.bwrap,
        fleetSkills: spec.fleetSkills,
        chromium: browser?.enabled ? (browser.executablePath ?? DEFAULT_CHROMIUM) : undefined,
        mcpServers: agent.mcp?.servers,
        openclaw: agent.runtime.kind === 'openclaw' ? this.openclaw : undefined,
      },
      this.hide,
    );
  }

  private spawn(m: Managed): void {
    const { spec } = m;
    this.events.onStopping?.(spec.agentId, false);
    m.state = 'starting';
    m.startedAt = Date.now();
    let start: RuntimeStart;
    try {
      start = this.startFor(spec);
    } catch (err) {
      // Said like a crash (its line in the agent's log and status), and tried again with backoff.
      this.events.onLine(spec.agentId, { level: 'error', msg: 'runtime cannot start', error: (err as Error).message });
      this.exited(m, undefined, 1, null);
      return;
    }
    const child = spawn(start.file, start.args, {
      cwd: start.cwd,
      env: start.env,
      // stdin: the lifeline (CLAWFLEET_LIFELINE), whose other end only this process holds.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C at the terminal reaches the fleet alone, which then
      // stops each runtime itself (a runtime whose fleet died stops on its own: its lifeline ends).
      detached: true,
    });
    m.child = child;
    m.runtime = start.boxed ? { argv: start.argv } : undefined;
    child.stdin!.on('error', () => {}); // a runtime that is gone cannot be asked anything: its exit says why
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
    // Gone means its output closed, not only its first process exited: a box's bwrap killed
    // first leaves the runtime inside a moment longer (its pid namespace dies after), and the
    // next runtime of the agent must not start, nor its messages be released, while it lives.
    // Everything in the box holds that output; nothing the runtime starts inherits it.
    child.once('close', (code, signal) => {
      const exit = start.boxed ? exitThroughBox(code, signal) : { code, signal };
      this.exited(m, child, exit.code, exit.signal);
    });
    child.once('exit', () => {
      const held = setTimeout(() => {
        this.log.warn('runtime exited but its output is still open; closing it', { agentId: spec.agentId });
        for (const stream of [child.stdout, child.stderr, child.stdio[SECRETS_FD]]) stream?.destroy();
      }, OUTPUT_CLOSE_MS);
      child.once('close', () => clearTimeout(held));
    });
  }

  private exited(m: Managed, child: ChildProcess | undefined, code: number | null, signal: string | null): void {
    const { spec } = m;
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
