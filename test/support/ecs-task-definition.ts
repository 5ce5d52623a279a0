// An ECS task definition, as the synthesized template or the emulator's DescribeTaskDefinition
// has it, turned into the Docker Engine API's container-create options the way ECS's agent
// would run it on Fargate: environment, user, capabilities, init, health check, stop timeout,
// read-only root, ulimits (with Fargate's own nofile default), the task's cpu and memory as
// the container's limits (no swap), and the workspace's EFS volume as a bind mount of a
// directory standing in for the access point's root. Every field is read through a strict
// schema: a field infra starts to set that is not translated here fails the image tests,
// rather than being silently left out of what they run.
import { z } from 'zod';

/** Where CloudFormation spells a field otherwise than the API does, beyond its capital first letter. */
const CFN_SPELLINGS: Record<string, string> = { FilesystemId: 'fileSystemId' };

/** CloudFormation's PascalCase (and EFSVolumeConfiguration, IAM) to the API's camelCase, at every depth. */
export function camelKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [CFN_SPELLINGS[k] ?? k.replace(/^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/, (m) => m.toLowerCase()), camelKeys(v)]),
  );
}

const KeyValue = z.strictObject({ name: z.string(), value: z.string() });
const Seconds = z.coerce.number().int().nonnegative();

export const ContainerDefinitionSchema = z.strictObject({
  name: z.string(),
  image: z.string(),
  essential: z.boolean().optional(),
  environment: z.array(KeyValue).optional(),
  user: z.string().optional(),
  entryPoint: z.array(z.string()).optional(),
  command: z.array(z.string()).optional(),
  workingDirectory: z.string().optional(),
  readonlyRootFilesystem: z.boolean().optional(),
  stopTimeout: Seconds.optional(),
  privileged: z.literal(false).optional(),
  linuxParameters: z
    .strictObject({
      capabilities: z.strictObject({ add: z.array(z.string()).optional(), drop: z.array(z.string()).optional() }).optional(),
      initProcessEnabled: z.boolean().optional(),
      sharedMemorySize: z.number().int().positive().optional(),
      tmpfs: z.array(z.strictObject({ containerPath: z.string(), size: z.number().int().positive(), mountOptions: z.array(z.string()).optional() })).optional(),
    })
    .optional(),
  healthCheck: z
    .strictObject({
      command: z.array(z.string()).min(1),
      interval: Seconds.optional(),
      timeout: Seconds.optional(),
      retries: z.number().int().optional(),
      startPeriod: Seconds.optional(),
    })
    .optional(),
  ulimits: z.array(z.strictObject({ name: z.string(), softLimit: z.number().int(), hardLimit: z.number().int() })).optional(),
  mountPoints: z.array(z.strictObject({ sourceVolume: z.string(), containerPath: z.string(), readOnly: z.boolean().optional() })).optional(),
  // Where the logs go is ECS's business; the tests read the container's output from the engine.
  logConfiguration: z.strictObject({ logDriver: z.string(), options: z.record(z.string(), z.string()).optional() }).optional(),
});
export type ContainerDefinition = z.infer<typeof ContainerDefinitionSchema>;

const EfsVolume = z.strictObject({
  fileSystemId: z.string(),
  rootDirectory: z.string().optional(),
  transitEncryption: z.string().optional(),
  authorizationConfig: z.strictObject({ accessPointId: z.string().optional(), iam: z.string().optional() }).optional(),
});

export const TaskDefinitionSchema = z.object({
  family: z.string(),
  cpu: z.coerce.number().positive(),
  memory: z.coerce.number().positive(),
  networkMode: z.literal('awsvpc'),
  requiresCompatibilities: z.array(z.string()).optional(),
  runtimePlatform: z.strictObject({ cpuArchitecture: z.string(), operatingSystemFamily: z.string() }).optional(),
  volumes: z.array(z.strictObject({ name: z.string(), efsVolumeConfiguration: EfsVolume })).default([]),
  containerDefinitions: z.array(ContainerDefinitionSchema).min(1),
});
export type TaskDefinition = z.infer<typeof TaskDefinitionSchema>;

/**
 * A task definition in either spelling. Task-level fields that do not change how the container
 * runs (roles, ARNs, status, tags, the emulator's bookkeeping) are dropped here; the rest is
 * strict, the container definitions included.
 */
export function parseTaskDefinition(raw: unknown): TaskDefinition {
  const all = camelKeys(raw) as Record<string, unknown>;
  const ignored = new Set([
    'taskRoleArn',
    'executionRoleArn',
    'taskDefinitionArn',
    'revision',
    'status',
    'compatibilities',
    'registeredAt',
    'registeredBy',
    'requiresAttributes',
    'placementConstraints',
    'tags',
  ]);
  // An empty value is no setting (the emulator reports pidMode and ipcMode as "").
  const kept = Object.fromEntries(Object.entries(all).filter(([k, v]) => !ignored.has(k) && v !== ''));
  const unknown = Object.keys(kept).filter((k) => !(k in TaskDefinitionSchema.shape));
  if (unknown.length > 0)
    throw new Error(`the task definition sets ${unknown.join(', ')}, which the image tests do not translate into the container's options`);
  return TaskDefinitionSchema.parse(kept);
}

