// Runs each agent's runtime as a container of the runtime image (`clawfleet start
// --containers`), with the same lifecycle as the process supervisor (supervisor.ts): its own
// token and secrets on its stdin, never in its environment; a runtime that dies restarted
// with backoff without touching the others; restart, upgrade, hibernate and wake; a stop
// that lets the turn in flight drain (`docker stop`, the task's stop timeout). Each container
// runs under a small shell of the fleet's that stops it when the fleet goes, however the
// fleet dies: a pipe only the fleet holds ends, and the shell runs `docker stop`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { RuntimeImageVariant } from '../shared/config/image-variant.ts';
import { imageVariantFor } from '../shared/config/image-variant.ts';
import { ClawfleetError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import { runtimeEnvironment, type RuntimePipeInputs } from '../shared/runtime-env.ts';
import { CONTAINER_FLEET_SKILLS, CONTAINER_SECRETS_FD, dockerRunArgs, FLEET_LABEL, RUNTIME_STOP_SECONDS } from './container-spec.ts';
import { LOCAL_MAX_RECEIVE_COUNT } from './sqlite-control-plane.ts';
import type { RuntimeLauncher } from './runtime-launcher.ts';
import type { RuntimeImage } from './runtime-images.ts';
import type { AgentRuntimeSpec, LifecycleAction, RuntimeInfo, RuntimeState, SupervisorEvents } from './supervisor.ts';

/** The fleet's end of the lifeline: the child's file descriptor 3, which only the fleet holds open. */
const LIFELINE_FD = 3;
/** Waited beyond the stop timeout for `docker stop` itself (the engine removing the container). */
const STOP_SLACK_MS = 30_000;

// $1 docker, $2 the container's name, $3 its stop timeout; the rest is `docker run`'s arguments.
// stdin (the secrets) goes to docker run; fd 3 (the lifeline) to a watcher that stops the
// container once the fleet's end closes. Exits with docker run's status (the container's).
// The watcher outlives this shell on purpose: when the fleet dies, its docker client may die
// first (its output pipe broken) while the container runs on; only the watcher then stops it.
// After an ordinary exit the fleet closes its end, and the watcher's stop finds no container.
const WATCHDOG = [
  'docker=$1 name=$2 grace=$3; shift 3',
  'exec 4<&0',
  '"$docker" run "$@" <&4 3<&- 4<&- & r=$!',
  'exec 4<&-',
  '( cat <&3; "$docker" stop --time "$grace" "$name" ) </dev/null >/dev/null 2>&1 &',
  'exec 3<&-',
  'wait "$r"',
].join('\n');

interface Managed {
  spec: AgentRuntimeSpec;
  token: string;
  state: RuntimeState;
  child?: ChildProcess;
  /** The running container's name. */
  container?: string;
  runs: number;
  restarts: number;
  startedAt?: number;
  timer?: NodeJS.Timeout;
  held: boolean;
  acting: Promise<unknown>;
  lastExit?: RuntimeInfo['lastExit'];
}

export interface ContainerSupervisorOptions {
  /** The docker client (default `docker`, found on PATH). */
  docker: string;
  /** The image of each stage the fleet's agents run. */
  images: ReadonlyMap<RuntimeImageVariant, RuntimeImage>;
  /** This fleet's key (its state directory's): every container's label, and part of its name. */
  scope: string;
  uncheckedPathsForTests?: boolean;
}

export class ContainerSupervisor implements RuntimeLauncher {
  private readonly agents = new Map<string, Managed>();
  private stopping = false;

  constructor(
    private readonly controlUrl: string,
    private readonly workspaceRoot: string,
    private readonly log: Logger,
    private readonly events: SupervisorEvents,
    private readonly options: ContainerSupervisorOptions,
  ) {}

  start(spec: AgentRuntimeSpec): void {
    const managed: Managed = { spec, token: randomBytes(24).toString('hex'), state: 'starting', runs: 0, restarts: 0, held: false, acting: Promise.resolve() };
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

  pid(agentId: string): number | undefined {
    return this.agents.get(agentId)?.child?.pid;
  }

  topPid(agentId: string): number | undefined {
    return this.pid(agentId);
  }

  /** The name of the agent's running container, if one runs. */
  container(agentId: string): string | undefined {
    const m = this.agents.get(agentId);
    return m?.child ? m.container : undefined;
  }

  act(agentId: string, action: LifecycleAction): Promise<RuntimeState> {
    const m = this.agents.get(agentId);
    if (!m) return Promise.reject(new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in this fleet`));
    const next = m.acting.catch(() => undefined).then(() => this.actNow(m, action));
    m.acting = next;
    return next;
  }

  private async actNow(m: Managed, action: LifecycleAction): Promise<RuntimeState> {
    const agentId = m.spec.agentId;
    if (this.stopping) throw new ClawfleetError('FLEET_STOPPING', 'the fleet is stopping');
    const starts = action === 'restart' || action === 'upgrade' || (action === 'wake' && (m.state === 'hibernating' || m.state === 'stopped'));
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
        // An upgrade runs the image the fleet started with: a new image takes a new start.
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

  /** `docker stop`: SIGTERM to the runtime (through tini), SIGKILL after the stop timeout; resolves once its client has exited. */
  private async kill(m: Managed): Promise<void> {
    const child = m.child;
    const name = m.container;
    if (!child || !name) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    this.events.onStopping?.(m.spec.agentId, true);
    await new Promise<void>((resolve) =>
      execFile(
        this.options.docker,
        ['stop', '--time', String(RUNTIME_STOP_SECONDS), name],
        { timeout: RUNTIME_STOP_SECONDS * 1000 + STOP_SLACK_MS },
        (err, _out, stderr) => {
          // A container that had just exited is no longer there to stop: its exit says why.
          if (err && !/No such container/i.test(String(stderr)))
            this.log.warn('docker stop failed', { agentId: m.spec.agentId, container: name, error: String(stderr).trim() || err.message });
          resolve();
        },
      ),
    );
    await exited;
  }

  private spawn(m: Managed): void {
    const { spec } = m;
    const agent = spec.config.agent;
    const variant = imageVariantFor(agent);
    const image = this.options.images.get(variant);
    const workspace = join(this.workspaceRoot, spec.agentId);
    mkdirSync(workspace, { recursive: true });
    this.events.onStopping?.(spec.agentId, false);
    m.state = 'starting';
    m.startedAt = Date.now();
    m.container = `clawfleet-${this.options.scope}-${spec.agentId}-${++m.runs}`;
    const { cpus, memoryMb } = agent.runtime;
    if (!image || cpus === undefined || memoryMb === undefined) {
      // The fleet builds every stage its agents need before it starts any: this is a bug, said as one.
      m.state = 'stopped';
      this.log.error('no runtime image or size for this agent', { agentId: spec.agentId, variant });
      return;
    }
    // Names and settings only; no secret value, no token (those go on stdin below). The image
    // says where the workspace, the runtime state, the health file and the tool uids are.
    const vars = runtimeEnvironment(
      spec.agentId,
      spec.config,
      { kind: 'local', controlUrl: this.controlUrl, secretsFd: CONTAINER_SECRETS_FD },
      {
        CLAWFLEET_MAX_RECEIVE_COUNT: String(LOCAL_MAX_RECEIVE_COUNT),
        CLAWFLEET_OFFLINE_MODEL: spec.offlineReason,
        CLAWFLEET_FLEET_SKILLS: spec.fleetSkills ? CONTAINER_FLEET_SKILLS : undefined,
        CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: this.options.uncheckedPathsForTests ? '1' : undefined,
      },
    );
    const args = dockerRunArgs({
      name: m.container,
      image: image.tag,
      imageCommand: image.command,
      cpus,
      memoryMb,
      envNames: Object.keys(vars),
      workspace,
      fleetSkills: spec.fleetSkills,
      labels: { [FLEET_LABEL]: this.options.scope, 'io.clawfleet.agent': spec.agentId },
    });
    const child = spawn('/bin/sh', ['-c', WATCHDOG, 'clawfleet-container', this.options.docker, m.container, String(RUNTIME_STOP_SECONDS), ...args], {
      // The docker client's: where the engine is (DOCKER_HOST, its config), and the runtime's
      // variables, which `--env NAME` passes on by name.
      env: { ...clientEnvironment(process.env), ...vars },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    m.child = child;
    const lifeline = child.stdio[LIFELINE_FD] as Writable | null;
    lifeline?.on('error', () => {});
    // Only what this agent may know: its own token and secrets. The runtime reads them to
    // their end at start and closes the pipe, so nothing it runs inherits it.
    child.stdin!.on('error', () => {});
    child.stdin!.end(JSON.stringify({ token: m.token, secrets: spec.secrets } satisfies RuntimePipeInputs));
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
      lifeline?.destroy();
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
      this.log.warn('runtime container exited; restarting', { agentId: spec.agentId, code, signal, inMs: delay });
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

/** What the docker client needs of the fleet's environment: a path, a home and Docker's own settings — nothing else of it. */
function clientEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && (['PATH', 'HOME'].includes(e[0]) || e[0].startsWith('DOCKER_'))),
  );
}

/** Removes every container a fleet on this state directory left (it was killed before it could stop them). */
export function removeLeftoverContainers(docker: string, scope: string, log: Logger): Promise<void> {
  return new Promise((resolve) => {
    execFile(docker, ['ps', '--all', '--quiet', '--filter', `label=${FLEET_LABEL}=${scope}`], { timeout: 60_000 }, (err, stdout) => {
      const ids = String(stdout).split('\n').filter(Boolean);
      if (err || ids.length === 0) return resolve();
      log.warn('removing runtime containers an earlier run of this fleet left', { containers: ids.length });
      execFile(docker, ['rm', '--force', ...ids], { timeout: 120_000 }, () => resolve());
    });
  });
}
