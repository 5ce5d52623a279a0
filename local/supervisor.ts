// Runs each agent's runtime as its own child process, in a bubblewrap box of its own
// (runtime-box.ts) unless its runtime.localSandbox is "off", handing it only its own secrets
// and token — on a pipe it reads at start, never in its environment, which anything running
// as the same user could read at /proc/<pid>/environ. The lifecycle (restart with backoff,
// restart, upgrade — whatever runtime code is on disk now —, hibernate, wake) is
// runtime-lifecycle.ts's. It asks a runtime to stop on the runtime's stdin (bwrap passes no
// signal on); the pipe's end tells a runtime its fleet is gone.
import { LOCAL_MAX_RECEIVE_COUNT } from './sqlite-control-plane.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runtimeLaunch } from './runtime-entry.ts';
import { giveToBox } from './box-owner.ts';
import { processBelow } from './process-below.ts';
import { boxCommand, boxReadOnly, exitThroughBox, type BoxSetup } from './runtime-box.ts';
import { ClawfleetError } from '../shared/errors.ts';
import type { AgentRuntimeSpec, SupervisorEvents } from './runtime-launcher.ts';
import { RuntimeLifecycle, type RuntimeRun, type RunEnded } from './runtime-lifecycle.ts';
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

/** One start of a runtime process: for a boxed one, its command line, and its pid once found below the box's bwrap. */
interface ProcessRun extends RuntimeRun {
  runtime?: { argv: string[]; pid?: number };
}

export class Supervisor extends RuntimeLifecycle<ProcessRun> {
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
    log: Logger,
    events: SupervisorEvents,
    options: { hide?: string[]; openclaw?: { node: string; cli: string }; boxing?: RuntimeBoxing; uncheckedPathsForTests?: boolean } = {},
  ) {
    super(log, events, 'runtime');
    this.openclaw = options.openclaw;
    this.boxing = options.boxing;
    this.uncheckedPathsForTests = options.uncheckedPathsForTests === true;
    // The state directory (every agent's workspace, the tokens, state.db), the code and the
    // directory the fleet runs from (the secrets file by default), and the user's home.
    this.hide = [dirname(workspaceRoot), REPO, process.cwd(), ...(process.env.HOME ? [process.env.HOME] : []), ...(options.hide ?? [])];
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

  /**
   * Starts the agent's runtime process (throws, saying why, where it cannot start now). A
   * boxed one's pid is the runtime found inside its box (killing it is a crash, as for an
   * unboxed one), or the box's bwrap while the runtime is not started in it yet.
   */
  protected launch(spec: AgentRuntimeSpec, token: string, ended: RunEnded): ProcessRun {
    const start = this.startFor(spec);
    const child = spawn(start.file, start.args, {
      cwd: start.cwd,
      env: start.env,
      // stdin: the lifeline (CLAWFLEET_LIFELINE), whose other end only this process holds.
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      // Its own process group: a Ctrl-C at the terminal reaches the fleet alone, which then
      // stops each runtime itself (a runtime whose fleet died stops on its own: its lifeline ends).
      detached: true,
    });
    child.stdin!.on('error', () => {}); // a runtime that is gone cannot be asked anything: its exit says why
    // Only what this agent may know: its own token and secrets, no other agent's, no bot
    // token. The runtime reads the pipe to its end at start and closes it, so nothing it
    // runs inherits it. A child that dies first makes the write fail: its exit says why.
    const inputs = child.stdio[SECRETS_FD] as Writable | null;
    inputs?.on('error', () => {});
    inputs?.end(JSON.stringify({ token, secrets: spec.secrets } satisfies RuntimePipeInputs));
    // Gone means its output closed, not only its first process exited: a box's bwrap killed
    // first leaves the runtime inside a moment longer (its pid namespace dies after), and the
    // next runtime of the agent must not start, nor its messages be released, while it lives.
    // Everything in the box holds that output; nothing the runtime starts inherits it.
    child.once('close', (code, signal) => {
      const exit = start.boxed ? exitThroughBox(code, signal) : { code, signal };
      ended(exit.code, exit.signal);
    });
    child.once('exit', () => {
      const held = setTimeout(() => {
        this.log.warn('runtime exited but its output is still open; closing it', { agentId: spec.agentId });
        for (const stream of [child.stdout, child.stderr, child.stdio[SECRETS_FD]]) stream?.destroy();
      }, OUTPUT_CLOSE_MS);
      child.once('close', () => clearTimeout(held));
    });
    const run: ProcessRun = {
      child,
      runtime: start.boxed ? { argv: start.argv } : undefined,
      pid: () => {
        const top = child.pid;
        if (!run.runtime || top === undefined) return top;
        run.runtime.pid ??= processBelow(top, run.runtime.argv);
        return run.runtime.pid ?? top;
      },
      stop: () => stopThroughStdin(child),
    };
    return run;
  }
}

/** Asks a runtime to stop on its stdin, and kills it if it has not closed within the grace. */
async function stopThroughStdin(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('close', resolve));
  // Said on its stdin: a signal to bwrap would not reach the runtime in its box.
  child.stdin?.write('SIGTERM\n');
  // Killing the box's bwrap kills the box's whole pid namespace with it.
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await exited;
  clearTimeout(timer);
}