/** An EFS access point as DescribeAccessPoints gives it (the fields that decide the mount). */
export interface AccessPoint {
  accessPointId: string;
  posixUser?: { uid: number; gid: number } | undefined;
  rootDirectory?: { path?: string | undefined; creationInfo?: { ownerUid: number; ownerGid: number; permissions: string } | undefined } | undefined;
}

/** Where a workspace volume lands on this machine: a directory standing in for the access point's root, made as EFS would. */
export interface VolumeSource {
  hostPath: string;
  /** The access point this volume mounts through, if any. */
  accessPoint?: AccessPoint | undefined;
}

/** Fargate sets nofile itself (65535 both) unless the task definition says otherwise. */
export const FARGATE_NOFILE = { Name: 'nofile', Soft: 65535, Hard: 65535 };

export interface CreateOptions {
  /** The image to run (the stage built for this agent, where the task definition names a registry image). */
  image: string;
  /** Environment ECS adds (credentials URI, region, …) and the emulator needs, after the definition's own. */
  extraEnv: Record<string, string>;
  /** Each volume name's host directory. */
  volumes: Record<string, string>;
  /** The network namespace the task's containers share (ECS's pause container in awsvpc mode). */
  networkContainer: string;
  labels?: Record<string, string>;
  /**
   * The highest nofile limit this machine lets a container have (its own hard limit: raising
   * it needs a capability the engine may not have, as here, where it is 20000); Fargate's
   * default is lowered to it, and said so by the caller.
   */
  nofileCeiling?: number;
}

/** The Docker Engine API body (POST /containers/create) for one container of the task. */
export function containerCreateBody(task: TaskDefinition, container: ContainerDefinition, options: CreateOptions): Record<string, unknown> {
  const env = new Map<string, string>();
  for (const { name, value } of container.environment ?? []) env.set(name, value);
  for (const [name, value] of Object.entries(options.extraEnv)) env.set(name, value);
  const hc = container.healthCheck;
  const ns = (seconds: number | undefined, fallback: number) => (seconds ?? fallback) * 1e9;
  const ulimits = (container.ulimits ?? []).map((u) => ({ Name: u.name, Soft: u.softLimit, Hard: u.hardLimit }));
  if (!ulimits.some((u) => u.Name === 'nofile')) {
    const ceiling = options.nofileCeiling ?? FARGATE_NOFILE.Hard;
    ulimits.push({ Name: 'nofile', Soft: Math.min(FARGATE_NOFILE.Soft, ceiling), Hard: Math.min(FARGATE_NOFILE.Hard, ceiling) });
  }
  const binds = (container.mountPoints ?? []).map((m) => {
    const host = options.volumes[m.sourceVolume];
    if (!host) throw new Error(`mount point ${m.containerPath} names volume ${m.sourceVolume}, which has no host directory`);
    return `${host}:${m.containerPath}:${m.readOnly ? 'ro' : 'rw'}`;
  });
  const lp = container.linuxParameters;
  const memory = task.memory * 1024 * 1024;
  return {
    Image: options.image,
    Env: [...env].map(([k, v]) => `${k}=${v}`),
    ...(container.user !== undefined ? { User: container.user } : {}),
    ...(container.entryPoint ? { Entrypoint: container.entryPoint } : {}),
    ...(container.command ? { Cmd: container.command } : {}),
    ...(container.workingDirectory ? { WorkingDir: container.workingDirectory } : {}),
    ...(container.stopTimeout !== undefined ? { StopTimeout: container.stopTimeout } : {}),
    ...(hc
      ? {
          // ECS's defaults where the definition leaves one out.
          Healthcheck: {
            Test: hc.command,
            Interval: ns(hc.interval, 30),
            Timeout: ns(hc.timeout, 5),
            StartPeriod: ns(hc.startPeriod, 0),
            Retries: hc.retries ?? 3,
          },
        }
      : {}),
    Labels: options.labels ?? {},
    HostConfig: {
      NetworkMode: `container:${options.networkContainer}`,
      CapAdd: lp?.capabilities?.add ?? [],
      CapDrop: lp?.capabilities?.drop ?? [],
      Init: lp?.initProcessEnabled === true,
      ReadonlyRootfs: container.readonlyRootFilesystem === true,
      // The task's size is the container's limit (one container per task): Fargate has no swap.
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round((task.cpu / 1024) * 1e9),
      Ulimits: ulimits,
      Binds: binds,
      ...(lp?.sharedMemorySize ? { ShmSize: lp.sharedMemorySize * 1024 * 1024 } : {}),
      ...(lp?.tmpfs ? { Tmpfs: Object.fromEntries(lp.tmpfs.map((t) => [t.containerPath, [`size=${t.size}m`, ...(t.mountOptions ?? [])].join(',')])) } : {}),
    },
  };
}
