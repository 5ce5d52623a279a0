// The clawfleet.json schema: one fleet, its agents, models, channels and bindings.
// Close to OpenClaw's openclaw.json so its users can move; every object is strict,
// so an unknown or misspelt key is an error rather than a silently ignored setting.
import * as z from '../zod.ts';
import { isScopedSessionKey } from '../routing/session-key.ts';
import { SecretNameSchema } from '../secrets/secret-values.ts';
import { fleetNameProblem } from './names.ts';
import { RUNTIME_KINDS } from './runtime-kinds.ts';
import { TtsSchema } from './tts.ts';
import { isReactionEmoji, REACTION_EMOJI_RULE } from '../telegram/reaction-emoji.ts';

const id = z.string().check(z.regex(/^[a-z][a-z0-9-]{0,23}$/, 'must be 1–24 chars of a-z, 0-9 and "-", starting with a letter'));

/** A secret is referred to by name; its value lives in Secrets Manager or the local secrets file. */
const secretName = SecretNameSchema;

/** "30s", "15m", "2h", "1d". */
export const durationPattern = /^(\d+)(s|m|h|d)$/;
const duration = z.string().check(z.regex(durationPattern, 'must be a duration like "30m", "2h" or "1d"'));

const clock = z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time like "08:00"'));

/** `runtime.openclaw`: how an agent of runtime.kind "openclaw" runs its OpenClaw gateway (docs/runtime.md). */
const OpenclawRuntimeSchema = z.strictObject({
  /** "managed" (the default): the runtime starts a pinned OpenClaw gateway of its own on loopback. "external": the bridge connects to an operator's gateway at `url`. */
  mode: z.optional(z.enum(['managed', 'external'])),
  /** External mode: the operator's gateway, `wss://host[:port][/path]` (or `ws://` to a loopback address; anywhere else only with `allowInsecureWs`). No credentials in it: the token is `tokenSecret`. */
  url: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
  /** External mode: the name of the value in the agent's own secret holding the gateway's token (`gateway.auth.token`). */
  tokenSecret: z.optional(secretName),
  /** External mode: the gateway's agent that answers (the session keys sent name it); default this agent's id. */
  agent: z.optional(z.string().check(z.regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'must be an OpenClaw agent id: 1–64 chars of a-z, 0-9, "_" and "-"'))),
  /** External mode: allow `ws://` (the token in clear) to a host that is not loopback, e.g. a private network you trust. */
  allowInsecureWs: z.optional(z.boolean()),
});

export const RuntimeProfileSchema = z.strictObject({
  /** What runs the agent: "native" (default, clawfleet's own runtime) or "openclaw" (a pinned OpenClaw driven through its Gateway API). */
  kind: z.optional(z.enum(RUNTIME_KINDS, { error: `must be one of the runtime kinds: ${RUNTIME_KINDS.map((k) => `"${k}"`).join(', ')}` })),
  openclaw: z.optional(OpenclawRuntimeSchema),
  /** Fargate vCPU: 0.25, 0.5, 1, 2, 4, 8 or 16. */
  cpus: z.union([0.25, 0.5, 1, 2, 4, 8, 16].map((n) => z.literal(n)) as [z.ZodMiniLiteral<number>, ...z.ZodMiniLiteral<number>[]]),
  memoryMb: z.number().check(z.int(), z.gte(512), z.lte(122_880)),
  /** A container image to run instead of the built runtime-image/. */
  image: z.optional(z.string().check(z.minLength(1))),
  /** Never hibernate this agent. */
  alwaysOn: z.optional(z.boolean()),
  idleTimeoutMinutes: z.optional(z.number().check(z.int(), z.gte(1), z.lte(10_080))),
  /** Run on Fargate Spot (cheaper; may be interrupted — the queue keeps the work). */
  spot: z.optional(z.boolean()),
  /** The CPU the task runs on: arm64 (Graviton, the default) or x86_64 (the default with spot). */
  architecture: z.optional(z.enum(['arm64', 'x86_64'])),
  /**
   * Local mode: "required" (default) runs the runtime in a bubblewrap box of its own, which sees
   * its workspace and the system only; "off" runs it as a plain process of yours, with a warning.
   * Ignored on AWS, where the agent's own task and container are its box.
   */
  localSandbox: z.optional(z.enum(['required', 'off'])),
});

