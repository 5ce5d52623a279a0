// `clawfleet agents remove <id> | prune`: an agent that has left the config goes cleanly —
// its stack (or local state), its own schedules and its records — and its workspace is
// archived, not deleted. The plan is printed first; nothing happens without a confirmation
// (--yes, or the agent's id typed on the terminal); --dry-run stops after the plan.
import { resolve } from 'node:path';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { AwsSettings } from './aws-env.ts';
import type { AwsAgentRemoval } from './agents/aws-removal.ts';
import { checkRemovable, confirmRemoval, printPlan, runRemoval, strayAgents, type RemovalPlan } from './agents/removal.ts';
import { commonOptions, EXIT, parse, plural, str, type CliIO, type Command, choose } from './command.ts';
import { loadFleetConfig } from './fleet-config.ts';

const HELP = `Usage: clawfleet agents remove <id> [--aws] [--yes] [--dry-run]
       clawfleet agents prune [--aws] [--yes] [--dry-run]

remove  removes one agent that is no longer in the config. With --aws: its ECS service is
        stopped, its workspace archived by the one-off task its stack has (copied to
        /archive/<id>/<date>/ on the fleet's file system, then emptied), the schedules it
        made itself (agent-<id>-*) deleted, its stack <fleet>-agent-<id> deleted (queues,
        secret, service, log group…), then its registry, session and origin records.
        Locally (the fleet stopped): its workspace, runtime state and log move to
        <state>/archive/<id>-<date>/, and its schedules and records leave state.db.
prune   does the same for every agent found deployed (stacks <fleet>-agent-*, registry
        items, schedules) or in the state directory that the config no longer lists.

Remove the agent from clawfleet.json first (agents.list, bindings, cron.jobs, agentToAgent)
and deploy the control plane (or stop the local fleet). The plan is printed, then asked
about: type the agent's id, or pass --yes. A step that fails stops the rest and says what
to do; running the command again resumes (finished steps find nothing to do).

  --dry-run          print the plan only
  --yes              do not ask
  --config <path>    the fleet config (default clawfleet.json)
  --state <dir>      local mode's state directory (default .clawfleet)
  --aws              the deployed fleet (AWS credentials and AWS_REGION from the environment)`;

/** Where removals happen; tests give the AWS one their own task waiter (the emulator runs no containers). */
export interface AgentsDeps {
  awsRemoval?(fleet: string, aws: AwsSettings, where: string): AwsAgentRemoval;
}

export async function runAgents(args: string[], io: CliIO, deps: AgentsDeps = {}): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
  choose(sub, ['remove', 'prune'], HELP);
  const p = parse(
    rest,
    {
      ...commonOptions,
      yes: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
    },
    HELP,
    io,
    sub === 'remove' ? { min: 1, max: 1 } : { min: 0, max: 0 },
  );
  if (!p) return EXIT.ok;
  const config = loadFleetConfig(str(p.values.config)!, io);
  const requested = sub === 'remove' ? p.positionals[0]! : undefined;
  if (requested) checkRemovable(config, requested);
  const opts = { yes: p.values.yes === true, dryRun: p.values['dry-run'] === true };

  if (p.values.aws) {
    // The AWS SDK loads only for --aws.
    const [{ AwsAgentRemoval }, { awsSettings }] = await Promise.all([import('./agents/aws-removal.ts'), import('./aws-env.ts')]);
    const aws = awsSettings(io);
    const where = `fleet "${config.fleet}" ${await (await import('./aws-where.ts')).awsWhere(config.fleet, aws)}`;
    const removal = deps.awsRemoval?.(config.fleet, aws, where) ?? new AwsAgentRemoval(config.fleet, aws, { where });
    const found = await removal.found();
    const ids = requested ? present(requested, found, where, io) : strays(config, found, io);
    return removeAll(ids, (id) => removal.plan(id), io, opts);
  }
  const { LocalAgentRemoval } = await import('./agents/local-removal.ts');
  const stateDir = resolve(io.cwd, str(p.values.state)!);
  const local = await LocalAgentRemoval.open(stateDir, { fleet: config.fleet, dryRun: opts.dryRun });
  try {
    const ids = requested ? present(requested, local.found(), `fleet "${config.fleet}", state in ${stateDir}`, io) : strays(config, local.found(), io);
    return await removeAll(ids, async (id) => local.plan(id), io, opts);
  } finally {
    local.close();
  }
}

/** The agent to remove, if anything of it is there; else says so (removed already, or another region or state directory). */
function present(agentId: string, found: { id: string }[], where: string, io: CliIO): string[] {
  if (found.some((f) => f.id === agentId)) return [agentId];
  io.out(`nothing of agent "${agentId}" is left in ${where}: removed already (or look elsewhere: another region, account or --state)`);
  return [];
}

function strays(config: FleetConfig, found: { id: string; where: string; foreign?: boolean }[], io: CliIO): string[] {
  for (const f of found.filter((x) => x.foreign)) io.out(`left alone: ${f.where}, which clawfleet did not make for an agent "${f.id}"`);
  const stray = strayAgents(
    config,
    found.filter((x) => !x.foreign),
  );
  if (stray.length === 0) io.out(`nothing to prune: every agent found is in the config (${config.agents.list.map((a) => a.id).join(', ')})`);
  else io.out(`not in the config: ${stray.map((s) => `${s.id} (${s.found.join(', ')})`).join('; ')}`);
  return stray.map((s) => s.id);
}

async function removeAll(ids: string[], planOf: (id: string) => Promise<RemovalPlan>, io: CliIO, opts: { yes: boolean; dryRun: boolean }): Promise<number> {
  if (ids.length === 0) return EXIT.ok;
  const plans: RemovalPlan[] = [];
  for (const id of ids) plans.push(await planOf(id));
  for (const plan of plans) printPlan(plan, io);
  if (opts.dryRun) return (io.out('dry run: nothing was changed'), EXIT.ok);
  if (!(await confirmRemoval(ids, io, opts.yes))) return EXIT.failed;
  let failed = 0;
  for (const plan of plans) {
    io.out(`removing ${plan.agentId}…`);
    if (!(await runRemoval(plan, io))) failed++;
  }
  if (failed) io.err(`${plural(failed, 'agent')} not fully removed: run the same command again once the cause is fixed`);
  return failed ? EXIT.failed : EXIT.ok;
}

export const agentsCommand: Command = { run: (args, io) => runAgents(args, io) };
