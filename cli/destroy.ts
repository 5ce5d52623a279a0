// `clawfleet destroy`: takes the deployed fleet down without losing what a person would miss.
// It prints the plan first (every step, what is exported and what is removed, what stays
// billed), asks for the fleet's name (or --yes), exports the registry, pairings and every
// workspace to a local folder, removes what clawfleet made, keeps the secrets' values for a
// recovery window, and ends with what stays billed and the command that deletes each. The
// steps are in destroy/destroy-steps.ts; running the command again resumes.
import { resolve } from 'node:path';
import { describeKept, RECOVERY_DAYS, restoreSecretCommand, keptSecretName } from '../shared/deploy/teardown.ts';
import type { AwsSettings } from './aws-env.ts';
import { CliError, EXIT, parse, plural, str, usageError, type CliIO, type Command } from './command.ts';
import type { DestroyAccount } from './destroy/account.ts';
import { destroySteps, exportContents, readPlan, saveState, type DestroyOptions, type DestroyPlan } from './destroy/destroy-steps.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { runSteps, StepFailed } from './steps.ts';

const HELP = `Usage: clawfleet destroy [--config clawfleet.json] [--out <dir>] [--recovery-days 30] [--yes]
                         [--plan|--dry-run] [--no-webhooks]

Takes the fleet deployed in the account of your credentials (AWS_REGION, default us-east-1)
down, keeping what a person would miss. It prints the plan first — every step, what is
exported, what is removed and what stays billed — then asks you to type the fleet's name
(or takes --yes), then:

  1. webhooks          deleteWebhook for every bot, so no new message arrives
  2. schedules         the schedules agents made themselves, deleted (none wakes an agent meanwhile)
  3. workspaces        every agent's workspace pulled into <out>/workspaces/<id>/, as
                       \`clawfleet workspace pull --aws\` pulls it
  4. tables            every item of the registry (agents, approved pairings, relay records,
                       metrics) and sessions tables into <out>/tables/, the approved pairings
                       into <out>/pairings.json
  5. secrets kept      each secret its stack deletes at once (CloudFormation gives it no
                       recovery window) copied into clawfleet-destroyed/<fleet>/<date>/…, the
                       copy scheduled for deletion with a recovery window
  6. agent stacks      every stack clawfleet made for an agent of the fleet, deleted
  7. control plane     its termination protection turned off (on purpose: destroy says so),
                       then deleted
  8. leftover secrets  every secret clawfleet/<fleet>/… left, deletion scheduled with a
                       recovery window
Then it lists what stays billed — what the stacks keep on purpose (data tables, the
workspaces file system, buckets) — with the command that deletes each, and how to restore a
kept secret until its date. A step that fails stops the rest and says what to do; running
destroy again resumes (the plan is saved in <out>/destroy.json; a pull sends nothing twice).

  --out <dir>            the export folder (default clawfleet-export-<fleet>)
  --recovery-days <n>    the secrets' recovery window, 7 to 30 days (default 30)
  --yes                  do not ask
  --plan                 print the plan only (read-only calls)
  --dry-run              the same as --plan
  --no-webhooks          leave the bots' webhooks (and Telegram) alone
  --config <path>        the fleet config (default clawfleet.json)`;

export interface DestroyDeps {
  account?(config: ReturnType<typeof loadFleetConfig>, aws: AwsSettings, io: CliIO): Promise<DestroyAccount>;
  now?(): number;
  pollMs?: number;
  stackTimeoutMs?: number;
}