const ModelRefSchema = z.string().check(z.regex(/^[a-z0-9][a-z0-9-]*\/.+$/, 'must be a model ref like "anthropic/claude-sonnet-4-5"'));

const ModelSelectionSchema = z.union([ModelRefSchema, z.strictObject({ primary: ModelRefSchema, fallbacks: z.optional(z.array(ModelRefSchema)) })]);

/** A host as it appears in a URL: a name (letters, digits, "-", "_", dots), an IPv4 address or a bracketed IPv6 one; no scheme, port, path or wildcard. */
const hostName = z
  .string()
  .check(
    z.maxLength(253),
    z.regex(
      /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62})(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,62}))*\.?)$/,
      'must be a host name like "wiki.corp.example" (no scheme, port, path or wildcard)',
    ),
  );

/** A program exec may run under `security: "allowlist"`: a name found on the sandbox's PATH, or an absolute path. */
const allowedProgram = z.string().check(
  z.regex(/^(?:[A-Za-z0-9_][A-Za-z0-9_.+-]{0,127}|(?:\/[A-Za-z0-9_.+-]+)+)$/, 'must be a program name like "git" or an absolute path like "/usr/bin/git"'),
  z.refine((p) => !p.split('/').some((part) => part === '.' || part === '..'), 'must not contain "." or ".." path segments'),
);

/** `tools.exec`: whether and how the agent may run commands (OpenClaw's tools.exec, plus the sandbox). */
const ExecPolicySchema = z.strictObject({
  /** "required" (default): exec runs only inside a sandbox and is off where none is available; "off": unsandboxed, with a warning. */
  sandbox: z.optional(z.enum(['required', 'off'])),
  /** "full" (default): any shell command; "allowlist": only the programs in `allowlist`, no shell; "deny": no exec tool. */
  security: z.optional(z.enum(['deny', 'allowlist', 'full'])),
  allowlist: z.optional(z.array(allowedProgram)),
  /** Whether sandboxed commands may use the network (default true). */
  network: z.optional(z.boolean()),
  /**
   * Environment variable → secret name: values of this agent's own secret that every exec
   * command gets (what a skill's scripts need, its requires.env). Off by default: a command
   * sees no secret unless named here.
   */
  env: z.optional(
    z.record(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, 'must be an environment variable name like TODOIST_API_KEY')), secretName),
  ),
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
  executablePath: z.optional(z.string().check(z.regex(/^\//, 'must be an absolute path'))),
  /** Minutes without a browser action after which Chromium is stopped (default 5). */
  idleMinutes: z.optional(z.number().check(z.int(), z.gte(1), z.lte(120))),
});

/** `tools.media` (#16, OpenClaw's words): how attachments are understood. */
const MediaToolsSchema = z.strictObject({
  /** Voice messages and audio files, transcribed through an OpenAI-compatible POST <baseUrl>/audio/transcriptions. */
  audio: z.optional(
    z.strictObject({
      /** The API root, e.g. "https://api.openai.com/v1" (the path /audio/transcriptions is added). */
      baseUrl: z.url(),
      /** The transcription model, e.g. "whisper-1" or "gpt-4o-mini-transcribe". */
      model: z.string().check(z.minLength(1), z.maxLength(128)),
      /** Name of the value in this agent's secret that holds the API key (sent as a bearer token). */
      apiKeySecret: z.optional(secretName),
      /** An ISO-639-1 hint ("en", "de"); left out, the provider detects it. */
      language: z.optional(z.string().check(z.regex(/^[a-z]{2}$/, 'must be a two-letter language code like "en"'))),
      /** Quote the transcript to the user at the top of the answer (🎤 “…”), so they see what was heard. Default false. */
      echoTranscript: z.optional(z.boolean()),
    }),
  ),
});

const ToolPolicySchema = z.strictObject({
  allow: z.optional(z.array(z.string().check(z.minLength(1)))),
  deny: z.optional(z.array(z.string().check(z.minLength(1)))),
  exec: z.optional(ExecPolicySchema),
  media: z.optional(MediaToolsSchema),
  web: z.optional(
    z.strictObject({
      fetch: z.optional(
        z.strictObject({
          /**
           * Intranet hosts web_fetch may reach although they resolve to loopback or private
           * addresses (RFC 1918, CGNAT, IPv6 unique local). Exact names; metadata, link-local
           * and other special addresses stay refused whatever is listed.
           */
          allowPrivateHosts: z.optional(z.array(hostName).check(z.maxLength(100))),
        }),
      ),
      search: z.optional(
        z.strictObject({
          /** Who answers web_search: the Brave Search API (the default) or the Perplexity Search API. */
          provider: z.optional(z.enum(['brave', 'perplexity'])),
          /** The value in this agent's own secret that holds the provider's API key (default BRAVE_API_KEY, or PERPLEXITY_API_KEY). */
          apiKeySecret: z.optional(secretName),
          /** Results per query when the model does not say (1–20, default 5). */
          maxResults: z.optional(z.number().check(z.int(), z.gte(1), z.lte(20))),
          /** How long an answer is reused for the same query (default 5 minutes; 0 turns the cache off). */
          cacheTtlMinutes: z.optional(z.number().check(z.int(), z.gte(0), z.lte(60))),
          /** The provider's API root (default its public one): a proxy or compatible endpoint the operator runs; the key is sent there. */
          baseUrl: z.optional(z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })),
        }),
      ),
    }),
  ),
  browser: z.optional(BrowserPolicySchema),
});

