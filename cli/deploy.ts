// `clawfleet deploy`: from credentials to bot links in the order that works, each step
// resumable (running it again skips what is done) and each failure saying what to do:
// credentials, the account's quotas (preflight), synth (cdk-nag included), CDK bootstrap, the
// secret values (asked for before the long deploy, put as soon as their secrets exist),
// `cdk deploy --all`, webhooks, links (the steps: deploy/deploy-steps.ts). This file parses the
// command line and wires them. Agents that start before their values are set wait for them
// (runtime-image/src/secrets/secret-wait.ts), so nothing rolls back. `--plan` prints the steps for the
// config and runs the preflight, which only reads.
import { join, resolve } from 'node:path';
import { REPO_ROOT } from '../infra/app-options.ts';
import { fleetSecretNeeds, type FleetSecretNeed } from '../shared/secrets/fleet-secrets.ts';
import type { AwsSettings } from './aws-env.ts';
import { EXIT, parse, str, usageError, type Command, type CliIO } from './command.ts';
import type { AccountQuotas } from '../shared/ports.ts';
import type { DeployAccountPort } from './deploy/aws-account.ts';
import type { CdkRunner } from './deploy/cdk.ts';
import { deploySteps, type DeployContext } from './deploy/deploy-steps.ts';
import { loadFleetConfig } from './fleet-config.ts';
import { runSteps } from './steps.ts';

const HELP = `Usage: clawfleet deploy [--config clawfleet.json] [--secrets-file <path>|-] [--non-interactive]
                        [--context key=value]… [--cdk <path>] [--outputs-file cdk-outputs.json]
                        [--no-webhooks] [--plan]

Deploys the fleet to the AWS account of your credentials (AWS_REGION, default us-east-1), step
by step; running it again skips what is done, and a failed step says what to do:

  1. credentials  who you are (STS GetCallerIdentity), in which account and region
  2. preflight    the account's quotas against what the fleet needs, read only: Lambda
                  concurrency (the app reserves concurrency only from what it can give),
                  Fargate On-Demand and Spot vCPUs, CloudFormation stacks, VPCs, internet
                  gateways; a quota the fleet would cross stops the deploy here, before
                  anything is made, with the command that raises it
  3. synth        \`cdk synth\` of this repository's app for the config (cdk-nag included), then
                  the IAM roles the new stacks' templates make against the account's quota
  4. bootstrap    the CDK bootstrap stack (CDKToolkit); \`cdk bootstrap\` if it is missing
  5. secrets      the values the config names and the secrets lack: from --secrets-file, else
                  typed on the terminal (no echo; Enter skips), the hooks and dashboard tokens
                  generated if not given; put at once into secrets that exist, the rest
                  right after the deploy. Values never come from arguments.
  6. deploy       \`cdk deploy --all\` (on a terminal it may ask you to approve IAM changes)
  7. webhooks     every bot's webhook pointed at the deployed function URL
  8. links        each bot's t.me link, and the dashboard's and hooks' URLs

An agent whose values are skipped waits for them (\`clawfleet status --aws\` says so) and
starts when they are set: \`clawfleet secrets set <NAME> --agent <id> --aws\`.

  --secrets-file <path>  values as the local secrets file holds them ({"clawfleet/<fleet>/…":
                         {"NAME": "value"}}); - reads them from standard input
  --non-interactive      ask nothing: a value neither in the file nor generated fails the
                         secrets step, listing each (before anything is deployed); IAM
                         changes are deployed without asking (--require-approval never)
  --context key=value    CDK context for the app (infra/app-options.ts), e.g.
                         reservedConcurrency=false, or lambdaConcurrency=<n> instead of the
                         figure the preflight reads; repeatable
  --cdk <path>           another CDK CLI, e.g. node_modules/.bin/cdklocal for the emulator
  --outputs-file <path>  where \`cdk deploy\` writes the stack outputs (default cdk-outputs.json)
  --no-webhooks          leave the bots' webhooks (and Telegram) alone: steps 6 and 7 call no
                         Bot API (a fleet whose bots still answer elsewhere, a smoke test)
  --plan                 print the steps for this config and the values it needs, and run the
                         preflight (read-only calls; nothing is created or changed)
  --config <path>        the fleet config (default clawfleet.json)`;

export interface DeployDeps {
  account?(aws: AwsSettings, fleet: string): DeployAccountPort;
  quotas?(aws: AwsSettings): AccountQuotas;
  /** Where the cloud assembly goes (default cdk.out in this repository). */
  assemblyDir?: string;
  cdk?(opts: { command: string | undefined; env: NodeJS.ProcessEnv; interactive: boolean; out(line: string): void }): CdkRunner;
}

