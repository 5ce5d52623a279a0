// The runtime's own secret: read from its own secret only (clawfleet/<fleet>/agents/<id>);
// the values its config names are waited for before it takes work (secret-wait.ts).
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';
import { agentSecretName } from '../../../shared/config/names.ts';
import { ConfigError } from '../../../shared/errors.ts';

/** The secret id must name this agent's own secret, by name or by ARN. */
export function checkOwnSecretId(config: RuntimeConfig, secretId: string): void {
  const own = agentSecretName(config.fleet, config.agent.id);
  const arnName = /:secret:(.+?)(-[A-Za-z0-9]{6})?$/.exec(secretId)?.[1];
  if (secretId === own || arnName === own) return;
  throw new ConfigError([{ path: 'CLAWFLEET_SECRET_ID', message: `names "${secretId}", which is not this agent's secret "${own}"` }], 'runtime environment');
}
