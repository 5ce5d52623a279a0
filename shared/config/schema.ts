// The clawfleet.json schema: one fleet, its agents, models, channels and bindings.
// Close to OpenClaw's openclaw.json so its users can move; every object is strict,
// so an unknown or misspelt key is an error rather than a silently ignored setting.
import { z } from 'zod';
import { fleetNameProblem } from './names.ts';

const id = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,23}$/, 'must be 1–24 chars of a-z, 0-9 and "-", starting with a letter');

/** A secret is referred to by name; its value lives in Secrets Manager or the local secrets file. */
const secretName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be a secret name like GRAPH_TOKEN (letters, digits, "_")');

/** "30s", "15m", "2h", "1d". */
export const durationPattern = /^(\d+)(s|m|h|d)$/;
const duration = z.string().regex(durationPattern, 'must be a duration like "30m", "2h" or "1d"');

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time like "08:00"');

export const RuntimeProfileSchema = z.strictObject({
  /** Fargate vCPU: 0.25, 0.5, 1, 2, 4, 8 or 16. */
  cpus: z.union([0.25, 0.5, 1, 2, 4, 8, 16].map((n) => z.literal(n)) as [z.ZodLiteral<number>, ...z.ZodLiteral<number>[]]),
  memoryMb: z.number().int().min(512).max(122_880),
  /** A container image to run instead of the built runtime-image/. */
  image: z.string().min(1).optional(),
  /** Never hibernate this agent. */
  alwaysOn: z.boolean().optional(),
  idleTimeoutMinutes: z.number().int().min(1).max(10_080).optional(),
  /** Run on Fargate Spot (cheaper; may be interrupted — the queue keeps the work). */
  spot: z.boolean().optional(),
  /** The CPU the task runs on: arm64 (Graviton, the default) or x86_64 (the default with spot). */
  architecture: z.enum(['arm64', 'x86_64']).optional(),
});

const ModelRefSchema = z.string().regex(/^[a-z0-9][a-z0-9-]*\/.+$/, 'must be a model ref like "anthropic/claude-sonnet-4-5"');

export const ModelSelectionSchema = z.union([
  ModelRefSchema,
  z.strictObject({ primary: ModelRefSchema, fallbacks: z.array(ModelRefSchema).optional() }),
]);

/** A host as it appears in a URL: a name (letters, digits, "-", "_", dots), an IPv4 address or a bracketed IPv6 one; no scheme, port, path or wildcard. */
const hostName = z
  .string()
  .max(253)
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?)$/, 'must be a host name like "wiki.corp.example" (no scheme, port, path or wildcard)');

/** A program exec may run under `security: "allowlist"`: a name found on the sandbox's PATH, or an absolute path. */
const allowedProgram = z
  .string()
  .regex(/^(?:[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}|(?:\/[A-Za-z0-9_.+-]+)+)$/, 'must be a program name like "git" or an absolute path like "/usr/bin/git"')
  .refine((p) => !p.split('/').some((part) => part === '.' || part === '..'), 'must not contain "." or ".." path segments');

/** `tools.exec`: whether and how the agent may run commands (OpenClaw's tools.exec, plus the sandbox). */
export const ExecPolicySchema = z.strictObject({
  /** "required" (default): exec runs only inside a sandbox and is off where none is available; "off": unsandboxed, with a warning. */
  sandbox: z.enum(['required', 'off']).optional(),
  /** "full" (default): any shell command; "allowlist": only the programs in `allowlist`, no shell; "deny": no exec tool. */
  security: z.enum(['deny', 'allowlist', 'full']).optional(),
  allowlist: z.array(allowedProgram).optional(),
  /** Whether sandboxed commands may use the network (default true). */
  network: z.boolean().optional(),
  /**
   * Environment variable → secret name: values of this agent's own secret that every exec
   * command gets (what a skill's scripts need, its requires.env). Off by default: a command
   * sees no secret unless named here.
   */
  env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an environment variable name like TODOIST_API_KEY'), secretName).optional(),
});

/** web_search's providers, and the value of an agent's secret each one's key is read from unless tools.web.search.apiKeySecret names another. */
export const SEARCH_KEYS = { brave: 'BRAVE_API_KEY', perplexity: 'PERPLEXITY_API_KEY' } as const;

/** The secret value web_search's key is read from. */
export function searchKeyName(search: { provider?: keyof typeof SEARCH_KEYS | undefined; apiKeySecret?: string | undefined }): string {
  return search.apiKeySecret ?? SEARCH_KEYS[search.provider ?? 'brave'];
}

/** `tools.browser`: headless Chromium for this agent (off unless enabled). */
export const BrowserPolicySchema = z.strictObject({
  enabled: z.boolean(),
  /** Chromium's binary (default /usr/bin/chromium: the runtime image's browser variant has it there). */
  executablePath: z.string().startsWith('/', 'must be an absolute path').optional(),
  /** Minutes without a browser action after which Chromium is stopped (default 5). */
  idleMinutes: z.number().int().min(1).max(120).optional(),
});

