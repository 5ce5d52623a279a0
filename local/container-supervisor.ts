// Runs each agent's runtime as a container of the runtime image (`clawfleet start
// --containers`), with the same lifecycle as the process supervisor (runtime-lifecycle.ts):
// its own token and secrets on its stdin, never in its environment; a runtime that dies
// restarted with backoff without touching the others; restart, upgrade (the image the fleet
// started with: a new image takes a new start), hibernate and wake; a stop that lets the
// turn in flight drain (`docker stop`, the task's stop timeout). Each container
// runs under a small shell of the fleet's that stops it when the fleet goes, however the
// fleet dies: a pipe only the fleet holds ends, and the shell runs `docker stop`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { RuntimeImageVariant } from '../shared/config/image-variant.ts';
import { imageVariantFor } from '../shared/config/image-variant.ts';
import type { Logger } from '../shared/log.ts';
import { runtimeEnvironment, type RuntimePipeInputs } from '../shared/runtime-env.ts';
import { CONTAINER_FLEET_SKILLS, CONTAINER_SECRETS_FD, dockerRunArgs, FLEET_LABEL, RUNTIME_STOP_SECONDS } from './container-spec.ts';
import { LOCAL_MAX_RECEIVE_COUNT } from './sqlite-control-plane.ts';
import type { AgentRuntimeSpec, SupervisorEvents } from './runtime-launcher.ts';
import { RuntimeLifecycle, type RunEnded, type RuntimeRun } from './runtime-lifecycle.ts';
import type { RuntimeImage } from './runtime-images.ts';

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

/** One run of an agent's container: the shell that runs its docker client, and the container's name. */
interface ContainerRun extends RuntimeRun {
  readonly container: string;
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

export class ContainerSupervisor extends RuntimeLifecycle<ContainerRun> {
  /** How many containers each agent has run: part of the next one's name. */
  private readonly runs = new Map<string, number>();

  constructor(
    private readonly controlUrl: string,
    private readonly workspaceRoot: string,
    log: Logger,
    events: SupervisorEvents,
    private readonly options: ContainerSupervisorOptions,
  ) {
    super(log, events, 'runtime container');
  }

  /** The name of the agent's running container, if one runs. */
  container(agentId: string): string | undefined {
    return this.run(agentId)?.container;
  }

  protected launch(spec: AgentRuntimeSpec, token: string, ended: RunEnded): ContainerRun | undefined {
    const agent = spec.config.agent;
    const variant = imageVariantFor(agent);
    const image = this.options.images.get(variant);
    const workspace = join(this.workspaceRoot, spec.agentId);
    mkdirSync(workspace, { recursive: true });
    const runs = (this.runs.get(spec.agentId) ?? 0) + 1;
    this.runs.set(spec.agentId, runs);
    const container = `clawfleet-${this.options.scope}-${spec.agentId}-${runs}`;
    const { cpus, memoryMb } = agent.runtime;
    if (!image || cpus === undefined || memoryMb === undefined) {
      // The fleet builds every stage its agents need before it starts any: this is a bug, said as one.
      this.log.error('no runtime image or size for this agent', { agentId: spec.agentId, variant });
      return undefined;
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
      name: container,
      image: image.tag,
      imageCommand: image.command,
      cpus,
      memoryMb,
      envNames: Object.keys(vars),
      workspace,
      fleetSkills: spec.fleetSkills,
      labels: { [FLEET_LABEL]: this.options.scope, 'io.clawfleet.agent': spec.agentId },
    });
    const child = spawn('/bin/sh', ['-c', WATCHDOG, 'clawfleet-container', this.options.docker, container, String(RUNTIME_STOP_SECONDS), ...args], {
      // The docker client's: where the engine is (DOCKER_HOST, its config), and the runtime's
      // variables, which `--env NAME` passes on by name.
      env: { ...clientEnvironment(process.env), ...vars },
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    const lifeline = child.stdio[LIFELINE_FD] as Writable | null;
    lifeline?.on('error', () => {});
    // Only what this agent may know: its own token and secrets. The runtime reads them to
    // their end at start and closes the pipe, so nothing it runs inherits it.
    child.stdin!.on('error', () => {});
    child.stdin!.end(JSON.stringify({ token, secrets: spec.secrets } satisfies RuntimePipeInputs));
    child.once('exit', (code, signal) => {
      lifeline?.destroy();
      ended(code, signal);
    });
    return { child, container, pid: () => child.pid, stop: () => this.dockerStop(spec.agentId, container, child) };
  }

  /** `docker stop`: SIGTERM to the runtime (through tini), SIGKILL after the stop timeout; resolves once its client has exited. */
  private async dockerStop(agentId: string, name: string, child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve) =>
      execFile(
        this.options.docker,
        ['stop', '--time', String(RUNTIME_STOP_SECONDS), name],
        { timeout: RUNTIME_STOP_SECONDS * 1000 + STOP_SLACK_MS },
        (err, _out, stderr) => {
          // A container that had just exited is no longer there to stop: its exit says why.
          if (err && !/No such container/i.test(String(stderr)))
            this.log.warn('docker stop failed', { agentId, container: name, error: String(stderr).trim() || err.message });
          resolve();
        },
      ),
    );
    await exited;
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
