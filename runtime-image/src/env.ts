// Everything the runtime is given at start, read and checked in one place: its environment
// (set by the container's task definition or the local launcher), which holds no secret,
// and — in local mode — the pipe on which the launcher passes its token and secrets.
import { createReadStream } from 'node:fs';
import { DEFAULT_MAX_SESSIONS } from '../../shared/runtime-limits.ts';
import { join } from 'node:path';
import { z } from 'zod';
import { RuntimeConfigSchema, type RuntimeConfig } from '../../shared/config/resolve.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { ConfigError, formatPath } from '../../shared/errors.ts';
import type { SandboxSettings } from './sandbox/choose-sandbox.ts';

const EnvSchema = z.object({
  CLAWFLEET_AGENT_ID: z.string().min(1),
  /** This agent's slice of the fleet config (see runtimeConfigFor), as JSON. */
  CLAWFLEET_RUNTIME_CONFIG: z.string().min(2),
  // On AWS: this agent's own queues.
  CLAWFLEET_INBOX_URL: z.url().optional(),
  CLAWFLEET_OUTBOX_URL: z.url().optional(),
  CLAWFLEET_DLQ_URL: z.url().optional(),
  /** Defaults to clawfleet/<fleet>/agents/<id>. */
  CLAWFLEET_SECRET_ID: z.string().min(1).optional(),
  // Locally: the control plane's loopback channel, and the file descriptor of the pipe on
  // which the launcher writes this runtime's token and secret values (never the environment:
  // /proc/<pid>/environ is readable by anything running as the same user).
  CLAWFLEET_CONTROL_URL: z.url().optional(),
  CLAWFLEET_SECRETS_FD: z.coerce.number().int().min(3).max(1023).optional(),
  /** Where code the agent chooses runs: auto (bubblewrap, else the tool uid pool), bwrap or uid-pool. */
  CLAWFLEET_SANDBOX: z.enum(['auto', 'bwrap', 'uid-pool']).default('auto'),
  /** bubblewrap's path, when it is not on PATH. */
  CLAWFLEET_BWRAP: z.string().startsWith('/').optional(),
  /** The container's tool uids, as "first-last" (e.g. 20001-20032), and their group. */
  CLAWFLEET_TOOL_UIDS: z
    .string()
    .regex(/^\d+-\d+$/, 'must be a uid range like 20001-20032')
    .transform((r) => r.split('-').map(Number) as [number, number])
    .refine(([first, last]) => first >= 1000 && last >= first && last - first < 1024 && last < 2 ** 31, 'must be a range of at most 1024 uids from 1000 up')
    .optional(),
  CLAWFLEET_TOOL_GID: z.coerce.number().int().min(1000).max(2 ** 31 - 1).optional(),
  /** A JSON list of absolute paths the sandbox must never show (the local state directory, the secrets file). */
  CLAWFLEET_SANDBOX_HIDE: z.string().optional(),
  /**
   * The runtime's own bookkeeping (the MCP process groups a killed runtime left), outside
   * the workspace that the agent's code may write: locally <state>/runtime/<agent>, hidden
   * from the sandbox; in the image /var/lib/clawfleet, root's alone. Defaults to
   * <workspace>/.clawfleet where no launcher says otherwise (tests).
   */
  CLAWFLEET_RUNTIME_STATE: z.string().startsWith('/').optional(),
  /** Set by the local launcher when the agent has no model key: why the offline model is used. */
  CLAWFLEET_OFFLINE_MODEL: z.string().min(1).optional(),
  CLAWFLEET_WORKSPACE: z.string().min(1).default('/workspace'),
  /** The fleet's skills folder (a skills/ beside clawfleet.json, or the image's copy), copied into the workspace at start. */
  CLAWFLEET_FLEET_SKILLS: z.string().startsWith('/').optional(),
  /** How long SIGTERM waits for the turn in flight before releasing its message. */
  CLAWFLEET_DRAIN_SECONDS: z.coerce.number().min(0).max(110).default(25),
  CLAWFLEET_VISIBILITY_SECONDS: z.coerce.number().int().min(3).max(43_200).default(60),
  CLAWFLEET_WAIT_SECONDS: z.coerce.number().int().min(0).max(20).default(20),
  /** The inbound queue's maxReceiveCount (its redrive policy): the last receive tells the asker. */
  CLAWFLEET_MAX_RECEIVE_COUNT: z.coerce.number().int().min(2).max(1000).optional(),
  /** Sessions whose turns may run at once. */
  CLAWFLEET_MAX_SESSIONS: z.coerce.number().int().min(1).max(64).default(DEFAULT_MAX_SESSIONS),
  CLAWFLEET_TURN_TIMEOUT_SECONDS: z.coerce.number().int().min(5).max(3_600).default(600),
  /** How often the runtime tells the control plane it is alive; 0 turns it off. */
  CLAWFLEET_HEARTBEAT_SECONDS: z.coerce.number().int().min(0).max(3_600).default(60),
  /** The model's context window, in tokens; sessions are compacted at 75 % of it unless CLAWFLEET_COMPACT_AT_TOKENS says otherwise. */
  CLAWFLEET_CONTEXT_TOKENS: z.coerce.number().int().min(1_000).default(128_000),
  CLAWFLEET_COMPACT_AT_TOKENS: z.coerce.number().int().min(500).optional(),
  /** Touched while the poll loop runs; the container's health check reads its age. */
  CLAWFLEET_HEALTH_FILE: z.string().min(1).optional(),
  /** First retry delay after a retriable model error (doubles, capped at 10 s). */
  CLAWFLEET_MODEL_RETRY_BASE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
});

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
  /** See CLAWFLEET_RUNTIME_STATE. */
  runtimeState: string;
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
  sandbox: SandboxSettings;
}

