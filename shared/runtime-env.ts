// The runtime's environment contract: every CLAWFLEET_* variable a launcher sets (the task
// definition, infra/constructs/agent-runtime.ts; the local supervisor; the image's ENV) and
// the runtime reads (runtime-image/src/env.ts), with what each means, in one schema. The
// environment holds no secret: a local runtime's token and secrets come on a pipe.
import { z } from 'zod';
import type { RuntimeConfig } from './config/resolve.ts';
import { DEFAULT_MAX_SESSIONS } from './runtime-limits.ts';
import { SecretObjectSchema } from './secrets/secret-values.ts';

export const RuntimeEnvSchema = z.object({
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
  /**
   * Locally: "stdin" says the runtime's stdin is a pipe from the fleet. A line naming a signal
   * (SIGTERM, SIGINT) stops the runtime as that signal does — the runtime's box (bubblewrap)
   * passes no signal on — and the pipe's end (the fleet is gone, however it died) stops it at
   * once, as there is nothing left to drain to.
   */
  CLAWFLEET_LIFELINE: z.enum(['stdin']).optional(),
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
  CLAWFLEET_TOOL_GID: z.coerce
    .number()
    .int()
    .min(1000)
    .max(2 ** 31 - 1)
    .optional(),
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
  /**
   * Test-only: "1" makes the runtime's file tools resolve paths the naive way (joined, links
   * followed, no check), to test what the local box holds alone. Set only by the test harness
   * (test/support/local-fleet.ts → LocalFleetOptions.uncheckedPathsForTests); no config key,
   * CLI flag or agent can set it, and the runtime warns loudly when it is on.
   */
  CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS: z.literal('1').optional(),
  /** The fleet's skills folder (a skills/ beside clawfleet.json), copied into the workspace at start. */
  CLAWFLEET_FLEET_SKILLS: z.string().startsWith('/').optional(),
  /**
   * AWS (#19): the bundle of the fleet's skills this agent's allow list admits, as
   * s3://<bucket>/<key> (a CDK file asset; infra/fleet-skills-plan.ts), which its task role alone
   * may read; unpacked at start and copied into the workspace as CLAWFLEET_FLEET_SKILLS is.
   */
  CLAWFLEET_FLEET_SKILLS_OBJECT: z
    .string()
    .regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\/[A-Za-z0-9!_.*'()/-]{1,1024}$/, 'must be s3://<bucket>/<key>')
    .optional(),
  /**
   * AWS (#31): the fleet's spend table, where a metered agent (one with a budget) holds each
   * model call's ceiling before the call and settles it after, in its own `<agent>#<month>`
   * items (its task role may touch no others). Absent: the agent has no budget.
   */
  CLAWFLEET_SPEND_TABLE: z.string().min(3).max(255).optional(),
  /** AWS (#16): the fleet's media bucket, where this agent reads its attachments (<fleet>/agents/<id>/in/) and writes the files it sends (…/out/). */
  CLAWFLEET_MEDIA_BUCKET: z.string().min(3).max(63).optional(),
  /** How long SIGTERM waits for the turn in flight before releasing its message. */
  CLAWFLEET_DRAIN_SECONDS: z.coerce.number().min(0).max(110).default(25),
  CLAWFLEET_VISIBILITY_SECONDS: z.coerce.number().int().min(3).max(43_200).default(60),
  CLAWFLEET_WAIT_SECONDS: z.coerce.number().int().min(0).max(20).default(20),
  /** The inbound queue's maxReceiveCount (its redrive policy): the last receive tells the asker, whatever the attempt count. */
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
  /** runtime.kind "openclaw": the Node 24 binary and OpenClaw's CLI entry (openclaw.mjs) the managed gateway runs on. */
  CLAWFLEET_OPENCLAW_NODE: z.string().startsWith('/').optional(),
  CLAWFLEET_OPENCLAW_CLI: z.string().startsWith('/').optional(),
  /**
   * runtime.kind "openclaw": the user and group the managed gateway runs as (the image's
   * clawfleet-openclaw), so nothing it runs can read the runtime's environment or memory
   * (the task role's credentials URI); both or neither. Unset: the runtime's own user.
   */
  CLAWFLEET_OPENCLAW_UID: z.coerce
    .number()
    .int()
    .min(1000)
    .max(2 ** 31 - 1)
    .optional(),
  CLAWFLEET_OPENCLAW_GID: z.coerce
    .number()
    .int()
    .min(1000)
    .max(2 ** 31 - 1)
    .optional(),
  /** How long a managed OpenClaw gateway may take to say it is ready. */
  CLAWFLEET_OPENCLAW_READY_SECONDS: z.coerce.number().int().min(5).max(600).default(180),
  /** First retry delay after a retriable model error (doubles, capped at 10 s). */
  CLAWFLEET_MODEL_RETRY_BASE_MS: z.coerce.number().int().min(0).max(60_000).default(1_000),
});

export type RuntimeEnvName = keyof typeof RuntimeEnvSchema.shape;
/** The variables as a launcher writes them: names from the contract only, values as text. */
export type RuntimeEnvVars = { [K in RuntimeEnvName]?: string };

/** Every name of the contract, for checks that a launcher (the image's ENV, a task definition) sets nothing else. */
export const RUNTIME_ENV_NAMES = Object.keys(RuntimeEnvSchema.shape) as RuntimeEnvName[];

/** Secrets never travel in the environment: a launcher that still puts them there is refused, naming the variable only. */
export const FORBIDDEN_RUNTIME_ENV = ['CLAWFLEET_SECRETS', 'CLAWFLEET_RUNTIME_TOKEN'] as const;

/**
 * What a local launcher writes, once, as JSON on the pipe CLAWFLEET_SECRETS_FD names: the
 * runtime's token for the control plane's channel and its own secret values.
 */
export const RuntimePipeSchema = z.strictObject({
  token: z.string().min(16),
  secrets: SecretObjectSchema,
});
export type RuntimePipeInputs = z.infer<typeof RuntimePipeSchema>;

/** How the runtime reaches the control plane: its own SQS queues on AWS, the loopback channel locally. */
export type RuntimeTransportEnv =
  | { kind: 'aws'; inboxUrl: string; outboxUrl: string; dlqUrl: string; secretId: string }
  | { kind: 'local'; controlUrl: string; secretsFd: number };

/** The variables transport and identity need, so neither launcher can leave one out. */
type LaunchNames =
  | 'CLAWFLEET_AGENT_ID'
  | 'CLAWFLEET_RUNTIME_CONFIG'
  | 'CLAWFLEET_INBOX_URL'
  | 'CLAWFLEET_OUTBOX_URL'
  | 'CLAWFLEET_DLQ_URL'
  | 'CLAWFLEET_SECRET_ID'
  | 'CLAWFLEET_CONTROL_URL'
  | 'CLAWFLEET_SECRETS_FD';

/**
 * A runtime's environment: who it is, its config slice and its transport, plus any other
 * settings of the contract (by name; absent ones keep the runtime's defaults).
 */
export function runtimeEnvironment(
  agentId: string,
  config: RuntimeConfig,
  transport: RuntimeTransportEnv,
  settings: Omit<RuntimeEnvVars, LaunchNames> = {},
): Record<string, string> & RuntimeEnvVars {
  const vars: RuntimeEnvVars = {
    CLAWFLEET_AGENT_ID: agentId,
    CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(config),
    ...(transport.kind === 'aws'
      ? {
          CLAWFLEET_INBOX_URL: transport.inboxUrl,
          CLAWFLEET_OUTBOX_URL: transport.outboxUrl,
          CLAWFLEET_DLQ_URL: transport.dlqUrl,
          CLAWFLEET_SECRET_ID: transport.secretId,
        }
      : { CLAWFLEET_CONTROL_URL: transport.controlUrl, CLAWFLEET_SECRETS_FD: String(transport.secretsFd) }),
    ...settings,
  };
  // Absent settings are left out, never written as "undefined".
  return Object.fromEntries(Object.entries(vars).filter((e): e is [string, string] => e[1] !== undefined));
}