const McpServerSchema = z.union([
  z.strictObject({
    command: z.string().check(z.minLength(1)),
    args: z.optional(z.array(z.string())),
    /** Environment variable → secret name; values come from this agent's secrets only. */
    env: z.optional(z.record(z.string(), secretName)),
    /** Run the server in the sandbox exec uses (its own namespaces or tool uid, the workspace writable, the system read-only). */
    sandbox: z.optional(z.boolean()),
  }),
  z.strictObject({
    url: z.url(),
    /** Header → secret name. */
    headers: z.optional(z.record(z.string(), secretName)),
    /** Only `false` is valid: a url server runs elsewhere, so there is nothing to sandbox (checked with the config's other cross-checks). */
    sandbox: z.optional(z.boolean()),
  }),
]);

const HeartbeatSchema = z.strictObject({
  every: duration,
  activeHours: z.optional(z.strictObject({ start: clock, end: clock, timezone: z.optional(z.string().check(z.minLength(1))) })),
  /** What the agent is asked on each beat; defaults to reading HEARTBEAT.md. */
  prompt: z.optional(z.string().check(z.minLength(1))),
});

/**
 * `budget`: a spending cap in USD, per UTC day and per UTC month (#31), counted from the token
 * usage each provider reports, priced by models.prices. Over a cap, the agent's messages are
 * answered with a note saying so, and its cron jobs and heartbeats pause, until the period ends.
 */
const BudgetSchema = z
  .strictObject({
    dailyUsd: z.optional(z.number().check(z.positive(), z.lte(1_000_000))),
    monthlyUsd: z.optional(z.number().check(z.positive(), z.lte(1_000_000))),
  })
  .check(z.refine((b) => b.dailyUsd !== undefined || b.monthlyUsd !== undefined, 'needs dailyUsd, monthlyUsd or both'));

