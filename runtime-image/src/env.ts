// Everything the runtime is given at start, read and checked in one place: its environment
// (set by the container's task definition or the local launcher, after the contract in
// shared/runtime-env.ts), which holds no secret, and — in local mode — the pipe on which
// the launcher passes its token and secrets.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { RuntimeConfigSchema, type RuntimeConfig } from '../../shared/config/resolve.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { ConfigError, formatPath } from '../../shared/errors.ts';
import { parseJsonAs } from '../../shared/json.ts';
import { FORBIDDEN_RUNTIME_ENV, RuntimeEnvSchema, RuntimePipeSchema } from '../../shared/runtime-env.ts';
import type { SandboxSettings } from '../../shared/adapters/sandbox/choose-sandbox.ts';

export type Transport =
  | { kind: 'aws'; inboxUrl: string; outboxUrl: string; dlqUrl: string }
  | { kind: 'local'; controlUrl: string; token: string; secrets: Record<string, string> };

export interface RuntimeEnv {
  agentId: string;
  config: RuntimeConfig;
  transport: Transport;
  secretId: string;
  offlineModel: string | undefined;
  workspace: string;
  /** See CLAWFLEET_FLEET_SKILLS. */
  fleetSkills: string | undefined;
  /** See CLAWFLEET_FLEET_SKILLS_OBJECT. */
  fleetSkillsObject: { bucket: string; key: string } | undefined;
  /** See CLAWFLEET_RUNTIME_STATE. */
  runtimeState: string;
  /** See CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: test-only, file tools without their path checks. */
  uncheckedPathsForTests: boolean;
  drainMs: number;
  visibilitySeconds: number;
  waitSeconds: number;
  maxReceiveCount: number | undefined;
  maxSessions: number;
  turnTimeoutMs: number;
  heartbeatMs: number;
  contextTokens: number;
  compactAtTokens: number;
  modelRetryBaseMs: number;
  healthFile: string | undefined;
  /** See CLAWFLEET_LIFELINE. */
  lifeline: 'stdin' | undefined;
  sandbox: SandboxSettings;
  /** AWS: the fleet's media bucket (#16); absent, the runtime has no media store there. */
  mediaBucket: string | undefined;
  /** AWS (#31): the spend table where a metered agent keeps its own ledger; absent for an agent without a budget, and locally. */
  spendTable: string | undefined;
  /** runtime.kind "openclaw": the install the managed gateway runs on, when the launcher named one. */
  openclaw: { node: string | undefined; cli: string | undefined; readyMs: number; runAs: { uid: number; gid: number } | undefined };
}

/** Reads a pipe to its end (a launcher closes its end after writing) and closes it, so no child of the runtime inherits it. */
export type PipeReader = (fd: number) => Promise<string>;

const MAX_PIPED_BYTES = 1024 * 1024;
const PIPE_TIMEOUT_MS = 10_000;

export const readPipeToEnd: PipeReader = (fd) =>
  new Promise((resolve, reject) => {
    const stream = createReadStream('', { fd, autoClose: true });
    const chunks: Buffer[] = [];
    let size = 0;
    const fail = (why: string) => {
      clearTimeout(timer);
      stream.destroy();
      reject(new Error(why));
    };
    const timer = setTimeout(() => fail(`did not reach its end within ${PIPE_TIMEOUT_MS / 1000} s`), PIPE_TIMEOUT_MS);
    stream.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_PIPED_BYTES) return fail(`holds more than ${MAX_PIPED_BYTES} bytes`);
      chunks.push(chunk as Buffer);
    });
    stream.once('error', (err: NodeJS.ErrnoException) => fail(`cannot be read (${err.code ?? err.message})`));
    // Resolved once the descriptor is closed, not at 'end' (autoClose closes it a tick
    // later): nothing the runtime starts after this may inherit or reuse an open pipe.
    stream.once('end', () =>
      stream.once('close', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString('utf8'));
      }),
    );
  });

