// Everything the runtime reads from its environment, read and checked in one place.
// The container's task definition (or the local launcher) sets these.
import { DEFAULT_MAX_SESSIONS } from '../../shared/runtime-limits.ts';
import { z } from 'zod';
import { RuntimeConfigSchema, type RuntimeConfig } from '../../shared/config/resolve.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { ConfigError, formatPath } from '../../shared/errors.ts';

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
  // Locally: the control plane's loopback channel, and this agent's secret values.
  CLAWFLEET_CONTROL_URL: z.url().optional(),
  CLAWFLEET_RUNTIME_TOKEN: z.string().min(16).optional(),
  CLAWFLEET_SECRETS: z.string().optional(),
  /** Set by the local launcher when the agent has no model key: why the offline model is used. */
  CLAWFLEET_OFFLINE_MODEL: z.string().min(1).optional(),
  CLAWFLEET_WORKSPACE: z.string().min(1).default('/workspace'),
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
}

export function readRuntimeEnv(env: NodeJS.ProcessEnv): RuntimeEnv {
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
    transport: transportOf(e),
    offlineModel: e.CLAWFLEET_OFFLINE_MODEL,
    secretId: e.CLAWFLEET_SECRET_ID ?? agentSecretName(config.data.fleet, e.CLAWFLEET_AGENT_ID),
    workspace: e.CLAWFLEET_WORKSPACE,
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
  };
}

function transportOf(e: z.infer<typeof EnvSchema>): Transport {
  const fail = (path: string, message: string) => new ConfigError([{ path, message }], 'runtime environment');
  if (e.CLAWFLEET_CONTROL_URL) {
    if (!e.CLAWFLEET_RUNTIME_TOKEN) throw fail('CLAWFLEET_RUNTIME_TOKEN', 'is required with CLAWFLEET_CONTROL_URL');
    let secrets: Record<string, string> = {};
    if (e.CLAWFLEET_SECRETS) {
      try {
        secrets = z.record(z.string(), z.string()).parse(JSON.parse(e.CLAWFLEET_SECRETS));
      } catch {
        throw fail('CLAWFLEET_SECRETS', 'must be a JSON object of named string values');
      }
    }
    return { kind: 'local', controlUrl: e.CLAWFLEET_CONTROL_URL, token: e.CLAWFLEET_RUNTIME_TOKEN, secrets };
  }
  const missing = (['CLAWFLEET_INBOX_URL', 'CLAWFLEET_OUTBOX_URL', 'CLAWFLEET_DLQ_URL'] as const).filter((k) => !e[k]);
  if (missing.length > 0) {
    throw new ConfigError(missing.map((path) => ({ path, message: 'is required (or set CLAWFLEET_CONTROL_URL for local mode)' })), 'runtime environment');
  }
  return { kind: 'aws', inboxUrl: e.CLAWFLEET_INBOX_URL!, outboxUrl: e.CLAWFLEET_OUTBOX_URL!, dlqUrl: e.CLAWFLEET_DLQ_URL! };
}