/** A model's price in USD per million tokens, named as OpenClaw's models.providers.<p>.models[].cost and pi-ai's Model.cost. */
export const ModelPriceSchema = z.strictObject({
  /** Prompt tokens read fresh. */
  input: z.number().check(z.gte(0), z.lte(10_000)),
  /** Tokens the model writes (reasoning included). */
  output: z.number().check(z.gte(0), z.lte(10_000)),
  /** Prompt tokens read from the provider's cache; default the input price. */
  cacheRead: z.optional(z.number().check(z.gte(0), z.lte(10_000))),
  /** Prompt tokens written to the provider's cache; default the input price. */
  cacheWrite: z.optional(z.number().check(z.gte(0), z.lte(10_000))),
});

/** Skill names (a SKILL.md's `name`, else its folder's): only these are offered; absent means every skill found. */
const SkillAllowListSchema = z
  .array(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'must be a skill name like "weather" (letters, digits, "-", "_", ".")')))
  .check(z.maxLength(200));

const AgentDefaultsSchema = z.strictObject({
  model: z.optional(ModelSelectionSchema),
  skills: z.optional(SkillAllowListSchema),
  runtime: z.optional(z.partial(RuntimeProfileSchema)),
  tools: z.optional(ToolPolicySchema),
  heartbeat: z.optional(HeartbeatSchema),
  budget: z.optional(BudgetSchema),
  /** Spoken replies (shared/config/tts.ts); an agent's own merges key by key over these. */
  tts: z.optional(TtsSchema),
});

export const AgentSchema = z.strictObject({
  id,
  name: z.optional(z.string().check(z.minLength(1))),
  /** The agent that gets messages no binding matches. */
  default: z.optional(z.boolean()),
  model: z.optional(ModelSelectionSchema),
  runtime: z.optional(z.partial(RuntimeProfileSchema)),
  tools: z.optional(ToolPolicySchema),
  mcp: z.optional(z.strictObject({ servers: z.record(id, McpServerSchema) })),
  /** The skills this agent is offered, by name (OpenClaw's agents.list[].skills); replaces agents.defaults.skills. */
  skills: z.optional(SkillAllowListSchema),
  heartbeat: z.optional(HeartbeatSchema),
  /** This agent's spending cap; merged key by key over agents.defaults.budget. */
  budget: z.optional(BudgetSchema),
  /** Names of the values in this agent's own secret (model keys, MCP tokens). */
  secrets: z.optional(z.array(secretName)),
  /** Spoken replies: an OpenAI-compatible /audio/speech, its voice sent with the text (shared/config/tts.ts). */
  tts: z.optional(TtsSchema),
});

export const ProviderSchema = z.strictObject({
  api: z.enum(['anthropic-messages', 'openai-completions', 'bedrock-converse']),
  baseUrl: z.optional(z.url()),
  /** Name of the value in each agent's secret that holds this provider's API key. */
  apiKeySecret: z.optional(secretName),
  /** Models of this provider that take images (#16): a photo goes to them as an image; "*" for all. Others get a note with the file's workspace path. */
  imageModels: z.optional(z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.maxLength(100))),
});

/** A forum topic's id (Telegram's message_thread_id); 1 is a forum's General topic. */
const TopicIdSchema = z.number().check(z.int(), z.gte(1), z.lte(2_147_483_647));

const PeerSchema = z
  .strictObject({
    kind: z.enum(['direct', 'group']),
    id: z.string().check(z.minLength(1)),
    /** A forum topic of the group (1 is its General topic): the binding matches that topic only, and wins over the group's. */
    topic: z.optional(TopicIdSchema),
  })
  .check(z.refine((p) => p.topic === undefined || p.kind === 'group', { message: 'a topic belongs to a group: kind must be "group"', path: ['topic'] }));

const BindingSchema = z.strictObject({
  agentId: id,
  match: z.strictObject({
    channel: z.literal('telegram'),
    accountId: z.optional(id),
    peer: z.optional(PeerSchema),
  }),
});

const DmPolicySchema = z.enum(['pairing', 'allowlist', 'open', 'disabled']);

/**
 * Telegram user ids (or "*" for anyone). OpenClaw writes ids as numbers (`allowFrom:
 * [700100200]`); a number is taken and kept as its string, the form every check compares.
 */
