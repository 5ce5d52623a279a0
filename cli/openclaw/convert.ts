// Converts an OpenClaw config (openclaw.json, already parsed from JSON5) and its cron job
// store into a clawfleet config. Secret values are never carried over: a bot token, an API
// key or an MCP credential becomes a secret *name*, listed for `clawfleet secrets set`.
// Whatever has no clawfleet equivalent is listed with its path and why, never dropped silently.
import { topicsOf } from './reactions.ts';
import { isReactionEmoji, reactionSpelling } from '../../shared/telegram/reaction-emoji.ts';
import { SECRET_NAME } from '../../shared/secrets/secret-values.ts';
import { BLOCK_STREAMING_DEFAULTS_KEYS, CONVERSATION_KEYS, conversationOf, fleetWideConversation } from './conversation.ts';
import { ttsOf } from './openclaw-tts.ts';
import { isObj, type Obj } from './convert-types.ts';

export interface SecretToSet {
  /** The secret container: clawfleet/<fleet>/agents/<id> or clawfleet/<fleet>/control/<part>. */
  scope: { agent: string } | { control: 'telegram' | 'hooks' };
  name: string;
  /** Where the value was in the OpenClaw config (the value itself is not kept). */
  from: string;
}

export interface NotConverted {
  path: string;
  reason: string;
}

export interface Conversion {
  config: Record<string, unknown>;
  secrets: SecretToSet[];
  notConverted: NotConverted[];
  /** Renamed ids and other adjustments worth knowing. */
  notes: string[];
}

const asStr = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);

/** Known providers and the wire API and key name clawfleet uses for them. */
const BUILTIN_PROVIDERS: Record<string, { api: string; apiKeySecret?: string }> = {
  anthropic: { api: 'anthropic-messages', apiKeySecret: 'ANTHROPIC_API_KEY' },
  openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' },
  bedrock: { api: 'bedrock-converse' },
  'amazon-bedrock': { api: 'bedrock-converse' },
};
const SUPPORTED_APIS = new Set(['anthropic-messages', 'openai-completions', 'bedrock-converse']);
const TTS_ON_OPENCLAW = "spoken replies are the native runtime's: agents kept on OpenClaw (--runtime openclaw) answer in text";

/** The keys we understand per object; everything else there is reported. */
const AGENT_KEYS = new Set(['id', 'name', 'default', 'model', 'tools', 'heartbeat', 'identity', 'tts']);
const DEFAULTS_KEYS = new Set(['model', 'tools', 'heartbeat', ...BLOCK_STREAMING_DEFAULTS_KEYS]);

export function sanitizeId(raw: string): string {
  let id = raw
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!/^[a-z]/.test(id)) id = `a-${id}`;
  return id.slice(0, 24).replace(/-+$/, '') || 'agent';
}

const secretNameFor = (...parts: string[]) =>
  parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9_]+/g, '_')
    .replace(/^([0-9])/, '_$1')
    .slice(0, 64);

/** `${NAME}` or `env:NAME` names a variable; clawfleet keeps such a value as a secret of that name. */
function referencedName(value: string): string | undefined {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value) ?? /^env:([A-Za-z_][A-Za-z0-9_]*)$/.exec(value);
  return m?.[1];
}

