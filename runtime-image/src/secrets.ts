// The runtime's own secrets: read from its own secret only (clawfleet/<fleet>/agents/<id>),
// and every value its config names must be there. A missing one is a startup error that
// names the secret and the value's name, never a value.
import type { RuntimeConfig } from '../../shared/config/resolve.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { ConfigError, type ConfigIssue } from '../../shared/errors.ts';
import { secretsNeeded } from '../../shared/secrets/agent-secrets.ts';

/** The secret id must name this agent's own secret, by name or by ARN. */
export function checkOwnSecretId(config: RuntimeConfig, secretId: string): void {
  const own = agentSecretName(config.fleet, config.agent.id);
  const arnName = /:secret:(.+?)(-[A-Za-z0-9]{6})?$/.exec(secretId)?.[1];
  if (secretId === own || arnName === own) return;
  throw new ConfigError([{ path: 'CLAWFLEET_SECRET_ID', message: `names "${secretId}", which is not this agent's secret "${own}"` }], 'runtime environment');
}

export function checkSecrets(config: RuntimeConfig, secretId: string, values: Record<string, string>, opts: { modelKeys: boolean }): void {
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  for (const { name, usedBy } of secretsNeeded(config, opts)) {
    if (seen.has(name) || values[name] !== undefined) continue;
    seen.add(name);
    issues.push({ path: name, message: `is missing from secret "${secretId}" (needed by ${usedBy})` });
  }
  if (issues.length > 0) throw new ConfigError(issues, `secret "${secretId}"`);
}