const AllowFromSchema = z.array(z.union([z.string().check(z.minLength(1)), z.pipe(z.int(), z.transform(String))]));

// ── Conversation keys (streamed replies, native commands), per channel and per account ──
/**
 * OpenClaw's `streaming`: partial shows the answer growing (drafts in private chats, an edited
 * preview in groups); block sends each completed paragraph or code block as a message of its
 * own while the model writes; progress shows a status of the work (its tool calls) while the
 * agent works and then sends the answer as a message of its own; off sends it whole.
 */
const StreamingSchema = z.enum(['off', 'partial', 'block', 'progress'], { error: 'must be "off", "partial", "block" or "progress"' });
/** OpenClaw's `blockStreamingChunk`: a block goes out once it has minChars, and is cut at a line break past maxChars (both at most 4000, Telegram's limit). */
const BlockStreamingChunkSchema = z
  .strictObject({
    minChars: z.optional(z.int().check(z.gte(1), z.lte(4_000))),
    maxChars: z.optional(z.int().check(z.gte(1), z.lte(4_000))),
  })
  .check(z.refine((c) => (c.minChars ?? 0) <= (c.maxChars ?? 4_000), 'minChars must not be over maxChars'));
/** OpenClaw's `commands.native`: answer /status, /new, /stop… natively and register the bot's command menu. */
const CommandsSchema = z.strictObject({ native: z.optional(z.boolean()) });
/** An emoji the bot may react with: one of Telegram's (shared/telegram/reaction-emoji.ts), a keyboard's "❤️" taken as "❤". */
const reactionEmoji = z.string().check(z.refine(isReactionEmoji, REACTION_EMOJI_RULE));
/**
 * OpenClaw's `statusReactions`: the reaction on the user's message follows its turn — queued →
 * thinking → tool → done or error — instead of the ack being removed. Off by default on Telegram,
 * as OpenClaw has it.
 */
const StatusReactionsSchema = z.strictObject({
  enabled: z.optional(z.boolean()),
  /** Each state's emoji; queued defaults to `ackReaction`, the rest to OpenClaw's (🤔 🔥 👍 😱). */
  emojis: z.optional(
    z.strictObject({
      queued: z.optional(reactionEmoji),
      thinking: z.optional(reactionEmoji),
      tool: z.optional(reactionEmoji),
      done: z.optional(reactionEmoji),
      error: z.optional(reactionEmoji),
    }),
  ),
});
const conversationKeys = {
  streaming: z.optional(StreamingSchema),
  blockStreamingChunk: z.optional(BlockStreamingChunkSchema),
  commands: z.optional(CommandsSchema),
  /** OpenClaw's `ackReaction`: the emoji put on a user's message once it is queued, removed when the reply is sent; "" turns it off. */
  ackReaction: z.optional(z.string().check(z.refine((e) => e === '' || isReactionEmoji(e), `${REACTION_EMOJI_RULE}, or "" for none`))),
  /** Status reactions (queued → thinking → tool → done / error) on the user's message; see StatusReactionsSchema. */
  statusReactions: z.optional(StatusReactionsSchema),
  /** Which messages get it: all, direct (private chats), group-mentions (group messages that address the bot), group-all (every admitted group message). */
  ackReactionScope: z.optional(z.enum(['all', 'direct', 'group-mentions', 'group-all'])),
  /** OpenClaw's `replyToMode`: thread the reply to the user's message — off, first (its first part), all (every part). */
  replyToMode: z.optional(z.enum(['off', 'first', 'all'])),
  /** A user's edit of a message already sent: ignore (default; Telegram is not even asked for edits), or note (passed on to the agent as "[edited message <id>] new text"). */
  editedMessages: z.optional(z.enum(['ignore', 'note'])),
  /**
   * OpenClaw's `reactionNotifications`: which of the users' reactions reach the agent, as a note
   * before its next turn — off, own (default: reactions to the bot's messages), all (to any message).
   */
  reactionNotifications: z.optional(z.enum(['off', 'own', 'all'])),
};

