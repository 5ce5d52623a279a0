// The runtime's own secrets: read from its own secret only (clawfleet/<fleet>/agents/<id>),
// and every value its config names must be there before it takes work: a missing one is
// waited for (secret-wait.ts), named with its secret, never shown.
import type { RuntimeConfig } from '../../shared/config/resolve.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import { ConfigError } from '../../shared/errors.ts';
import { agentSecretValues } from '../../shared/config/secret-names.ts';

/** The secret id must name this agent's own secret, by name or by ARN. */
export function checkOwnSecretId(config: RuntimeConfig, secretId: string): void {
  const own = agentSecretName(config.fleet, config.agent.id);
  const arnName = /:secret:(.+?)(-[A-Za-z0-9]{6})?$/.exec(secretId)?.[1];
  if (secretId === own || arnName === own) return;
  throw new ConfigError([{ path: 'CLAWFLEET_SECRET_ID', message: `names "${secretId}", which is not this agent's secret "${own}"` }], 'runtime environment');
}

/** Every secret name the agent's config refers to, with what needs it (shared/config/secret-names.ts). */
export function requiredSecrets(config: RuntimeConfig, opts: { modelKeys: boolean }): { name: string; usedBy: string }[] {
  return agentSecretValues(config, opts);
}