const ToolPolicySchema = z.strictObject({
  allow: z.array(z.string().min(1)).optional(),
  deny: z.array(z.string().min(1)).optional(),
  exec: ExecPolicySchema.optional(),
  web: z
    .strictObject({
      fetch: z
        .strictObject({
          /**
           * Intranet hosts web_fetch may reach although they resolve to loopback or private
           * addresses (RFC 1918, CGNAT, IPv6 unique local). Exact names; metadata, link-local
           * and other special addresses stay refused whatever is listed.
           */
          allowPrivateHosts: z.array(hostName).max(100).optional(),
        })
        .optional(),
      search: z
        .strictObject({
          /** Who answers web_search: the Brave Search API (the default) or the Perplexity Search API. */
          provider: z.enum(['brave', 'perplexity']).optional(),
          /** The value in this agent's own secret that holds the provider's API key (default BRAVE_API_KEY, or PERPLEXITY_API_KEY). */
          apiKeySecret: secretName.optional(),
          /** Results per query when the model does not say (1–20, default 5). */
          maxResults: z.number().int().min(1).max(20).optional(),
          /** How long an answer is reused for the same query (default 5 minutes; 0 turns the cache off). */
          cacheTtlMinutes: z.number().int().min(0).max(60).optional(),
        })
        .optional(),
    })
    .optional(),
  browser: BrowserPolicySchema.optional(),
});

const McpServerSchema = z.union([
  z.strictObject({
    command: z.string().min(1),
    args: z.array(z.string()).optional(),
    /** Environment variable → secret name; values come from this agent's secrets only. */
    env: z.record(z.string(), secretName).optional(),
    /** Run the server in the sandbox exec uses (its own namespaces or tool uid, the workspace writable, the system read-only). */
    sandbox: z.boolean().optional(),
  }),
  z.strictObject({
    url: z.url(),
    /** Header → secret name. */
    headers: z.record(z.string(), secretName).optional(),
    /** Only `false` is valid: a url server runs elsewhere, so there is nothing to sandbox (checked with the config's other cross-checks). */
    sandbox: z.boolean().optional(),
  }),
]);

const HeartbeatSchema = z.strictObject({
  every: duration,
  activeHours: z
    .strictObject({ start: clock, end: clock, timezone: z.string().min(1).optional() })
    .optional(),
  /** What the agent is asked on each beat; defaults to reading HEARTBEAT.md. */
  prompt: z.string().min(1).optional(),
});

/** Skill names (a SKILL.md's `name`, else its folder's): only these are offered; absent means every skill found. */
const SkillAllowListSchema = z.array(z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be a skill name like "weather" (letters, digits, "-", "_", ".")')).max(200);

const AgentDefaultsSchema = z.strictObject({
  model: ModelSelectionSchema.optional(),
  skills: SkillAllowListSchema.optional(),
  runtime: RuntimeProfileSchema.partial().optional(),
  tools: ToolPolicySchema.optional(),
  heartbeat: HeartbeatSchema.optional(),
});

export const AgentSchema = z.strictObject({
  id,
  name: z.string().min(1).optional(),
  /** The agent that gets messages no binding matches. */
  default: z.boolean().optional(),
  model: ModelSelectionSchema.optional(),
  runtime: RuntimeProfileSchema.partial().optional(),
  tools: ToolPolicySchema.optional(),
  mcp: z.strictObject({ servers: z.record(id, McpServerSchema) }).optional(),
  /** The skills this agent is offered, by name (OpenClaw's agents.list[].skills); replaces agents.defaults.skills. */
  skills: SkillAllowListSchema.optional(),
  heartbeat: HeartbeatSchema.optional(),
  /** Names of the values in this agent's own secret (model keys, MCP tokens). */
  secrets: z.array(secretName).optional(),
});

export const ProviderSchema = z.strictObject({
  api: z.enum(['anthropic-messages', 'openai-completions', 'bedrock-converse']),
  baseUrl: z.url().optional(),
  /** Name of the value in each agent's secret that holds this provider's API key. */
  apiKeySecret: secretName.optional(),
});

const PeerSchema = z.strictObject({ kind: z.enum(['direct', 'group']), id: z.string().min(1) });

export const BindingSchema = z.strictObject({
  agentId: id,
  match: z.strictObject({
    channel: z.literal('telegram'),
    accountId: id.optional(),
    peer: PeerSchema.optional(),
  }),
});

const DmPolicySchema = z.enum(['pairing', 'allowlist', 'open', 'disabled']);

/**
 * Telegram user ids (or "*" for anyone). OpenClaw writes ids as numbers (`allowFrom:
 * [700100200]`); a number is taken and kept as its string, the form every check compares.
 */
const AllowFromSchema = z.array(z.union([z.string().min(1), z.int().transform(String)]));

const TelegramAccountSchema = z.strictObject({
  /** Name of this account's bot token in the control plane's telegram secret. */
  botTokenSecret: secretName,
  dmPolicy: DmPolicySchema.optional(),
  allowFrom: AllowFromSchema.optional(),
});

export const TelegramChannelSchema = z.strictObject({
  /** Bot API root; a local Bot API server or a test fake can stand in for Telegram's. */
  apiRoot: z.url().default('https://api.telegram.org'),
  dmPolicy: DmPolicySchema.default('pairing'),
  /** Telegram user ids (or "*") allowed to message the bots directly. */
  allowFrom: AllowFromSchema.optional(),
  groups: z
    .record(z.string(), z.strictObject({ requireMention: z.boolean().optional(), allowFrom: AllowFromSchema.optional() }))
    .optional(),
  accounts: z.record(id, TelegramAccountSchema).refine((a) => Object.keys(a).length > 0, 'needs at least one account'),
});

const CronScheduleSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('at'), at: z.iso.datetime({ offset: true }) }),
  z.strictObject({ kind: z.literal('every'), every: duration }),
  z.strictObject({ kind: z.literal('cron'), expr: z.string().min(9), tz: z.string().min(1).optional() }),
]);