/** Secrets never travel in the environment; a launcher that still puts them there is refused, naming the variable only. */
const SECRET_VARIABLES = ['CLAWFLEET_SECRETS', 'CLAWFLEET_RUNTIME_TOKEN'];

/** What the local launcher writes on the pipe, once, as JSON. */
const PipedInputsSchema = z.strictObject({
  token: z.string().min(16),
  secrets: z.record(z.string(), z.string()),
});

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
    stream.once('end', () => stream.once('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    }));
  });

export async function readRuntimeEnv(env: NodeJS.ProcessEnv, readPipe: PipeReader = readPipeToEnd): Promise<RuntimeEnv> {
  const inEnv = SECRET_VARIABLES.filter((name) => env[name] !== undefined);
  if (inEnv.length > 0) {
    throw new ConfigError(
      inEnv.map((path) => ({ path, message: 'must not be set: a runtime takes its token and secrets from the pipe CLAWFLEET_SECRETS_FD names, never from its environment' })),
      'runtime environment',
    );
  }
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message })), 'runtime environment');
  }
  const e = parsed.data;
  let json: unknown;
  try {
    json = JSON.parse(e.CLAWFLEET_RUNTIME_CONFIG);
  } catch {
    throw new ConfigError([{ path: 'CLAWFLEET_RUNTIME_CONFIG', message: 'is not JSON' }], 'runtime environment');
  }
  const config = RuntimeConfigSchema.safeParse(json);
  if (!config.success) {
    throw new ConfigError(config.error.issues.map((i) => ({ path: `CLAWFLEET_RUNTIME_CONFIG.${formatPath(i.path)}`, message: i.message })), 'runtime environment');
  }
  if (config.data.agent.id !== e.CLAWFLEET_AGENT_ID) {
    throw new ConfigError([{ path: 'CLAWFLEET_AGENT_ID', message: `is "${e.CLAWFLEET_AGENT_ID}" but the runtime config is for "${config.data.agent.id}"` }], 'runtime environment');
  }
  return {
    agentId: e.CLAWFLEET_AGENT_ID,
    config: config.data,
    transport: await transportOf(e, readPipe),
    offlineModel: e.CLAWFLEET_OFFLINE_MODEL,
    secretId: e.CLAWFLEET_SECRET_ID ?? agentSecretName(config.data.fleet, e.CLAWFLEET_AGENT_ID),
    workspace: e.CLAWFLEET_WORKSPACE,
    fleetSkills: e.CLAWFLEET_FLEET_SKILLS,
    runtimeState: e.CLAWFLEET_RUNTIME_STATE ?? join(e.CLAWFLEET_WORKSPACE, '.clawfleet'),
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
    sandbox: sandboxSettingsOf(e),
  };
}

function sandboxSettingsOf(e: z.infer<typeof EnvSchema>): SandboxSettings {
  let hide: string[] = [];
  if (e.CLAWFLEET_SANDBOX_HIDE) {
    let json: unknown;
    try {
      json = JSON.parse(e.CLAWFLEET_SANDBOX_HIDE);
    } catch {
      json = undefined;
    }
    const paths = z.array(z.string().startsWith('/')).max(64).safeParse(json);
    if (!paths.success) throw new ConfigError([{ path: 'CLAWFLEET_SANDBOX_HIDE', message: 'must be a JSON list of absolute paths' }], 'runtime environment');
    hide = paths.data;
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

async function transportOf(e: z.infer<typeof EnvSchema>, readPipe: PipeReader): Promise<Transport> {
  const fail = (path: string, message: string) => new ConfigError([{ path, message }], 'runtime environment');
  if (e.CLAWFLEET_CONTROL_URL) {
    const fd = e.CLAWFLEET_SECRETS_FD;
    if (fd === undefined) throw fail('CLAWFLEET_SECRETS_FD', 'is required with CLAWFLEET_CONTROL_URL: the launcher passes the runtime token and secrets on that pipe');
    let text: string;
    try {
      text = await readPipe(fd);
    } catch (err) {
      throw fail('CLAWFLEET_SECRETS_FD', `names pipe ${fd}, which ${(err as Error).message}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw fail('CLAWFLEET_SECRETS_FD', `names pipe ${fd}, which did not carry JSON (${text.length} bytes; empty means the launcher wrote nothing)`);
    }
    const inputs = PipedInputsSchema.safeParse(json);
    if (!inputs.success) {
      // Paths and messages only: an issue's input could be a secret value.
      const pathOf = (p: PropertyKey[]) => (p.length ? `CLAWFLEET_SECRETS_FD.${formatPath(p)}` : 'CLAWFLEET_SECRETS_FD');
      throw new ConfigError(inputs.error.issues.map((i) => ({ path: pathOf(i.path), message: i.code === 'invalid_type' ? `must be ${i.expected}` : i.message })), 'runtime environment');
    }
    return { kind: 'local', controlUrl: e.CLAWFLEET_CONTROL_URL, token: inputs.data.token, secrets: inputs.data.secrets };
  }
  const missing = (['CLAWFLEET_INBOX_URL', 'CLAWFLEET_OUTBOX_URL', 'CLAWFLEET_DLQ_URL'] as const).filter((k) => !e[k]);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((path) => ({ path, message: 'is required (or set CLAWFLEET_CONTROL_URL for local mode)' })), 'runtime environment');
  }
  return { kind: 'aws', inboxUrl: e.CLAWFLEET_INBOX_URL!, outboxUrl: e.CLAWFLEET_OUTBOX_URL!, dlqUrl: e.CLAWFLEET_DLQ_URL! };
}