export async function runDeploy(args: string[], io: CliIO, deps: DeployDeps = {}): Promise<number> {
  const p = parse(
    args,
    {
      config: { type: 'string', default: 'clawfleet.json' },
      'secrets-file': { type: 'string' },
      'non-interactive': { type: 'boolean', default: false },
      context: { type: 'string', multiple: true },
      cdk: { type: 'string' },
      'outputs-file': { type: 'string', default: 'cdk-outputs.json' },
      plan: { type: 'boolean', default: false },
      'no-webhooks': { type: 'boolean', default: false },
    },
    HELP,
    io,
  );
  if (!p) return EXIT.ok;
  const context = (p.values.context as unknown as string[] | undefined) ?? [];
  for (const c of context) if (!/^[A-Za-z][\w:@/-]*=.*$/.test(c)) throw usageError(`--context takes key=value, not "${c}"`, HELP);
  if (context.some((c) => c.startsWith('config='))) throw usageError('give the config with --config, not --context config=…', HELP);
  const configPath = resolve(io.cwd, str(p.values.config)!);
  const config = loadFleetConfig(configPath, io);
  const interactive = p.values['non-interactive'] !== true && io.prompt !== undefined;

  let account: DeployAccountPort | undefined;
  let quotas: AccountQuotas | undefined;
  let cdk: CdkRunner | undefined;
  const ctx: DeployContext = {
    config,
    configPath,
    io,
    context,
    outputsFile: resolve(io.cwd, str(p.values['outputs-file'])!),
    secretsFile: str(p.values['secrets-file']),
    interactive,
    telegramCalls: p.values['no-webhooks'] !== true,
    assemblyDir: deps.assemblyDir ?? join(REPO_ROOT, 'cdk.out'),
    account: async () => {
      if (account) return account;
      // The AWS SDK loads only when a step needs it (not for --plan).
      const [{ DeployAccount }, { awsSettings }] = await Promise.all([import('./deploy/aws-account.ts'), import('./aws-env.ts')]);
      return (account = deps.account?.(awsSettings(io), config.fleet) ?? new DeployAccount(awsSettings(io), config.fleet));
    },
    quotas: async () => {
      if (quotas) return quotas;
      const { awsSettings } = await import('./aws-env.ts');
      if (deps.quotas) return (quotas = deps.quotas(awsSettings(io)));
      const { AwsAccountQuotas } = await import('../shared/adapters/aws/account-quotas.ts');
      return (quotas = new AwsAccountQuotas(awsSettings(io)));
    },
    cdk: async () => {
      if (cdk) return cdk;
      const { cdkRunner } = await import('./deploy/cdk.ts');
      // The CDK CLI asks its own questions only where a person can answer them.
      const opts = {
        command: str(p.values.cdk) ? resolve(io.cwd, str(p.values.cdk)!) : undefined,
        env: { ...process.env, ...io.env },
        interactive: interactive && process.stdin.isTTY === true,
        out: (line: string) => io.out(line),
      };
      return (cdk = deps.cdk?.(opts) ?? cdkRunner(opts));
    },
    state: { pending: new Map(), missing: [], restart: new Set(), unregistered: [] },
  };
  const steps = deploySteps(ctx);

  io.out(`deploy fleet "${config.fleet}" (${config.agents.list.length} agent${config.agents.list.length === 1 ? '' : 's'}) from ${configPath}`);
  if (p.values.plan) {
    steps.forEach((s, i) => io.out(`  ${i + 1}. ${s.name}: ${s.plan}`));
    io.out(valuesTable(fleetSecretNeeds(config)));
    const ran = await planPreflight(ctx);
    io.out('plan only: nothing was created or changed');
    return ran === 'blocked' ? EXIT.failed : EXIT.ok;
  }
  if (!(await runSteps(steps, io, { numbered: true, again: 'run clawfleet deploy again' }))) return EXIT.failed;
  const left = [
    ...ctx.state.missing.map(
      (m) =>
        `${m.name} for ${m.label}: clawfleet secrets set ${m.name} ${m.label.startsWith('agent ') ? `--agent ${m.label.slice(6)}` : `--control ${m.label}`} --aws`,
    ),
    ...ctx.state.unregistered.map((a) => `the webhook of account "${a}": set its bot token, then run clawfleet deploy again`),
    // A quota the preflight warned of, with how to raise it (those it could not read are said in step 2).
    ...(ctx.state.preflight?.findings ?? []).flatMap((f) =>
      f.level === 'warning' && f.raise ? [`${f.quota.service} "${f.quota.name}": ${f.raise.command}`] : [],
    ),
  ];
  io.out(
    left.length
      ? `deployed, with this left to do:\n${left.map((l) => `  - ${l}`).join('\n')}`
      : 'deployed: message a bot above to talk to its agent; `clawfleet status --aws` shows each agent',
  );
  return EXIT.ok;
}

/** The preflight as --plan runs it: the same reads and findings as step 2; IAM roles are counted at synth. */
async function planPreflight(ctx: DeployContext): Promise<'blocked' | 'ran' | 'not run'> {
  const { io } = ctx;
  const account = await ctx.account();
  try {
    await account.identity();
  } catch (err) {
    io.out(
      `  preflight: not run, no usable AWS credentials (${(err as Error).name}: ${(err as Error).message}); sign in and run --plan again to check the account's quotas`,
    );
    return 'not run';
  }
  const { checkQuotas } = await import('./deploy/preflight-step.ts');
  const check = await checkQuotas(ctx.config, account, await ctx.quotas(), ctx.context);
  io.out(`  preflight (step 2), account ${account.aws.region}:`);
  for (const line of check.lines) io.out(`    ${line}`);
  const roles = check.figures.iamRoles;
  io.out(
    `    IAM roles: ${'error' in roles ? `could not be read (${roles.error})` : `${roles.value.used} of ${roles.value.quota} in use`}; what the new stacks make is counted from their templates at step 3 (synth)`,
  );
  if (!check.blocking) return 'ran';
  io.out(`  the deploy would stop at step 2: raise each quota marked ✗ first`);
  return 'blocked';
}

/** The values each secret needs, for --plan: names and who reads them. */
function valuesTable(needs: FleetSecretNeed[]): string {
  const lines = needs.map(
    (n) =>
      `    ${n.secretId}: ${n.values.length ? n.values.map((v) => `${v.name}${v.generated ? ' (generated if not given)' : ''}`).join(', ') : '(no value needed)'}`,
  );
  return `  values the secrets need (asked for in step 5):\n${lines.join('\n')}`;
}

export const deployCommand: Command = { run: (args, io) => runDeploy(args, io) };