export const CronJobSchema = z.strictObject({
  id,
  agentId: id,
  schedule: CronScheduleSchema,
  sessionTarget: z.enum(['main', 'isolated']).default('main'),
  payload: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('systemEvent'), text: z.string().min(1) }),
    z.strictObject({ kind: z.literal('agentTurn'), message: z.string().min(1) }),
  ]),
  delivery: z
    .strictObject({ mode: z.enum(['none', 'announce']), accountId: id.optional(), to: z.string().min(1).optional() })
    .optional(),
});

const HookMappingSchema = z.strictObject({
  agentId: id,
  /** Text template for the message; `{{body.field}}` reads the request body. */
  messageTemplate: z.string().min(1),
  sessionKey: z.string().min(1).optional(),
});

export const ConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Names the fleet's AWS resources and secrets: clawfleet/<fleet>/... */
  fleet: id.superRefine((fleet, ctx) => {
    const problem = fleetNameProblem(fleet);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  agents: z.strictObject({
    defaults: AgentDefaultsSchema.optional(),
    list: z.array(AgentSchema).min(1, 'needs at least one agent'),
  }),
  models: z.strictObject({ providers: z.record(id, ProviderSchema) }),
  bindings: z.array(BindingSchema).default([]),
  session: z
    .strictObject({ dmScope: z.enum(['main', 'per-peer', 'per-channel-peer', 'per-account-channel-peer']).default('main') })
    .optional(),
  channels: z.strictObject({ telegram: TelegramChannelSchema.optional() }).default({}),
  cron: z.strictObject({ jobs: z.array(CronJobSchema).default([]) }).optional(),
  hooks: z
    .strictObject({
      tokenSecret: secretName,
      mappings: z.record(id, HookMappingSchema).optional(),
      /** Let a /hooks/agent body name its `sessionKey` (default false: such a body is refused with 400). */
      allowRequestSessionKey: z.boolean().optional(),
      /**
       * What a session key chosen by a caller (a body's `sessionKey`, or a mapping's `sessionKey`
       * template filled from the body) may start with, after its `agent:<id>:` scope; default ["hook:"].
       */
      allowedSessionKeyPrefixes: z
        .array(
          z
            .string()
            .min(1)
            .max(128)
            // Matched after the scope, so a scoped prefix would never match anything.
            .refine((p) => !p.startsWith('agent:'), 'is matched after "agent:<id>:", so write "hook:" rather than "agent:<id>:hook:"'),
        )
        .min(1)
        .optional(),
    })
    .optional(),
  agentToAgent: z
    .strictObject({
      allow: z.array(z.strictObject({ from: id, to: id })).default([]),
      /** Relays one conversation may take in all, whoever started it. */
      maxHops: z.number().int().min(1).max(10).default(3),
      /** Relays per ordered pair of agents (from → to) in each window of `perMinutes`; default 20 per 10 minutes. */
      rateLimit: z.strictObject({ max: z.number().int().min(1).max(10_000), perMinutes: z.number().int().min(1).max(1_440) }).optional(),
    })
    .optional(),
});

export type FleetConfig = z.infer<typeof ConfigSchema>;
export type FleetConfigInput = z.input<typeof ConfigSchema>;
export type AgentConfig = z.infer<typeof AgentSchema>;
export type RuntimeProfile = z.infer<typeof RuntimeProfileSchema>;
export type ExecPolicy = z.infer<typeof ExecPolicySchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type Binding = z.infer<typeof BindingSchema>;
export type TelegramChannelConfig = z.infer<typeof TelegramChannelSchema>;