export async function readRuntimeEnv(env: NodeJS.ProcessEnv, readPipe: PipeReader = readPipeToEnd): Promise<RuntimeEnv> {
  const inEnv = FORBIDDEN_RUNTIME_ENV.filter((name) => env[name] !== undefined);
  if (inEnv.length > 0) {
    throw new ConfigError(
      inEnv.map((path) => ({
        path,
        message: 'must not be set: a runtime takes its token and secrets from the pipe CLAWFLEET_SECRETS_FD names, never from its environment',
      })),
      'runtime environment',
    );
  }
  const parsed = RuntimeEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })),
      'runtime environment',
    );
  }
  const e = parsed.data;
  const config = parseJsonAs(RuntimeConfigSchema, e.CLAWFLEET_RUNTIME_CONFIG);
  if (!config.ok) {
    throw new ConfigError(
      config.notJson
        ? [{ path: 'CLAWFLEET_RUNTIME_CONFIG', message: 'is not JSON' }]
        : config.issues.map((i) => ({ path: `CLAWFLEET_RUNTIME_CONFIG.${formatPath(i.path)}`, message: i.message })),
      'runtime environment',
    );
  }
  if (config.value.agent.id !== e.CLAWFLEET_AGENT_ID) {
    throw new ConfigError(
      [{ path: 'CLAWFLEET_AGENT_ID', message: `is "${e.CLAWFLEET_AGENT_ID}" but the runtime config is for "${config.value.agent.id}"` }],
      'runtime environment',
    );
  }
  return {
    agentId: e.CLAWFLEET_AGENT_ID,
    config: config.value,
    transport: await transportOf(e, readPipe),
    offlineModel: e.CLAWFLEET_OFFLINE_MODEL,
    secretId: e.CLAWFLEET_SECRET_ID ?? agentSecretName(config.value.fleet, e.CLAWFLEET_AGENT_ID),
    workspace: e.CLAWFLEET_WORKSPACE,
    fleetSkills: e.CLAWFLEET_FLEET_SKILLS,
    fleetSkillsObject: s3ObjectOf(e.CLAWFLEET_FLEET_SKILLS_OBJECT),
    runtimeState: runtimeStateDirOf(e),
    uncheckedPathsForTests: e.CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS === '1',
    drainMs: e.CLAWFLEET_DRAIN_SECONDS * 1000,
    visibilitySeconds: e.CLAWFLEET_VISIBILITY_SECONDS,
    waitSeconds: e.CLAWFLEET_WAIT_SECONDS,
    maxReceiveCount: e.CLAWFLEET_MAX_RECEIVE_COUNT,
    maxSessions: e.CLAWFLEET_MAX_SESSIONS,
    turnTimeoutMs: e.CLAWFLEET_TURN_TIMEOUT_SECONDS * 1000,
    heartbeatMs: e.CLAWFLEET_HEARTBEAT_SECONDS * 1000,
    contextTokens: e.CLAWFLEET_CONTEXT_TOKENS,
    compactAtTokens: e.CLAWFLEET_COMPACT_AT_TOKENS ?? Math.floor(e.CLAWFLEET_CONTEXT_TOKENS * 0.75),
    modelRetryBaseMs: e.CLAWFLEET_MODEL_RETRY_BASE_MS,
    healthFile: e.CLAWFLEET_HEALTH_FILE,
    lifeline: e.CLAWFLEET_LIFELINE,
    sandbox: sandboxSettingsOf(e),
    mediaBucket: e.CLAWFLEET_MEDIA_BUCKET,
    spendTable: e.CLAWFLEET_SPEND_TABLE,
    openclaw: { node: e.CLAWFLEET_OPENCLAW_NODE, cli: e.CLAWFLEET_OPENCLAW_CLI, readyMs: e.CLAWFLEET_OPENCLAW_READY_SECONDS * 1000, runAs: openclawUserOf(e) },
  };
}

/** CLAWFLEET_RUNTIME_STATE, or <workspace>/.clawfleet where no launcher names one (tests); read before the rest of the environment too (main.ts). */
export function runtimeStateDirOf(env: { CLAWFLEET_RUNTIME_STATE?: string | undefined; CLAWFLEET_WORKSPACE?: string | undefined }): string {
  return env.CLAWFLEET_RUNTIME_STATE ?? join(env.CLAWFLEET_WORKSPACE ?? RuntimeEnvSchema.shape.CLAWFLEET_WORKSPACE.parse(undefined), '.clawfleet');
}

