// The openclaw.json a managed gateway runs on, written from the agent's clawfleet config:
// one agent (this one), its model providers with keys from its own secret only, its
// workspace, and everything the control plane owns turned off inside it — no channel, no
// cron, no hooks, no heartbeat runner, no Control UI, a listener on loopback only, and the
// tools that would act on a channel, the gateway or another agent denied (docs/runtime.md).
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
 * clawfleet's relay, agentToAgent).
 */
export const DENIED_TOOLS = ['message', 'cron', 'gateway', 'nodes', 'sessions_send'] as const;

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

export function gatewayConfig(i: GatewayConfigInputs): Record<string, unknown> {
  const agent = i.config.agent;
  const providers: Record<string, unknown> = {};
  for (const ref of [agent.model.primary, ...agent.model.fallbacks]) {
    const name = ref.slice(0, ref.indexOf('/'));
    const provider = i.config.providers[name];
    if (!provider) throw new ClawfleetError('PROVIDER_UNKNOWN', `model "${ref}" names provider "${name}", which this agent's config does not carry`);
    const baseUrl = provider.baseUrl ?? DEFAULT_BASE_URLS[provider.api];
    if (!baseUrl) throw new ClawfleetError('RUNTIME_KIND_UNSUPPORTED', `provider "${name}" (${provider.api}) is not supported by runtime.kind "openclaw" yet`);
    const apiKey = provider.apiKeySecret ? i.secrets[provider.apiKeySecret] : undefined;
    providers[name] = { baseUrl, api: provider.api, ...(apiKey ? { apiKey } : {}), models: [] };
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
        },
      },
    },
    models: { providers },
    tools: { deny: [...DENIED_TOOLS] },
  };
}
