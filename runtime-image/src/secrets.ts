// The runtime's own secrets: read from its own secret only (clawfleet/<fleet>/agents/<id>),
// and every value its config names must be there. A missing one is a startup error that
// names the secret and the value's name, never a value.
import type { RuntimeConfig } from '../../shared/config/resolve.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { searchKeyName } from '../../shared/config/schema.ts';
import { ConfigError, type ConfigIssue } from '../../shared/errors.ts';
import { mcpSecretNames } from './mcp/mcp-secret-names.ts';

/** The secret id must name this agent's own secret, by name or by ARN. */
export function checkOwnSecretId(config: RuntimeConfig, secretId: string): void {
  const own = agentSecretName(config.fleet, config.agent.id);
  const arnName = /:secret:(.+?)(-[A-Za-z0-9]{6})?$/.exec(secretId)?.[1];
  if (secretId === own || arnName === own) return;
  throw new ConfigError([{ path: 'CLAWFLEET_SECRET_ID', message: `names "${secretId}", which is not this agent's secret "${own}"` }], 'runtime environment');
}

/** Every secret name the agent's config refers to, with what needs it. */
export function requiredSecrets(config: RuntimeConfig, opts: { modelKeys: boolean }): { name: string; usedBy: string }[] {
  const out: { name: string; usedBy: string }[] = [];
  for (const name of config.agent.secrets ?? []) out.push({ name, usedBy: 'agents.list[].secrets' });
  if (opts.modelKeys) {
    for (const ref of [config.agent.model.primary, ...config.agent.model.fallbacks]) {
      const providerName = ref.slice(0, ref.indexOf('/'));
      const key = config.providers[providerName]?.apiKeySecret;
      if (key) out.push({ name: key, usedBy: `the API key of provider "${providerName}"` });
    }
  }
  for (const [variable, name] of Object.entries(config.agent.tools?.exec?.env ?? {})) out.push({ name, usedBy: `exec's ${variable} (tools.exec.env)` });
  const search = config.agent.tools?.web?.search;
  if (search) out.push({ name: searchKeyName(search), usedBy: 'web_search (tools.web.search)' });
  for (const [id, server] of Object.entries(config.agent.mcp?.servers ?? {})) {
    for (const name of mcpSecretNames({ [id]: server })) out.push({ name, usedBy: `MCP server "${id}"` });
  }
  return out;
}

export function checkSecrets(config: RuntimeConfig, secretId: string, values: Record<string, string>, opts: { modelKeys: boolean }): void {
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const { name, usedBy } of requiredSecrets(config, opts)) {
    if (seen.has(name) || values[name] !== undefined) continue;
    seen.add(name);
    issues.push({ path: name, message: `is missing from secret "${secretId}" (needed by ${usedBy})` });
  }
  if (issues.length > 0) throw new ConfigError(issues, `secret "${secretId}"`);
}