/**
 * One forum topic of a group (OpenClaw's `channels.telegram.groups.<id>.topics.<topicId>`): its own
 * agent, and its own requireMention and allowFrom over the group's.
 */
const TopicSchema = z.strictObject({
  /** The agent that answers in this topic (a binding for the topic wins over it); topic-only, never inherited from the group. */
  agentId: z.optional(id),
  requireMention: z.optional(z.boolean()),
  allowFrom: z.optional(AllowFromSchema),
});

/** An enabled group: whether it must mention the bot, who in it may, and its forum topics ("*": every topic not listed). */
const GroupSchema = z.strictObject({
  requireMention: z.optional(z.boolean()),
  allowFrom: z.optional(AllowFromSchema),
  topics: z.optional(z.record(z.string().check(z.regex(/^(\*|[1-9][0-9]{0,9})$/, 'must be a topic id (a positive number; 1 is General) or "*"')), TopicSchema)),
});

const TelegramAccountSchema = z.strictObject({
  /** Name of this account's bot token in the control plane's telegram secret. */
  botTokenSecret: secretName,
  dmPolicy: z.optional(DmPolicySchema),
  allowFrom: z.optional(AllowFromSchema),
  ...conversationKeys,
});

const TelegramChannelSchema = z.strictObject({
  /** Bot API root; a local Bot API server or a test fake can stand in for Telegram's. */
  apiRoot: z._default(z.url(), 'https://api.telegram.org'),
  dmPolicy: z._default(DmPolicySchema, 'pairing'),
  /** Telegram user ids (or "*") allowed to message the bots directly. */
  allowFrom: z.optional(AllowFromSchema),
  groups: z.optional(z.record(z.string(), GroupSchema)),
  accounts: z.record(id, TelegramAccountSchema).check(z.refine((a) => Object.keys(a).length > 0, 'needs at least one account')),
  ...conversationKeys,
});

const CronScheduleSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('at'), at: z.iso.datetime({ offset: true }) }),
  z.strictObject({ kind: z.literal('every'), every: duration }),
  z.strictObject({ kind: z.literal('cron'), expr: z.string().check(z.minLength(9)), tz: z.optional(z.string().check(z.minLength(1))) }),
]);

export const CronJobSchema = z.strictObject({
  id,
  agentId: id,
  schedule: CronScheduleSchema,
  sessionTarget: z._default(z.enum(['main', 'isolated']), 'main'),
  payload: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('systemEvent'), text: z.string().check(z.minLength(1)) }),
    z.strictObject({ kind: z.literal('agentTurn'), message: z.string().check(z.minLength(1)) }),
  ]),
  delivery: z.optional(z.strictObject({ mode: z.enum(['none', 'announce']), accountId: z.optional(id), to: z.optional(z.string().check(z.minLength(1))) })),
});

const HookMappingSchema = z.strictObject({
  agentId: id,
  /** Text template for the message; `{{body.field}}` reads the request body. */
  messageTemplate: z.string().check(z.minLength(1)),
  sessionKey: z.optional(z.string().check(z.minLength(1))),
});

