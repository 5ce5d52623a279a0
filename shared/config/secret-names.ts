// The secret values a config names, by the secret that holds them: each agent's own secret
// (its `secrets`, its providers' `apiKeySecret`, its MCP servers' env and headers) and the
// control plane's (bot tokens, the hooks token, the dashboard token). One list for the
// runtime (what it waits for), `clawfleet secrets list` and `clawfleet deploy` (what it asks for).
import { DASHBOARD_TOKEN_NAME } from '../dashboard/auth.ts';
import { agentSecretName, dashboardSecretName, hooksSecretName, telegramSecretName } from './names.ts';
import type { RuntimeConfig } from './resolve.ts';
import { runtimeConfigFor } from './resolve.ts';
import type { FleetConfig } from './schema.ts';

export interface NeededValue {
  name: string;
  /** What reads it, for messages: `the API key of provider "openai"`, `MCP server "graph"`. */
  usedBy: string;
  /** A random token clawfleet may make itself (the hooks and dashboard tokens); the rest only their issuers can. */
  generated?: boolean;
}

/** Every value an agent's config refers to, in config order (a name may repeat with another user). */
export function agentSecretValues(config: RuntimeConfig, opts: { modelKeys: boolean }): NeededValue[] {
  const out: NeededValue[] = [];
  for (const name of config.agent.secrets ?? []) out.push({ name, usedBy: 'agents.list[].secrets' });
  if (opts.modelKeys) {
    for (const ref of [config.agent.model.primary, ...config.agent.model.fallbacks]) {
      const providerName = ref.slice(0, ref.indexOf('/'));
      const key = config.providers[providerName]?.apiKeySecret;
      if (key) out.push({ name: key, usedBy: `the API key of provider "${providerName}"` });
    }
  }
  for (const [id, server] of Object.entries(config.agent.mcp?.servers ?? {})) {
    for (const name of Object.values('command' in server ? (server.env ?? {}) : (server.headers ?? {}))) out.push({ name, usedBy: `MCP server "${id}"` });
  }
  return out;
}

export interface SecretNeed {
  secretId: string;
  /** agent <id>, telegram, hooks or dashboard. */
  label: string;
  agentId?: string;
  /** Each name once, with its first user. */
  values: NeededValue[];
}

/** Every secret the deployed fleet has, and the values each should hold. */
export function fleetSecretNeeds(config: FleetConfig): SecretNeed[] {
  const fleet = config.fleet;
  const needs: SecretNeed[] = [];
  const telegram = config.channels.telegram;
  if (telegram) {
    needs.push({ secretId: telegramSecretName(fleet), label: 'telegram', values: Object.entries(telegram.accounts).map(([id, a]) => ({ name: a.botTokenSecret, usedBy: `the bot of account "${id}"` })) });
  }
  if (config.hooks) needs.push({ secretId: hooksSecretName(fleet), label: 'hooks', values: [{ name: config.hooks.tokenSecret, usedBy: 'the hooks URL’s callers', generated: true }] });
  needs.push({ secretId: dashboardSecretName(fleet), label: 'dashboard', values: [{ name: DASHBOARD_TOKEN_NAME, usedBy: 'the dashboard’s sign-in', generated: true }] });
  for (const agent of config.agents.list) {
    needs.push({ secretId: agentSecretName(fleet, agent.id), label: `agent ${agent.id}`, agentId: agent.id, values: agentSecretValues(runtimeConfigFor(config, agent.id), { modelKeys: true }) });
  }
  return needs.map((n) => ({ ...n, values: n.values.filter((v, i) => n.values.findIndex((w) => w.name === v.name) === i) }));
}
