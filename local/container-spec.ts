// How local mode runs one agent's runtime as a container (`clawfleet start --containers`): the
// `docker run` arguments, made as the agent's Fargate task definition says where that makes
// sense on one machine — root in its own container only to drop to the tool uid pool, the
// capabilities the task drops, the task's cpus and memory as limits (no swap), its stop
// timeout — with its workspace bound in. Pure: the launcher (container-supervisor.ts) runs it.
// test/infra/container-spec.test.ts holds it to the synthesized task definition's translation.

/** Docker's default capabilities the runtime does not need: the task definition drops the same (infra/constructs/agent-runtime.ts). */
export const RUNTIME_DROPPED_CAPABILITIES = ['NET_RAW', 'MKNOD', 'SYS_CHROOT', 'AUDIT_WRITE', 'SETFCAP', 'NET_BIND_SERVICE', 'FSETID'] as const;
/** The task definition's stopTimeout: the runtime's 25 s drain, and a little more before SIGKILL. */
export const RUNTIME_STOP_SECONDS = 30;
/** The runtime's user in its container: root, only to run each tool call as a uid of the pool (runtime-image/Dockerfile). */
export const RUNTIME_CONTAINER_USER = '0';
/** Where the agent's workspace is inside the container (the image's CLAWFLEET_WORKSPACE). */
export const CONTAINER_WORKSPACE = '/workspace';
/** Where the fleet's skills folder is bound, read-only, when there is one. */
export const CONTAINER_FLEET_SKILLS = '/opt/clawfleet-skills';
/** The runtime's file descriptor for its token and secrets inside the container (CLAWFLEET_SECRETS_FD). */
export const CONTAINER_SECRETS_FD = 3;
/** The label every runtime container of a fleet carries: its state directory's key, so a later start can remove what a killed fleet left. */
export const FLEET_LABEL = 'io.clawfleet.state';

export interface RuntimeContainer {
  /** Unique on the engine. */
  name: string;
  image: string;
  /** The image's own command (its CMD), run with the secrets pipe moved to CONTAINER_SECRETS_FD. */
  imageCommand: readonly string[];
  cpus: number;
  memoryMb: number;
  /** Variable names passed through from the docker client's environment (values stay off the command line). */
  envNames: readonly string[];
  /** The agent's workspace on this machine. */
  workspace: string;
  /** The fleet's skills folder on this machine, if any. */
  fleetSkills?: string | undefined;
  labels: Record<string, string>;
}

/**
 * The runtime reads its token and secrets from a pipe it is handed at CONTAINER_SECRETS_FD; a
 * container is handed stdin alone (`docker run -i`), which the fleet writes them to and then
 * closes. So the command runs with stdin moved to that descriptor and /dev/null as stdin.
 */
export function secretsPipeCommand(imageCommand: readonly string[]): string[] {
  if (imageCommand.length === 0) throw new Error('the runtime image has no command (CMD) to run');
  return ['/bin/sh', '-c', `exec "$@" ${CONTAINER_SECRETS_FD}<&0 </dev/null`, 'clawfleet-runtime', ...imageCommand];
}

/** `docker run …` for one runtime container, after `run` (the image's entry point, tini, stays). */
export function dockerRunArgs(c: RuntimeContainer): string[] {
  const memory = `${c.memoryMb}m`;
  return [
    '--rm',
    // stdin: the token and secrets, then its end.
    '--interactive',
    '--name',
    c.name,
    ...Object.entries(c.labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    '--user',
    RUNTIME_CONTAINER_USER,
    ...RUNTIME_DROPPED_CAPABILITIES.flatMap((cap) => ['--cap-drop', cap]),
    '--security-opt',
    'no-new-privileges',
    '--cpus',
    String(c.cpus),
    // Fargate has no swap: the task's memory is all it gets.
    '--memory',
    memory,
    '--memory-swap',
    memory,
    '--stop-timeout',
    String(RUNTIME_STOP_SECONDS),
    // The host's network: the control plane listens on 127.0.0.1 only, and its Host and Origin
    // checks hold unchanged (a process runtime reaches the same loopback).
    '--network',
    'host',
    '--volume',
    `${c.workspace}:${CONTAINER_WORKSPACE}:rw`,
    ...(c.fleetSkills ? ['--volume', `${c.fleetSkills}:${CONTAINER_FLEET_SKILLS}:ro`] : []),
    ...c.envNames.flatMap((name) => ['--env', name]),
    c.image,
    ...secretsPipeCommand(c.imageCommand),
  ];
}
