// Loading the fleet config for a command: a missing or invalid file is an input error
// (exit 3) that lists every problem with its path.
import { resolve } from 'node:path';
import { loadConfigFile } from '../shared/config/load.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { ConfigError } from '../shared/errors.ts';
import { CliError, EXIT, type CliIO } from './command.ts';

export function loadFleetConfig(path: string, io: CliIO): FleetConfig {
  try {
    return loadConfigFile(resolve(io.cwd, path));
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(EXIT.invalid, err.message);
    throw err;
  }
}

export function requireAgent(config: FleetConfig, agentId: string | undefined, help: string): string {
  if (!agentId) throw new CliError(EXIT.usage, `--agent <id> is required\n\n${help}`);
  if (!config.agents.list.some((a) => a.id === agentId)) {
    throw new CliError(EXIT.usage, `no agent "${agentId}" in fleet "${config.fleet}"; agents: ${config.agents.list.map((a) => a.id).join(', ')}`);
  }
  return agentId;
}
