// Where a fleet's own skills live: a skills/ folder beside its clawfleet.json (OpenClaw's
// "managed" skills, shared by every agent of the fleet; each agent's workspace skills/ wins).
import { dirname, join } from 'node:path';

export function fleetSkillsDir(configPath: string): string {
  return join(dirname(configPath), 'skills');
}
