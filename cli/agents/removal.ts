// Removing an agent that has left the config, as steps run in order (locally and on AWS:
// local-removal.ts, aws-removal.ts). Each step says what it did or why there was nothing to
// do; the first that fails stops the rest and says what to do about it. Every step can run
// again, so running a removal again resumes where it stopped.
import type { FleetConfig } from '../../shared/config/schema.ts';
import { CliError, EXIT, type CliIO } from '../command.ts';
import { runSteps, type Step } from '../steps.ts';

export { StepFailed, type StepResult } from '../steps.ts';
export type RemovalStep = Step;

export interface RemovalPlan {
  agentId: string;
  /** The fleet and where, for the heading: `fleet "demo" on AWS account 123456789012, us-east-1`, `fleet "demo", state in /home/me/.clawfleet`. */
  where: string;
  /** What the operator should know before saying yes (messages that go with the queue, a secret deleted at once). */
  notes: string[];
  steps: RemovalStep[];
}

const AGENT_ID = /^[a-z][a-z0-9-]{0,23}$/;

/** An agent may be removed only once the config no longer lists it: otherwise the next deploy or start brings it back. */
export function checkRemovable(config: FleetConfig, agentId: string): void {
  if (!AGENT_ID.test(agentId)) throw new CliError(EXIT.usage, `"${agentId}" is not an agent id (a lowercase letter, then letters, digits and "-", at most 24)`);
  if (config.agents.list.some((a) => a.id === agentId)) {
    throw new CliError(
      EXIT.usage,
      `agent "${agentId}" is still in the config: remove it from agents.list (and from bindings, cron.jobs and agentToAgent) first, ` +
        `then deploy the control plane (npx cdk deploy ${config.fleet}-control-plane) or restart the local fleet, and run this again`,
    );
  }
}

export function printPlan(plan: RemovalPlan, io: CliIO): void {
  io.out(`remove agent ${plan.agentId} from ${plan.where}:`);
  plan.steps.forEach((s, i) => io.out(`  ${i + 1}. ${s.name}: ${s.plan}`));
  for (const note of plan.notes) io.out(`  ! ${note}`);
}

/** Runs the steps in order; true if all finished (cli/steps.ts). */
export async function runRemoval(plan: RemovalPlan, io: CliIO): Promise<boolean> {
  if (!(await runSteps(plan.steps, io))) return false;
  io.out(`agent ${plan.agentId} removed`);
  return true;
}

/** Asks before removing, unless --yes: typing the agent's id confirms. Without a terminal, --yes is required. */
export async function confirmRemoval(agentIds: string[], io: CliIO, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!io.prompt) throw new CliError(EXIT.usage, `standard input is not a terminal to confirm on: pass --yes to remove ${agentIds.join(', ')}`);
  const want = agentIds.join(' ');
  const answer = (
    await io.prompt(`Type ${agentIds.length === 1 ? 'the agent id' : 'the agent ids'} (${want}) to remove ${agentIds.length === 1 ? 'it' : 'them'}: `)
  ).trim();
  if (answer === want) return true;
  io.err('not confirmed: nothing was removed');
  return false;
}

/** Ids of agents found deployed (or recorded) that the config no longer lists, each with where it was found; sorted. */
export function strayAgents(config: FleetConfig, found: { id: string; where: string }[]): { id: string; found: string[] }[] {
  const listed = new Set(config.agents.list.map((a) => a.id));
  const byId = new Map<string, Set<string>>();
  for (const { id, where } of found) {
    if (listed.has(id) || !AGENT_ID.test(id)) continue;
    byId.set(id, (byId.get(id) ?? new Set()).add(where));
  }
  return [...byId.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([id, w]) => ({ id, found: [...w] }));
}