/** Milliseconds as a clawfleet duration ("90s", "30m", "2h", "1d"), when exact. */
function msToDuration(ms: number): string | undefined {
  for (const [unit, size] of [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return undefined;
}

/** What an agent runs when the OpenClaw config names no model (OpenClaw then uses its own default). */
export const FALLBACK_MODEL = 'anthropic/claude-sonnet-4-5';

/** One agent of an OpenClaw config, where the config has it. */
export interface OpenclawAgent {
  raw: Obj;
  /** Its path in the config, for messages. */
  at: string;
  /** Its id in OpenClaw. */
  id: string;
  /** No agents are listed: OpenClaw's single agent "main" (agents.defaults or the legacy `agent` block). */
  implicit?: true;
}

/** The agents of an OpenClaw config: `agents.list` (older releases), `agents.entries` (current), or the single "main". */
export function listOpenclawAgents(root: Obj): OpenclawAgent[] {
  const agentsRoot = isObj(root.agents) ? root.agents : {};
  const agents: OpenclawAgent[] = [];
  if (Array.isArray(agentsRoot.list)) {
    agentsRoot.list.forEach((a, i) => isObj(a) && typeof a.id === 'string' && agents.push({ raw: a, at: `agents.list[${i}]`, id: a.id }));
  }
  if (isObj(agentsRoot.entries)) {
    for (const [id, a] of Object.entries(agentsRoot.entries)) if (isObj(a)) agents.push({ raw: a, at: `agents.entries.${id}`, id });
  }
  if (agents.length === 0) agents.push({ raw: isObj(root.agent) ? root.agent : {}, at: isObj(root.agent) ? 'agent' : 'agents', id: 'main', implicit: true });
  return agents;
}

export function convertOpenclaw(
  input: unknown,
  opts: { fleet: string; cronJobs?: unknown; cronSource?: string; defaultModel?: string; workspaces?: boolean; runtime?: 'native' | 'openclaw' },
): Conversion {
  const secrets: SecretToSet[] = [];
  const notConverted: NotConverted[] = [];
  const notes: string[] = [];
  const skip = (path: string, reason: string) => notConverted.push({ path, reason });
  const leftovers = (obj: Obj, known: Set<string>, at: string, reason = 'no clawfleet equivalent') => {
    for (const key of Object.keys(obj)) if (!known.has(key)) skip(`${at}.${key}`, reason);
  };
  if (!isObj(input)) throw new Error('an OpenClaw config must be an object');
  const root = input;

  // ── Models ────────────────────────────────────────────────────────────────────
  const providers: Record<string, Obj> = {};
  const unusableProviders = new Set<string>();
  const customProviders = isObj(root.models) && isObj(root.models.providers) ? root.models.providers : {};
  for (const [name, raw] of Object.entries(customProviders)) {
    const at = `models.providers.${name}`;
    if (!isObj(raw)) continue;
    const api = asStr(raw.api) ?? BUILTIN_PROVIDERS[name]?.api;
    const id = sanitizeId(name);
    if (!api || !SUPPORTED_APIS.has(api)) {
      unusableProviders.add(name);
      skip(at, `api "${api ?? '(none)'}" is not one clawfleet speaks (${[...SUPPORTED_APIS].join(', ')}); models of this provider were left out`);
      continue;
    }
    const provider: Obj = { api };
    if (typeof raw.baseUrl === 'string') provider.baseUrl = raw.baseUrl;
    if (raw.apiKey !== undefined) {
      const named = typeof raw.apiKey === 'string' ? referencedName(raw.apiKey) : undefined;
      provider.apiKeySecret = named ?? secretNameFor(id, 'API_KEY');
    } else if (BUILTIN_PROVIDERS[name]?.apiKeySecret) provider.apiKeySecret = BUILTIN_PROVIDERS[name]!.apiKeySecret;
    providers[id] = provider;
    leftovers(raw, new Set(['api', 'baseUrl', 'apiKey']), at);
  }
  if (isObj(root.models)) leftovers(root.models, new Set(['providers']), 'models');

  /** A model ref clawfleet can run, adding a built-in provider when first used. */
  const modelRef = (ref: unknown, at: string): string | undefined => {
    if (typeof ref !== 'string') return undefined;
    const provider = ref.slice(0, ref.indexOf('/'));
    if (!provider || unusableProviders.has(provider)) {
      skip(
        at,
        `model "${ref}" ${provider ? `uses provider "${provider}", which could not be converted` : 'is not a provider/model ref (aliases are not supported)'}`,
      );
      return undefined;
    }
    const id = sanitizeId(provider);
    if (!providers[id]) {
      const builtin = BUILTIN_PROVIDERS[provider];
      if (!builtin) {
        skip(at, `model "${ref}" needs provider "${provider}", which clawfleet has no built-in wire API for; add it under models.providers`);
        return undefined;
      }
      providers[id] = { ...builtin };
    }
    return `${id}${ref.slice(provider.length)}`;
  };
  const modelSelection = (raw: unknown, at: string): unknown => {
    if (typeof raw === 'string') return modelRef(raw, at);
    if (!isObj(raw)) return undefined;
    const primary = modelRef(raw.primary, `${at}.primary`);
    if (!primary) return undefined;
    const fallbacks = (Array.isArray(raw.fallbacks) ? raw.fallbacks : []).map((f, i) => modelRef(f, `${at}.fallbacks[${i}]`)).filter((f): f is string => !!f);
    leftovers(raw, new Set(['primary', 'fallbacks']), at);
    return fallbacks.length ? { primary, fallbacks } : primary;
  };
  const toolPolicy = (raw: unknown, at: string): Obj | undefined => {
    if (!isObj(raw)) return undefined;
    const out: Obj = {};
    for (const k of ['allow', 'deny'] as const) if (Array.isArray(raw[k])) out[k] = raw[k].filter((t) => typeof t === 'string');
    leftovers(raw, new Set(['allow', 'deny', 'agentToAgent']), at, 'tool settings other than allow/deny have no clawfleet equivalent');
    return Object.keys(out).length ? out : undefined;
  };
  const heartbeat = (raw: unknown, at: string): Obj | undefined => {
    if (!isObj(raw) || typeof raw.every !== 'string') return undefined;
    if (!/^\d+(s|m|h|d)$/.test(raw.every)) {
      skip(`${at}.every`, `"${raw.every}" is not a duration clawfleet reads (like "30m")`);
      return undefined;
    }
    const out: Obj = { every: raw.every };
    if (typeof raw.prompt === 'string' && raw.prompt) out.prompt = raw.prompt;
    if (isObj(raw.activeHours) && typeof raw.activeHours.start === 'string' && typeof raw.activeHours.end === 'string') {
      out.activeHours = {
        start: raw.activeHours.start,
        end: raw.activeHours.end,
        ...(typeof raw.activeHours.timezone === 'string' ? { timezone: raw.activeHours.timezone } : {}),
      };
    }
    leftovers(raw, new Set(['every', 'prompt', 'activeHours']), at, 'heartbeat delivery settings are not converted (clawfleet heartbeats run in the agent)');
    return out;
  };

  // ── Agents ────────────────────────────────────────────────────────────────────
  const agentsRoot = isObj(root.agents) ? root.agents : {};
  const rawAgents = listOpenclawAgents(root);
  if (rawAgents[0]!.implicit) notes.push('no agents.list or agents.entries: converted the single agent as "main"');
  else if (isObj(root.agent)) skip('agent', 'the legacy single-agent block is ignored because agents are listed');
  // The workspace is carried by --workspaces (cli/openclaw/workspaces.ts), not by the config.
  const workspaceKeys = new Set(['workspace']);
  const workspaceReason = 'not carried by the config: `import-openclaw --workspaces` copies the workspace into the local fleet';

  const idMap = new Map<string, string>();
  /** Each agent's identity emoji: OpenClaw's ack reaction when none is configured. */
  const identityEmoji = new Map<string, string>();
  const agents: Obj[] = [];
  for (const { raw, at, id: rawId } of rawAgents) {
    const id = sanitizeId(rawId);
    if (id !== rawId) notes.push(`agent "${rawId}" is "${id}" in clawfleet (ids are lowercase a-z, 0-9, "-", at most 24)`);
    idMap.set(rawId, id);
    const agent: Obj = { id };
    const name =
      asStr(raw.name) ??
      (isObj(raw.identity) ? asStr(raw.identity.name) : undefined) ??
      (rawAgents.length === 1 && isObj(root.identity) ? asStr(root.identity.name) : undefined);
    if (name) agent.name = name;
    const identity = isObj(raw.identity) ? raw.identity : rawAgents.length === 1 && isObj(root.identity) ? root.identity : {};
    if (typeof identity.emoji === 'string' && identity.emoji) identityEmoji.set(id, identity.emoji);
    if (raw.default === true) agent.default = true;
    const model = modelSelection(raw.model, `${at}.model`);
    if (model) agent.model = model;
    const tools = toolPolicy(raw.tools, `${at}.tools`);
    if (tools) agent.tools = tools;
    const hb = heartbeat(raw.heartbeat, `${at}.heartbeat`);
    if (hb) agent.heartbeat = hb;
    if (raw.tts !== undefined && opts.runtime === 'openclaw') skip(`${at}.tts`, TTS_ON_OPENCLAW);
    const tts = opts.runtime === 'openclaw' ? undefined : ttsOf(raw.tts, `${at}.tts`, { skip, note: (text) => notes.push(text) }, referencedName, false);
    if (tts) agent.tts = tts;
    if (isObj(raw.identity))
      leftovers(raw.identity, new Set(['name']), `${at}.identity`, 'identity other than the name lives in the workspace (IDENTITY.md) in clawfleet');
    leftovers(raw, new Set([...AGENT_KEYS, ...workspaceKeys]), at, 'per-agent setting with no clawfleet equivalent');
    if (typeof raw.workspace === 'string' && !opts.workspaces) skip(`${at}.workspace`, workspaceReason);
    agents.push(agent);
  }
  if (rawAgents.length > 1 && !agents.some((a) => a.default)) notes.push(`no default agent marked: "${agents[0]!.id}" (the first) takes unmatched messages`);
  const agentOf = (raw: unknown): string | undefined =>
    typeof raw === 'string' ? (idMap.get(raw) ?? (idMap.has(sanitizeId(raw)) ? sanitizeId(raw) : undefined)) : undefined;
  const defaultAgent = (agents.find((a) => a.default) ?? agents[0]!).id as string;

  // OpenClaw has no compute sizes: a small Fargate task that hibernates when idle, or with
  // --runtime openclaw the smallest one its gateway runs in (shared/config/runtime-kinds.ts).
  const onOpenclaw = opts.runtime === 'openclaw';
  const defaults: Obj = {
    runtime: onOpenclaw ? { kind: 'openclaw', cpus: 1, memoryMb: 2048, idleTimeoutMinutes: 30 } : { cpus: 0.5, memoryMb: 1024, idleTimeoutMinutes: 30 },
  };
  notes.push(
    onOpenclaw
      ? 'every agent keeps running on OpenClaw: agents.defaults.runtime {kind "openclaw", cpus 1, memoryMb 2048, idleTimeoutMinutes 30} (a managed one-agent gateway each, locally and on AWS; see docs/runtime.md)'
      : 'every agent gets agents.defaults.runtime {cpus 0.5, memoryMb 1024, idleTimeoutMinutes 30}; size them in clawfleet.json',
  );
  const rawDefaults = isObj(agentsRoot.defaults) ? agentsRoot.defaults : {};
  const legacyAgent = rawAgents[0]!.at === 'agent' ? {} : isObj(root.agent) ? root.agent : {};
  const defaultModel = modelSelection(rawDefaults.model ?? legacyAgent.model, 'agents.defaults.model');
  if (defaultModel) defaults.model = defaultModel;
  if (!defaults.model && agents.some((a) => !a.model)) {
    const fallback = opts.defaultModel ?? FALLBACK_MODEL;
    defaults.model = modelRef(fallback, 'agents.defaults.model');
    notes.push(`no model in the OpenClaw config for every agent (OpenClaw falls back to its own default): agents.defaults.model is "${fallback}"`);
  }
  const defaultTools = toolPolicy(rawDefaults.tools ?? root.tools, rawDefaults.tools ? 'agents.defaults.tools' : 'tools');
  if (defaultTools) defaults.tools = defaultTools;
  const defaultHb = heartbeat(rawDefaults.heartbeat, 'agents.defaults.heartbeat');
  if (defaultHb) defaults.heartbeat = defaultHb;
  // Spoken replies: the top-level tts, else the messages.tts older releases wrote, for every agent.
  const legacyTts = isObj(root.messages) ? root.messages.tts : undefined;
  const ttsAt = root.tts !== undefined ? 'tts' : 'messages.tts';
  if (onOpenclaw && (root.tts ?? legacyTts) !== undefined) skip(ttsAt, TTS_ON_OPENCLAW);
  const fleetTts = onOpenclaw ? undefined : ttsOf(root.tts ?? legacyTts, ttsAt, { skip, note: (text) => notes.push(text) }, referencedName, true);
  if (fleetTts) defaults.tts = fleetTts;
  if (root.tts !== undefined && legacyTts !== undefined) skip('messages.tts', 'the top-level tts is the one converted (OpenClaw reads it first)');
  leftovers(rawDefaults, new Set([...DEFAULTS_KEYS, ...workspaceKeys]), 'agents.defaults');
  if (typeof rawDefaults.workspace === 'string' && !opts.workspaces) skip('agents.defaults.workspace', workspaceReason);
  leftovers(agentsRoot, new Set(['list', 'entries', 'defaults']), 'agents');

  // ── MCP servers: global in OpenClaw, per agent in clawfleet (each agent runs its own) ──
  const mcpServers: Obj = {};
  const mcp = isObj(root.mcp) ? root.mcp : {};
  const servers = isObj(mcp.servers) ? mcp.servers : {};
  const mcpSecretNames: { name: string; from: string }[] = [];
  for (const [rawName, raw] of Object.entries(servers)) {
    const at = `mcp.servers.${rawName}`;
    if (!isObj(raw)) continue;
    const name = sanitizeId(rawName);
    const refs = (values: unknown, kind: string): Record<string, string> => {
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(isObj(values) ? values : {})) {
        const text = asStr(v) ?? '';
        const named = referencedName(text);
        const secret = named ?? secretNameFor(name, k);
        if (!named && /\$\{/.test(text))
          notes.push(`${at}.${kind}.${k}: the secret ${secret} must hold the whole value (a template like "Bearer \${…}" is not expanded)`);
        out[k] = secret;
        mcpSecretNames.push({ name: secret, from: `${at}.${kind}.${k}` });
      }
      return out;
    };
    if (typeof raw.command === 'string') {
      const server: Obj = { command: raw.command };
      if (Array.isArray(raw.args)) server.args = raw.args.map(String);
      if (isObj(raw.env) && Object.keys(raw.env).length) server.env = refs(raw.env, 'env');
      mcpServers[name] = server;
      leftovers(raw, new Set(['command', 'args', 'env', 'transport']), at);
    } else if (typeof raw.url === 'string') {
      const server: Obj = { url: raw.url };
      if (isObj(raw.headers) && Object.keys(raw.headers).length) server.headers = refs(raw.headers, 'headers');
      if (raw.transport === 'sse') notes.push(`${at}: transport "sse" — clawfleet speaks streamable HTTP to remote servers`);
      mcpServers[name] = server;
      leftovers(raw, new Set(['url', 'headers', 'transport', 'type']), at, 'remote MCP options other than url and headers are not converted');
    } else skip(at, 'neither a command nor a url');
  }
  leftovers(mcp, new Set(['servers']), 'mcp');
  if (Object.keys(mcpServers).length) {
    for (const agent of agents) {
      agent.mcp = { servers: structuredClone(mcpServers) };
      agent.secrets = [...new Set(mcpSecretNames.map((s) => s.name))];
      for (const s of mcpSecretNames) secrets.push({ scope: { agent: agent.id as string }, name: s.name, from: s.from });
    }
    notes.push('mcp.servers are global in OpenClaw; each clawfleet agent gets its own copy (and its own secret values)');
  }

  // ── Telegram ──────────────────────────────────────────────────────────────────
  const channels = isObj(root.channels) ? root.channels : {};
  let telegram: Obj | undefined;
  const telegramAccounts = new Set<string>();
  const rawTelegram = isObj(channels.telegram) ? channels.telegram : undefined;
  // Streaming, ack reactions, reply threading and commands: clawfleet keeps them per channel and account.
  const reporter = { skip, note: (text: string) => notes.push(text) };
  const fleetConversation = fleetWideConversation(root, rawDefaults, !!rawTelegram && rawTelegram.enabled !== false, reporter);
  if (rawTelegram && rawTelegram.enabled === false) skip('channels.telegram', 'disabled (enabled: false)');
  else if (rawTelegram) {
    const tokenName = (accountId: string, raw: unknown, at: string): string => {
      const named = typeof raw === 'string' ? referencedName(raw) : undefined;
      const name = named ?? (accountId === 'default' ? 'TELEGRAM_BOT_TOKEN' : secretNameFor('TELEGRAM', accountId, 'BOT_TOKEN'));
      secrets.push({ scope: { control: 'telegram' }, name, from: at });
      return name;
    };
    const policyOf = (raw: Obj, at: string): Obj => {
      const out: Obj = {};
      if (typeof raw.dmPolicy === 'string') out.dmPolicy = raw.dmPolicy;
      if (Array.isArray(raw.allowFrom)) out.allowFrom = raw.allowFrom.map((x) => String(x));
      return out;
    };
    const accounts: Obj = {};
    const accountKeys = new Set(['botToken', 'dmPolicy', 'allowFrom', ...CONVERSATION_KEYS]);
    if (isObj(rawTelegram.accounts)) {
      for (const [rawId, raw] of Object.entries(rawTelegram.accounts)) {
        const at = `channels.telegram.accounts.${rawId}`;
        if (!isObj(raw)) continue;
        if (raw.enabled === false) {
          skip(at, 'disabled (enabled: false)');
          continue;
        }
        const id = sanitizeId(rawId);
        if (raw.botToken === undefined) {
          skip(at, raw.tokenFile ? 'tokenFile is not supported: store the token with `clawfleet secrets set --control telegram`' : 'no botToken');
        }
        accounts[id] = {
          botTokenSecret: tokenName(id, raw.botToken, `${at}.botToken`),
          ...policyOf(raw, at),
          ...conversationOf(raw, at, fleetConversation, reporter, rawTelegram),
        };
        telegramAccounts.add(id);
        leftovers(raw, new Set([...accountKeys, 'enabled']), at, 'per-account Telegram setting with no clawfleet equivalent');
      }
    }
    if (rawTelegram.botToken !== undefined || (!Object.keys(accounts).length && rawTelegram.tokenFile === undefined)) {
      // The single-account shape: its token is the default account's.
      if (rawTelegram.botToken !== undefined) {
        accounts.default = {
          ...(accounts.default as Obj | undefined),
          botTokenSecret: tokenName('default', rawTelegram.botToken, 'channels.telegram.botToken'),
        };
        telegramAccounts.add('default');
      }
    }
    if (rawTelegram.tokenFile !== undefined)
      skip('channels.telegram.tokenFile', 'not supported: store the token with `clawfleet secrets set TELEGRAM_BOT_TOKEN --control telegram`');
    if (Object.keys(accounts).length) {
      telegram = { ...policyOf(rawTelegram, 'channels.telegram'), ...conversationOf(rawTelegram, 'channels.telegram', fleetConversation, reporter), accounts };
      if (isObj(rawTelegram.groups)) {
        const groups: Obj = {};
        for (const [gid, g] of Object.entries(rawTelegram.groups)) {
          if (!isObj(g)) continue;
          const topics = topicsOf(g.topics, `channels.telegram.groups.${gid}.topics`, agentOf, reporter);
          groups[gid] = {
            ...(typeof g.requireMention === 'boolean' ? { requireMention: g.requireMention } : {}),
            ...(Array.isArray(g.allowFrom) ? { allowFrom: g.allowFrom.map(String) } : {}),
            ...(topics ? { topics } : {}),
          };
          leftovers(g, new Set(['requireMention', 'allowFrom', 'topics']), `channels.telegram.groups.${gid}`);
        }
        telegram.groups = groups;
      }
      if (telegram.dmPolicy === 'open' && !(telegram.allowFrom as string[] | undefined)?.includes('*'))
        notes.push('channels.telegram: dmPolicy "open" lets anyone who finds the bot talk to it');
    } else skip('channels.telegram', 'no bot token or accounts to convert');
    leftovers(
      rawTelegram,
      new Set(['enabled', 'botToken', 'tokenFile', 'accounts', 'dmPolicy', 'allowFrom', 'groups', ...CONVERSATION_KEYS]),
      'channels.telegram',
      'Telegram setting with no clawfleet equivalent',
    );
  }
  for (const name of Object.keys(channels)) if (name !== 'telegram') skip(`channels.${name}`, 'clawfleet supports the Telegram channel only');

  // ── Bindings ──────────────────────────────────────────────────────────────────
  const bindings: Obj[] = [];
  (Array.isArray(root.bindings) ? root.bindings : []).forEach((b, i) => {
    const at = `bindings[${i}]`;
    if (!isObj(b) || !isObj(b.match)) return skip(at, 'not a binding');
    if (b.type !== undefined && b.type !== 'route') return skip(at, `binding type "${String(b.type)}" is not supported`);
    if (b.match.channel !== 'telegram') return skip(at, `channel "${String(b.match.channel)}" is not supported (Telegram only)`);
    const agentId = agentOf(b.agentId);
    if (!agentId) return skip(at, `agent "${String(b.agentId)}" is not in the converted agents`);
    const match: Obj = { channel: 'telegram' };
    const account = asStr(b.match.accountId);
    if (account === undefined) {
      // OpenClaw: no accountId = the default account only.
      if (telegramAccounts.has('default')) match.accountId = 'default';
    } else if (account !== '*') {
      const id = sanitizeId(account);
      if (!telegramAccounts.has(id)) return skip(at, `telegram account "${account}" was not converted`);
      match.accountId = id;
    }
    if (isObj(b.match.peer)) {
      const kind = b.match.peer.kind === 'dm' || b.match.peer.kind === 'direct' ? 'direct' : b.match.peer.kind === 'group' ? 'group' : undefined;
      if (!kind) return skip(`${at}.match.peer`, `peer kind "${String(b.match.peer.kind)}" is not supported (direct or group)`);
      match.peer = { kind, id: String(b.match.peer.id) };
    }
    leftovers(b.match, new Set(['channel', 'accountId', 'peer']), `${at}.match`, 'binding match field with no Telegram meaning');
    leftovers(b, new Set(['agentId', 'match', 'type']), at);
    bindings.push({ agentId, match });
  });

  // With no ackReaction anywhere, OpenClaw reacts with the emoji of the agent that owns the
  // account (its identity), else 👀: each such account gets its owner's emoji as its own.
  if (telegram && telegram.ackReaction === undefined) {
    const owns = (accountId: string | undefined) => bindings.find((b) => (b.match as Obj).accountId === accountId && !(b.match as Obj).peer)?.agentId;
    for (const [accountId, account] of Object.entries(telegram.accounts as Record<string, Obj>)) {
      if (account.ackReaction !== undefined) continue;
      const owner = (owns(accountId) ?? owns(undefined) ?? defaultAgent) as string;
      const emoji = identityEmoji.get(owner);
      if (!emoji) continue;
      if (!isReactionEmoji(emoji))
        skip(
          `channels.telegram.accounts.${accountId}`,
          `agent "${owner}"'s identity emoji "${emoji}" is not one of the reaction emoji Telegram takes, so the ack reaction stays 👀`,
        );
      else {
        account.ackReaction = reactionSpelling(emoji);
        notes.push(
          `channels.telegram.accounts.${accountId}: ackReaction "${account.ackReaction}", the identity emoji of agent "${owner}" (OpenClaw's ack reaction when none is set)`,
        );
      }
    }
  }

  // ── Cron jobs (OpenClaw keeps them in cron/jobs.json, not in the config) ─────────
  const cronJobs: Obj[] = [];
  const jobList = isObj(opts.cronJobs) && Array.isArray(opts.cronJobs.jobs) ? opts.cronJobs.jobs : Array.isArray(opts.cronJobs) ? opts.cronJobs : [];
  const src = opts.cronSource ?? 'cron jobs';
  const usedJobIds = new Set<string>();
  jobList.forEach((j, i) => {
    const at = `${src}: jobs[${i}]`;
    if (!isObj(j)) return;
    const rawId = asStr(j.jobId) ?? asStr(j.id) ?? asStr(j.name) ?? `job-${i + 1}`;
    let id = sanitizeId(rawId);
    while (usedJobIds.has(id)) id = sanitizeId(`${id.slice(0, 20)}-${i + 1}`);
    usedJobIds.add(id);
    if (j.enabled === false) return skip(at, `job "${rawId}" is disabled`);
    const agentId = j.agentId === undefined ? defaultAgent : agentOf(j.agentId);
    if (!agentId) return skip(at, `agent "${String(j.agentId)}" is not in the converted agents`);
    const s = isObj(j.schedule) ? j.schedule : {};
    let schedule: Obj | undefined;
    if (s.kind === 'at' && typeof s.at === 'string') schedule = { kind: 'at', at: /[zZ]|[+-]\d\d:?\d\d$/.test(s.at) ? s.at : `${s.at}Z` };
    else if (s.kind === 'every' && typeof s.everyMs === 'number') {
      const every = msToDuration(s.everyMs);
      if (every) schedule = { kind: 'every', every };
    } else if (s.kind === 'cron' && typeof s.expr === 'string') schedule = { kind: 'cron', expr: s.expr, ...(typeof s.tz === 'string' ? { tz: s.tz } : {}) };
    if (!schedule) return skip(`${at}.schedule`, `schedule ${JSON.stringify(s)} cannot be expressed`);
    const p = isObj(j.payload) ? j.payload : {};
    const payload =
      p.kind === 'systemEvent' && typeof p.text === 'string' && p.text
        ? { kind: 'systemEvent', text: p.text }
        : p.kind === 'agentTurn' && typeof p.message === 'string' && p.message
          ? { kind: 'agentTurn', message: p.message }
          : undefined;
    if (!payload) return skip(`${at}.payload`, 'payload is neither a systemEvent with text nor an agentTurn with a message');
    leftovers(p, new Set(['kind', 'text', 'message']), `${at}.payload`, 'per-run model, thinking and timeout overrides are not converted');
    const job: Obj = { id, agentId, schedule, sessionTarget: j.sessionTarget === 'isolated' ? 'isolated' : 'main', payload };
    const d = isObj(j.delivery) ? j.delivery : undefined;
    if (d) {
      if (d.mode === 'none') job.delivery = { mode: 'none' };
      else if (d.mode === 'announce' || d.mode === undefined) {
        if (d.channel === undefined || d.channel === 'last' || d.channel === 'telegram') {
          job.delivery = {
            mode: 'announce',
            ...(typeof d.to === 'string' ? { to: d.to } : {}),
            ...(typeof d.accountId === 'string' ? { accountId: sanitizeId(d.accountId) } : {}),
          };
        } else skip(`${at}.delivery`, `delivery to channel "${String(d.channel)}" is not supported (Telegram only); the job runs without announcing`);
      } else skip(`${at}.delivery`, `delivery mode "${String(d.mode)}" is not supported`);
    }
    leftovers(
      j,
      new Set([
        'jobId',
        'id',
        'name',
        'agentId',
        'schedule',
        'sessionTarget',
        'payload',
        'delivery',
        'enabled',
        'wakeMode',
        'deleteAfterRun',
        'createdAtMs',
        'updatedAtMs',
        'state',
        'description',
      ]),
      at,
    );
    cronJobs.push(job);
  });
  if (isObj(root.cron)) leftovers(root.cron, new Set(['jobs']), 'cron', 'scheduler settings are not converted (EventBridge Scheduler on AWS)');

  // ── Hooks ─────────────────────────────────────────────────────────────────────
  let hooks: Obj | undefined;
  const rawHooks = isObj(root.hooks) ? root.hooks : undefined;
  if (rawHooks && rawHooks.enabled !== false) {
    const tokenSecret = (typeof rawHooks.token === 'string' && referencedName(rawHooks.token)) || 'HOOKS_TOKEN';
    secrets.push({ scope: { control: 'hooks' }, name: tokenSecret, from: 'hooks.token' });
    const mappings: Obj = {};
    (Array.isArray(rawHooks.mappings) ? rawHooks.mappings : []).forEach((m, i) => {
      const at = `hooks.mappings[${i}]`;
      if (!isObj(m)) return;
      const path = isObj(m.match) ? asStr(m.match.path) : undefined;
      const name = sanitizeId(path ?? asStr(m.id) ?? `hook-${i + 1}`);
      const template = asStr(m.messageTemplate) ?? asStr(m.textTemplate);
      if (!template) return skip(at, 'no messageTemplate or textTemplate');
      const agentId = m.agentId === undefined ? defaultAgent : agentOf(m.agentId);
      if (!agentId) return skip(at, `agent "${String(m.agentId)}" is not in the converted agents`);
      // clawfleet templates read the request body as `body`.
      const rewrite = (t: string) => t.replace(/\{\{\s*(?!body\.)([^}]+?)\s*\}\}/g, '{{body.$1}}');
      mappings[name] = { agentId, messageTemplate: rewrite(template), ...(typeof m.sessionKey === 'string' ? { sessionKey: rewrite(m.sessionKey) } : {}) };
      if (m.messageTemplate && m.textTemplate) skip(`${at}.textTemplate`, 'only one template is kept (messageTemplate)');
      leftovers(
        m,
        new Set(['id', 'match', 'messageTemplate', 'textTemplate', 'agentId', 'sessionKey', 'action', 'name']),
        at,
        'hook mapping option with no clawfleet equivalent',
      );
    });
    hooks = { tokenSecret, ...(Object.keys(mappings).length ? { mappings } : {}) };
    leftovers(
      rawHooks,
      new Set(['enabled', 'token', 'mappings', 'path']),
      'hooks',
      'hook option with no clawfleet equivalent (presets and transforms are not supported)',
    );
  }

  // ── Sessions and agent-to-agent ───────────────────────────────────────────────
  let session: Obj | undefined;
  if (isObj(root.session)) {
    const scope = root.session.dmScope;
    if (typeof scope === 'string' && ['main', 'per-peer', 'per-channel-peer', 'per-account-channel-peer'].includes(scope)) session = { dmScope: scope };
    leftovers(root.session, new Set(['dmScope']), 'session', 'session lifecycle settings are not converted (the runtime keeps transcripts in its workspace)');
  }
  let agentToAgent: Obj | undefined;
  const a2a = isObj(root.tools) && isObj(root.tools.agentToAgent) ? root.tools.agentToAgent : undefined;
  if (a2a?.enabled === true && Array.isArray(a2a.allow)) {
    const ids = a2a.allow.map(agentOf).filter((x): x is string => !!x);
    const allow = ids.flatMap((from) => ids.filter((to) => to !== from).map((to) => ({ from, to })));
    if (allow.length) agentToAgent = { allow };
  }
  // Unless agents.defaults.tools took precedence, toolPolicy() above already reported root.tools.
  if (isObj(root.tools) && rawDefaults.tools)
    leftovers(root.tools, new Set(['agentToAgent']), 'tools', 'fleet-wide tool settings are not converted when agents.defaults.tools is set');
  if (isObj(root.identity) && rawAgents.length === 1)
    leftovers(root.identity, new Set(['name']), 'identity', 'identity other than the name lives in the workspace (IDENTITY.md) in clawfleet');

  // messages and commands: fleetWideConversation() converted what applies to Telegram and reported the rest.
  const handled = new Set([
    'agents',
    'agent',
    'models',
    'channels',
    'bindings',
    'mcp',
    'hooks',
    'cron',
    'session',
    'tools',
    '$schema',
    'identity',
    'messages',
    'commands',
    'tts',
  ]);
  for (const key of Object.keys(root)) if (!handled.has(key)) skip(key, 'no clawfleet equivalent');
  if (isObj(root.identity) && rawAgents.length > 1) skip('identity', 'a fleet-wide identity: set each agent’s name instead');

  const config: Obj = {
    fleet: opts.fleet,
    agents: { defaults, list: agents },
    models: { providers },
    ...(bindings.length ? { bindings } : {}),
    ...(session ? { session } : {}),
    ...(telegram ? { channels: { telegram } } : {}),
    ...(cronJobs.length ? { cron: { jobs: cronJobs } } : {}),
    ...(hooks ? { hooks } : {}),
    ...(agentToAgent ? { agentToAgent } : {}),
  };
  return { config, secrets: dedupeSecrets(secrets), notConverted, notes };
}

function dedupeSecrets(list: SecretToSet[]): SecretToSet[] {
  const seen = new Set<string>();
  return list.filter((s) => {
    const key = `${JSON.stringify(s.scope)}:${s.name}`;
    if (seen.has(key) || !SECRET_NAME.test(s.name)) return false;
    seen.add(key);
    return true;
  });
}