export async function runDestroy(args: string[], io: CliIO, deps: DestroyDeps = {}): Promise<number> {
  const p = parse(
    args,
    {
      config: { type: 'string', default: 'clawfleet.json' },
      out: { type: 'string' },
      'recovery-days': { type: 'string', default: String(RECOVERY_DAYS.default) },
      yes: { type: 'boolean', default: false },
      plan: { type: 'boolean', default: false },
      'dry-run': { type: 'boolean', default: false },
      'no-webhooks': { type: 'boolean', default: false },
    },
    HELP,
    io,
  );
  if (!p) return EXIT.ok;
  const days = Number(str(p.values['recovery-days']));
  if (!Number.isInteger(days) || days < RECOVERY_DAYS.min || days > RECOVERY_DAYS.max)
    throw usageError(`--recovery-days must be a whole number from ${RECOVERY_DAYS.min} to ${RECOVERY_DAYS.max} (Secrets Manager's recovery window)`, HELP);
  const config = loadFleetConfig(resolve(io.cwd, str(p.values.config)!), io);
  const opts: DestroyOptions = {
    outDir: resolve(io.cwd, str(p.values.out) ?? `clawfleet-export-${config.fleet}`),
    recoveryDays: days,
    telegramCalls: p.values['no-webhooks'] !== true,
    now: deps.now ?? (() => Date.now()),
    pollMs: deps.pollMs ?? 3_000,
    stackTimeoutMs: deps.stackTimeoutMs ?? 60 * 60_000,
    say: (line) => io.err(line),
  };
  const { awsSettings } = await import('./aws-env.ts');
  const aws = awsSettings(io);
  const account = deps.account ? await deps.account(config, aws, io) : await (await import('./destroy/account.ts')).awsDestroyAccount(config, aws, io);

  let plan: DestroyPlan;
  try {
    plan = await readPlan(config, account, opts);
  } catch (err) {
    if (err instanceof StepFailed) throw new CliError(EXIT.failed, `${err.message}: ${err.hint}`);
    const { awsErrorText } = await import('./aws-errors.ts');
    throw new CliError(EXIT.failed, awsErrorText('cannot read the deployed fleet', err));
  }
  const steps = destroySteps(config, account, plan, opts);
  printPlan(plan, steps, opts, io);
  if (p.values.plan || p.values['dry-run']) return (io.out('plan only: nothing was exported, changed or deleted'), EXIT.ok);
  if (!plan.controlPlane && !plan.agentStacks.length && !plan.agentSchedules.length && !plan.liveSecrets.length) {
    io.out(`nothing of fleet "${config.fleet}" is left in account ${plan.identity.account}, ${account.region}: nothing to destroy`);
    // Destroyed by an earlier run: what it left is still worth saying.
    if (plan.resumed) await printLeftovers(plan, account, opts, io);
    return EXIT.ok;
  }
  if (!(await confirm(config.fleet, io, p.values.yes === true))) return EXIT.failed;
  saveState(opts.outDir, plan.state);
  if (!(await runSteps(steps, io, { numbered: true, again: 'run clawfleet destroy again' }))) return EXIT.failed;
  await printLeftovers(plan, account, opts, io);
  return EXIT.ok;
}

function printPlan(plan: DestroyPlan, steps: { name: string; plan: string }[], opts: DestroyOptions, io: CliIO): void {
  const { state } = plan;
  io.out(
    `destroy fleet "${state.fleet}" in account ${state.account}, ${state.region} (${plural(plan.agentStacks.length, 'agent stack')}${plan.controlPlane ? ' and the control plane' : ''}), exporting into ${opts.outDir}:`,
  );
  steps.forEach((s, i) => io.out(`  ${i + 1}. ${s.name}: ${s.plan}`));
  if (state.kept.length)
    io.out(
      `  ! kept by the stacks on purpose, and billed until you delete them (the commands are printed at the end): ${state.kept
        .map((k) => describeKept(k, state.region, state.account).what.split(' (')[0])
        .join('; ')}`,
    );
  io.out(
    '  ! deleted with the stacks and not exported: the queues with any message still in them, the log groups, the alarms, the functions and their URLs, the network',
  );
  for (const name of plan.foreign) io.out(`  ! left alone: stack ${name}, which clawfleet did not make for an agent of this fleet`);
}

async function confirm(fleet: string, io: CliIO, yes: boolean): Promise<boolean> {
  if (yes) return true;
  if (!io.prompt) throw new CliError(EXIT.usage, `standard input is not a terminal to confirm on: pass --yes to destroy fleet "${fleet}"`);
  if ((await io.prompt(`Type the fleet's name (${fleet}) to destroy it: `)).trim() === fleet) return true;
  io.err('not confirmed: nothing was changed');
  return false;
}

/** What stays billed, with the commands that delete it, and the secrets restorable until their dates. */
async function printLeftovers(plan: DestroyPlan, account: DestroyAccount, opts: DestroyOptions, io: CliIO): Promise<void> {
  const { state } = plan;
  const lines = [`destroyed fleet "${state.fleet}"; the export is in ${opts.outDir} (${exportContents(opts.outDir)})`, 'Still billed until you delete them:'];
  for (const k of state.kept) {
    const d = describeKept(k, state.region, state.account);
    lines.push(`  - ${d.what}: ${d.billed}`, `      ${d.remove}`);
  }
  lines.push(
    '  - the CDK bootstrap stack CDKToolkit (shared by every CDK app in this account and region): its assets bucket’s and repository’s storage',
    `      if no other CDK app uses it: aws s3 rb s3://cdk-hnb659fds-assets-${state.account}-${state.region} --force (the default qualifier's bucket), then aws cloudformation delete-stack --stack-name CDKToolkit --region ${state.region}`,
  );
  const restorable: string[] = [];
  for (const s of state.secrets) {
    const id = s.deletedWithStack ? keptSecretName(state.fleet, s.name, state.startedAt) : s.name;
    const found = await account.secret(id);
    if (found?.deletionDate === undefined) continue;
    const until = new Date(found.deletionDate).toISOString().slice(0, 10);
    restorable.push(`  - ${s.name}${s.deletedWithStack ? `, kept as ${id}` : ''}, until ${until}: ${restoreSecretCommand(id)}`);
  }
  if (restorable.length) lines.push('Secrets, deleted for good at their date unless restored:', ...restorable);
  io.out(lines.join('\n'));
}

export const destroyCommand: Command = { run: (args, io) => runDestroy(args, io) };
