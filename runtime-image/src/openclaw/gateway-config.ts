// The openclaw.json a managed gateway runs on, written from the agent's clawfleet config:
// one agent (this one), its model providers with keys from its own secret only, its
// workspace, its MCP servers and tools allow/deny (OpenClaw's own keys of the same meaning),
// and everything the control plane owns turned off inside it — no channel, no cron, no
// hooks, no heartbeat runner, no Control UI, a listener on loopback only, and the tools that
// would act on a channel, the gateway or another agent denied (docs/runtime.md).
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';
import { ClawfleetError } from '../../../shared/errors.ts';

/** Where each wire API's provider is, when the clawfleet config gives no baseUrl. */
const DEFAULT_BASE_URLS: Record<string, string> = {
  'anthropic-messages': 'https://api.anthropic.com',
  'openai-completions': 'https://api.openai.com/v1',
};

/**
 * OpenClaw tools the control plane owns the effect of: sending on a channel (message),
 * scheduling (cron), reconfiguring or restarting the gateway (gateway), remote devices
 * (nodes), and talking to another agent's sessions (sessions_send: across agents that is
 * clawfleet's relay, agentToAgent). Also the two that change the gateway from a chat —
 * installing, enabling or reloading plugins (plugins) and OpenClaw's setup and repair
 * helper (openclaw) — since clawfleet writes this gateway's config and plugins are not
 * carried (docs/runtime.md); neither is offered by default, but an agent's tools.allow
 * could ask for them, and this global deny wins over it.
 */
export const DENIED_TOOLS = ['message', 'cron', 'gateway', 'nodes', 'sessions_send', 'plugins', 'openclaw'] as const;

export interface GatewayConfigInputs {
  config: RuntimeConfig;
  /** This agent's own secret values. */
  secrets: Record<string, string>;
  port: number;
  /** The token the bridge made for this gateway's life. */
  token: string;
  workspace: string;
  logFile: string;
}

/**
 * A secret value as OpenClaw must read it: its config expands `${NAME}` from the gateway's
 * environment (which holds no secret, but a HOME and paths), so a value that happens to
 * contain one is escaped (`$${NAME}`, OpenClaw's literal) and reaches its consumer as set.
 */
export function literal(value: string): string {
  // A function, not a replacement string: there "$$" would mean one "$".
  return value.replace(/\$\{(?=[A-Z_][A-Z0-9_]*\})/g, () => '$${');
}

/** A value of the agent's own secret, or a clear error (the runtime waits for every one it needs before it starts a gateway). */
function secretValue(i: GatewayConfigInputs, name: string, usedBy: string): string {
  const value = i.secrets[name];
  if (value === undefined) throw new ClawfleetError('SECRET_MISSING', `${usedBy} needs the value "${name}" in this agent's secret, which has none`);
  return literal(value);
}

/**
 * The agent's MCP servers as OpenClaw's `mcp.servers` (its config schema in 2026.9.6,
 * src/config/zod-schema.mcp-server.ts): a stdio server runs in the agent's workspace, as the
 * native runtime runs it; a url server is spoken to over streamable HTTP, as native does.
 * Secret names become this agent's values, in this file only (0600; the gateway's
 * environment stays free of them). OpenClaw names each tool `<server>__<tool>`, as native.
 */
function mcpServers(i: GatewayConfigInputs): Record<string, unknown> | undefined {
  const servers = Object.entries(i.config.agent.mcp?.servers ?? {});
  if (servers.length === 0) return undefined;
  const out: Record<string, unknown> = {};
  for (const [name, server] of servers) {
    const values = (refs: Record<string, string> | undefined, what: string) =>
      Object.fromEntries(Object.entries(refs ?? {}).map(([k, secret]) => [k, secretValue(i, secret, `MCP server "${name}" (${what} ${k})`)]));
    out[name] =
      'command' in server
        ? { command: server.command, args: server.args ?? [], env: values(server.env, 'env'), cwd: i.workspace, transport: 'stdio' }
        : { url: server.url, transport: 'streamable-http', headers: values(server.headers, 'header') };
  }
  return out;
}

/** The agent's `tools.allow` / `tools.deny`, as OpenClaw's per-agent lists (same names, `*` globs and groups; clawfleet's `group:mcp` is OpenClaw's `*__*`). */
function agentTools(i: GatewayConfigInputs): Record<string, string[]> | undefined {
  const { allow, deny } = i.config.agent.tools ?? {};
  const names = (list: string[]) => list.map((t) => (t === 'group:mcp' ? '*__*' : t));
  if (!allow && !deny) return undefined;
  return { ...(allow ? { allow: names(allow) } : {}), ...(deny ? { deny: names(deny) } : {}) };
}

export function gatewayConfig(i: GatewayConfigInputs): Record<string, unknown> {
  const agent = i.config.agent;
  const mcp = mcpServers(i);
  const tools = agentTools(i);
  const providers: Record<string, unknown> = {};
  for (const ref of [agent.model.primary, ...agent.model.fallbacks]) {
    const name = ref.slice(0, ref.indexOf('/'));
    const provider = i.config.providers[name];
    if (!provider) throw new ClawfleetError('PROVIDER_UNKNOWN', `model "${ref}" names provider "${name}", which this agent's config does not carry`);
    const baseUrl = provider.baseUrl ?? DEFAULT_BASE_URLS[provider.api];
    if (!baseUrl) throw new ClawfleetError('RUNTIME_KIND_UNSUPPORTED', `provider "${name}" (${provider.api}) is not supported by runtime.kind "openclaw" yet`);
    const apiKey = provider.apiKeySecret ? i.secrets[provider.apiKeySecret] : undefined;
    providers[name] = { baseUrl, api: provider.api, ...(apiKey ? { apiKey: literal(apiKey) } : {}), models: [] };
  }
  return {
    gateway: {
      mode: 'local',
      port: i.port,
      bind: 'loopback',
      auth: { mode: 'token', token: i.token },
      controlUi: { enabled: false },
      tailscale: { mode: 'off' },
    },
    // No update check or telemetry: the release is pinned, and the agent's compute need not call home.
    update: { checkOnStart: false },
    logging: { file: i.logFile },
    cron: { enabled: false },
    hooks: { enabled: false },
    agents: {
      defaults: { heartbeat: { every: '0m' }, systemAgent: { agentId: agent.id } },
      entries: {
        [agent.id]: {
          name: agent.name ?? agent.id,
          model: { primary: agent.model.primary, fallbacks: agent.model.fallbacks },
          workspace: i.workspace,
          // agents.list[].skills is OpenClaw's own allow list (agents.entries.*.skills), same meaning.
          ...(agent.skills ? { skills: agent.skills } : {}),
          ...(tools ? { tools } : {}),
        },
      },
    },
    models: { providers },
    ...(mcp ? { mcp: { servers: mcp } } : {}),
    tools: { deny: [...DENIED_TOOLS] },
  };
}