export const ConfigSchema = z.strictObject({
  $schema: z.optional(z.string()),
  /** Names the fleet's AWS resources and secrets: clawfleet/<fleet>/... */
  fleet: id.check(
    z.superRefine((fleet, ctx) => {
      const problem = fleetNameProblem(fleet);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  agents: z.strictObject({
    defaults: z.optional(AgentDefaultsSchema),
    list: z.array(AgentSchema).check(z.minLength(1, 'needs at least one agent')),
  }),
  models: z.strictObject({
    providers: z.record(id, ProviderSchema),
    /**
     * Prices by model ref, USD per million tokens: what a budget counts (#31). The models the
     * example config uses have defaults (shared/budget/prices.ts); an entry here replaces one.
     */
    prices: z.optional(z.record(ModelRefSchema, ModelPriceSchema)),
  }),
  bindings: z._default(z.array(BindingSchema), []),
  session: z.optional(z.strictObject({ dmScope: z._default(z.enum(['main', 'per-peer', 'per-channel-peer', 'per-account-channel-peer']), 'main') })),
  channels: z._default(z.strictObject({ telegram: z.optional(TelegramChannelSchema) }), {}),
  cron: z.optional(z.strictObject({ jobs: z._default(z.array(CronJobSchema), []) })),
  hooks: z.optional(
    z.strictObject({
      tokenSecret: secretName,
      mappings: z.optional(z.record(id, HookMappingSchema)),
      /** Let a /hooks/agent body name its `sessionKey` (default false: such a body is refused with 400). */
      allowRequestSessionKey: z.optional(z.boolean()),
      /**
       * What a session key chosen by a caller (a body's `sessionKey`, or a mapping's `sessionKey`
       * template filled from the body) may start with, after its `agent:<id>:` scope; default ["hook:"].
       */
      allowedSessionKeyPrefixes: z.optional(
        z
          .array(
            z.string().check(
              z.minLength(1),
              z.maxLength(128),
              // Matched after the scope, so a scoped prefix would never match anything.
              z.refine((p) => !isScopedSessionKey(p), 'is matched after "agent:<id>:", so write "hook:" rather than "agent:<id>:hook:"'),
            ),
          )
          .check(z.minLength(1)),
      ),
    }),
  ),
  /**
   * Who is told when something goes wrong (docs/operations.md, "Alarms"): an alarm's state
   * change, an agent crash-looping, dead letters, an agent waiting for a secret, a failing
   * health tick. No secret here: an address and a chat id are where alerts go, not credentials.
   */
  operator: z.optional(
    z.strictObject({
      /** Subscribed to the fleet's alarm topic on AWS (SNS asks the address to confirm once). */
      email: z.optional(z.string().check(z.maxLength(254), z.regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'must be an email address'))),
      /** The operator's own Telegram chat, written to by one of the fleet's bots (the token stays in the control plane). */
      telegram: z.optional(
        z.strictObject({
          /** The bot that writes (a key of channels.telegram.accounts); may be left out when there is one. */
          accountId: z.optional(id),
          /** The chat: the operator's user id for a private chat with that bot (its /whoami says it), or a group's (negative) id. */
          chatId: z.union([z.number().check(z.int()), z.string().check(z.regex(/^-?\d{1,20}$/, 'must be a Telegram chat id (digits, "-" first for a group)'))]),
        }),
      ),
    }),
  ),
  /** Attachments and the files agents send (#16): kept in the media store this many days (default 30), then deleted. */
  media: z.optional(z.strictObject({ expireDays: z.optional(z.number().check(z.int(), z.gte(1), z.lte(3650))) })),
  agentToAgent: z.optional(
    z.strictObject({
      allow: z._default(z.array(z.strictObject({ from: id, to: id })), []),
      /** Relays one conversation may take in all, whoever started it. */
      maxHops: z._default(z.number().check(z.int(), z.gte(1), z.lte(10)), 3),
      /** Relays per ordered pair of agents (from → to) in each window of `perMinutes`; default 20 per 10 minutes. */
      rateLimit: z.optional(
        z.strictObject({ max: z.number().check(z.int(), z.gte(1), z.lte(10_000)), perMinutes: z.number().check(z.int(), z.gte(1), z.lte(1_440)) }),
      ),
    }),
  ),
});

export type FleetConfig = z.infer<typeof ConfigSchema>;
export type FleetConfigInput = z.input<typeof ConfigSchema>;
export type AgentConfig = z.infer<typeof AgentSchema>;
export type RuntimeProfile = z.infer<typeof RuntimeProfileSchema>;
export type ExecPolicy = z.infer<typeof ExecPolicySchema>;
export type OpenclawRuntimeOptions = z.infer<typeof OpenclawRuntimeSchema>;
export type ProviderConfig = z.infer<typeof ProviderSchema>;
export type ModelPriceConfig = z.infer<typeof ModelPriceSchema>;
export type Binding = z.infer<typeof BindingSchema>;