/** s3://<bucket>/<key>, as the schema checked it. */
function s3ObjectOf(url: string | undefined): { bucket: string; key: string } | undefined {
  if (!url) return undefined;
  const [bucket, ...key] = url.slice('s3://'.length).split('/');
  return { bucket: bucket!, key: key.join('/') };
}

function openclawUserOf(e: z.infer<typeof RuntimeEnvSchema>): { uid: number; gid: number } | undefined {
  const uid = e.CLAWFLEET_OPENCLAW_UID;
  const gid = e.CLAWFLEET_OPENCLAW_GID;
  if (uid === undefined && gid === undefined) return undefined;
  if (uid === undefined || gid === undefined) {
    throw new ConfigError(
      [
        {
          path: uid === undefined ? 'CLAWFLEET_OPENCLAW_UID' : 'CLAWFLEET_OPENCLAW_GID',
          message: 'is needed with the other: the gateway runs as both or as neither',
        },
      ],
      'runtime environment',
    );
  }
  return { uid, gid };
}

function sandboxSettingsOf(e: z.infer<typeof RuntimeEnvSchema>): SandboxSettings {
  let hide: string[] = [];
  if (e.CLAWFLEET_SANDBOX_HIDE) {
    const paths = parseJsonAs(z.array(z.string().startsWith('/')).max(64), e.CLAWFLEET_SANDBOX_HIDE);
    if (!paths.ok) throw new ConfigError([{ path: 'CLAWFLEET_SANDBOX_HIDE', message: 'must be a JSON list of absolute paths' }], 'runtime environment');
    hide = paths.value;
  }
  const [first, last] = e.CLAWFLEET_TOOL_UIDS ?? [0, -1];
  return {
    mode: e.CLAWFLEET_SANDBOX,
    bwrap: e.CLAWFLEET_BWRAP,
    toolUids: Array.from({ length: last - first + 1 }, (_, i) => first + i),
    toolGid: e.CLAWFLEET_TOOL_GID,
    hide,
  };
}

async function transportOf(e: z.infer<typeof RuntimeEnvSchema>, readPipe: PipeReader): Promise<Transport> {
  const fail = (path: string, message: string) => new ConfigError([{ path, message }], 'runtime environment');
  if (e.CLAWFLEET_CONTROL_URL) {
    const fd = e.CLAWFLEET_SECRETS_FD;
    if (fd === undefined)
      throw fail('CLAWFLEET_SECRETS_FD', 'is required with CLAWFLEET_CONTROL_URL: the launcher passes the runtime token and secrets on that pipe');
    let text: string;
    try {
      text = await readPipe(fd);
    } catch (err) {
      throw fail('CLAWFLEET_SECRETS_FD', `names pipe ${fd}, which ${(err as Error).message}`);
    }
    const inputs = parseJsonAs(RuntimePipeSchema, text);
    if (!inputs.ok) {
      if (inputs.notJson)
        throw fail('CLAWFLEET_SECRETS_FD', `names pipe ${fd}, which did not carry JSON (${text.length} bytes; empty means the launcher wrote nothing)`);
      // Paths and messages only: an issue's input could be a secret value.
      const pathOf = (p: PropertyKey[]) => (p.length ? `CLAWFLEET_SECRETS_FD.${formatPath(p)}` : 'CLAWFLEET_SECRETS_FD');
      throw new ConfigError(
        inputs.issues.map((i) => ({ path: pathOf(i.path), message: i.code === 'invalid_type' ? `must be ${i.expected}` : i.message })),
        'runtime environment',
      );
    }
    return { kind: 'local', controlUrl: e.CLAWFLEET_CONTROL_URL, token: inputs.value.token, secrets: inputs.value.secrets };
  }
  const missing = (['CLAWFLEET_INBOX_URL', 'CLAWFLEET_OUTBOX_URL', 'CLAWFLEET_DLQ_URL'] as const).filter((k) => !e[k]);
  if (missing.length > 0) {
    throw new ConfigError(
      missing.map((path) => ({ path, message: 'is required (or set CLAWFLEET_CONTROL_URL for local mode)' })),
      'runtime environment',
    );
  }
  return { kind: 'aws', inboxUrl: e.CLAWFLEET_INBOX_URL!, outboxUrl: e.CLAWFLEET_OUTBOX_URL!, dlqUrl: e.CLAWFLEET_DLQ_URL! };
}
