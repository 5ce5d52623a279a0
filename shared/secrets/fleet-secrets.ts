// Every secret the deployed fleet has and the values each should hold: the control plane's
// (bot tokens, the hooks token, the dashboard token) and each agent's own (agent-secrets.ts).
// What `clawfleet deploy` asks for and `clawfleet secrets list` reports.
import { DASHBOARD_TOKEN_NAME } from '../dashboard/auth.ts';
import { agentSecretName, dashboardSecretName, hooksSecretName } from '../config/names.ts';
import { telegramAccountsBySecret } from './telegram-secrets.ts';
import { runtimeConfigFor } from '../config/resolve.ts';
import type { Placement } from '../config/runtime-kinds.ts';
import type { FleetConfig } from '../config/schema.ts';
import { secretsNeeded, type NeededValue } from './agent-secrets.ts';

export interface FleetSecretNeed {
  secretId: string;
  /** agent <id>, telegram, hooks or dashboard. */
  label: string;
  agentId?: string;
  /** Each name once, with its first user. */
  values: NeededValue[];
}

/** Every secret the fleet has, and the values each should hold where it runs (by default deployed: AWS). */
export function fleetSecretNeeds(config: FleetConfig, placement: Placement = 'aws'): FleetSecretNeed[] {
  const fleet = config.fleet;
  const needs: FleetSecretNeed[] = [];
  const telegram = config.channels.telegram;
  if (telegram) {
    // One secret up to 400 bots, more beyond (telegram-secrets.ts): each holds its accounts' tokens.
    for (const [secretId, accounts] of telegramAccountsBySecret(config)) {
      needs.push({
        secretId,
        label: secretId.slice(secretId.lastIndexOf('/') + 1),
        values: accounts.map((id) => ({ name: telegram.accounts[id]!.botTokenSecret, usedBy: `the bot of account "${id}"` })),
      });
    }
  }
  if (config.hooks)
    needs.push({
      secretId: hooksSecretName(fleet),
      label: 'hooks',
      values: [{ name: config.hooks.tokenSecret, usedBy: 'the hooks URL’s callers', generated: true }],
    });
  needs.push({
    secretId: dashboardSecretName(fleet),
    label: 'dashboard',
    values: [{ name: DASHBOARD_TOKEN_NAME, usedBy: 'the dashboard’s sign-in', generated: true }],
  });
  for (const agent of config.agents.list) {
    needs.push({
      secretId: agentSecretName(fleet, agent.id),
      label: `agent ${agent.id}`,
      agentId: agent.id,
      values: secretsNeeded(runtimeConfigFor(config, agent.id), { modelKeys: true, placement }),
    });
  }
  return needs.map((n) => ({ ...n, values: n.values.filter((v, i) => n.values.findIndex((w) => w.name === v.name) === i) }));
}
