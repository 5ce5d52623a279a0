// The eight steps of `clawfleet deploy` (cli/deploy.ts parses and wires them), each saying
// what it did and, when it fails, what to do: credentials, preflight, synth, bootstrap,
// secrets, deploy, webhooks, links. Nothing is created before the quotas are checked (the
// preflight, and the IAM roles once synth has made the templates). Each can run again: what
// is done is found done.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { newAgentsContext } from '../../infra/app-options.ts';
import { agentStackName, controlPlaneStackName } from '../../shared/config/names.ts';
import { fleetSecretNeeds } from '../../shared/secrets/fleet-secrets.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { findingLines, rolesFinding } from '../../shared/deploy/preflight.ts';
import type { AccountQuotas } from '../../shared/ports.ts';
import { awsProblem } from '../aws-errors.ts';
import type { CliIO } from '../command.ts';
import { StepFailed, type Step, type StepResult } from '../steps.ts';
import type { DeployAccountPort, SecretState } from './aws-account.ts';
import type { CdkRunner } from './cdk.ts';
import { assemblyRoles, checkQuotas, concurrencyContext, type QuotaCheck } from './preflight-step.ts';
import type { CollectedValues, SecretsFile } from './values.ts';

export interface DeployContext {
  config: FleetConfig;
  configPath: string;
  io: CliIO;
  context: string[];
  outputsFile: string;
  secretsFile: string | undefined;
  interactive: boolean;
  /** --no-webhooks: no Bot API call. */
  telegramCalls: boolean;
  account(): Promise<DeployAccountPort>;
  /** The account's quotas, read-only (the preflight). */
  quotas(): Promise<AccountQuotas>;
  assemblyDir: string;
  cdk(): Promise<CdkRunner>;
  /** Filled by the steps as they run. */
  state: {
    identity?: { account: string; arn: string };
    /** What the preflight found: the figure synth gets, and the IAM roles to check the templates against. */
    preflight?: QuotaCheck;
    stacks?: string[];
    pending: Map<string, Record<string, string>>;
    missing: CollectedValues['missing'];
    /** Agents that got values in this run: asked to restart once their secret holds them. */
    restart: Set<string>;
    unregistered: string[];
  };
}

export function deploySteps(ctx: DeployContext): Step[] {
  const { config } = ctx;
  const fleet = config.fleet;
  const cdkContext = () => {
    // The account's figure, unless the operator gave one: the app sizes reserved concurrency from it.
    const figure = ctx.state.preflight?.lambdaConcurrency;
    const pass = figure !== undefined && concurrencyContext(ctx.context).lambdaConcurrency === undefined ? [`lambdaConcurrency=${figure}`] : [];
    return ['-c', `config=${ctx.configPath}`, ...[...ctx.context, ...pass].flatMap((c) => ['-c', c])];
  };
  const assemblyDir = ctx.assemblyDir;
  const stackNames = [controlPlaneStackName(fleet), ...config.agents.list.map((a) => agentStackName(fleet, a.id))];
  const accounts = Object.keys(config.channels.telegram?.accounts ?? {});

  return [
    {
      name: 'credentials',
      plan: 'check the AWS credentials and region (STS GetCallerIdentity)',
      async run(): Promise<StepResult> {
        const account = await ctx.account();
        try {
          ctx.state.identity = await account.identity();
        } catch (err) {
          const { problem, next, code } = awsProblem(err, account.aws);
          throw new StepFailed(`${problem} [${code}]`, next.replace(/run this again$/, 'run clawfleet deploy again') || 'run clawfleet deploy again');
        }
        return { status: 'done', detail: `account ${ctx.state.identity.account} as ${ctx.state.identity.arn}, region ${account.aws.region}` };
      },
    },
    {
      name: 'preflight',
      plan: 'read the account’s quotas — Lambda concurrency (reserved concurrency is sized from it), Fargate vCPUs, CloudFormation stacks, VPCs, IAM roles — and stop before anything is made if the fleet would cross one',
      async run(): Promise<StepResult> {
        const account = await ctx.account();
        const check = await checkQuotas(config, account, await ctx.quotas(), ctx.context);
        ctx.state.preflight = check;
        const lines = `\n${check.lines.map((l) => `      ${l}`).join('\n')}`;
        if (check.blocking)
          throw new StepFailed(
            `the fleet would cross ${check.blocking === 1 ? 'a quota' : `${check.blocking} quotas`} (✗); nothing was created:${lines}`,
            'raise each quota marked ✗ (the lines under it say how; an increase can take a while to be granted), then run clawfleet deploy again',
          );
        const read = check.findings.length - check.findings.filter((f) => f.text.startsWith('could not be read')).length;
        return {
          status: 'done',
          detail: `${read} of ${check.findings.length} quotas read${check.warnings ? `, ${check.warnings} warning${check.warnings === 1 ? '' : 's'} (!)` : ''}; IAM roles follow synth${lines}`,
        };
      },
    },
    {
      name: 'synth',
      plan: `synthesize ${stackNames.length} stacks (${stackNames.join(', ')}) with cdk-nag and the account’s Lambda concurrency, check none is stuck, and check the IAM roles the new stacks make fit the account’s quota`,
      async run(): Promise<StepResult> {
        // The agents whose stacks this deploy creates: their services start at desired count 0,
        // and every other template leaves the count to λ compute (infra/app-options.ts newAgents).
        const creating = await newAgentsOf(await ctx.account(), config);
        const newAgents = creating.length ? ['-c', `newAgents=${newAgentsContext(creating)}`] : [];
        await (await ctx.cdk()).run(['synth', '--quiet', '--output', assemblyDir, ...cdkContext(), ...newAgents]).catch((err: Error) => {
          throw new StepFailed(
            err.message,
            'fix what it says (config problems are listed with their paths; `clawfleet config validate` checks the config alone), then run clawfleet deploy again',
          );
        });
        ctx.state.stacks = assemblyStacks(assemblyDir);
        const account = await ctx.account();
        const states = await Promise.all(ctx.state.stacks.map(async (name) => [name, (await account.stack(name))?.StackStatus] as const));
        const stuck = states.filter(([, s]) => s === 'ROLLBACK_COMPLETE' || s === 'ROLLBACK_FAILED' || s === 'DELETE_FAILED');
        if (stuck.length) {
          throw new StepFailed(
            `${stuck.map(([n, s]) => `${n} is ${s}`).join(', ')}: CloudFormation cannot update ${stuck.length === 1 ? 'it' : 'them'}`,
            `delete ${stuck.length === 1 ? 'it' : 'them'} (aws cloudformation delete-stack --stack-name <name>), then run clawfleet deploy again`,
          );
        }
        const busy = states.filter(([, s]) => s?.endsWith('_IN_PROGRESS'));
        if (busy.length)
          throw new StepFailed(`${busy.map(([n, s]) => `${n} is ${s}`).join(', ')}`, 'wait until CloudFormation has finished, then run clawfleet deploy again');
        const deployed = states.filter(([, s]) => s !== undefined).length;
        // Roles of the stacks not deployed yet; a deployed stack's are counted in the account already.
        const roles = [...assemblyRoles(assemblyDir)]
          .filter(([name]) => states.some(([n, s]) => n === name && s === undefined))
          .reduce((sum, [, n]) => sum + n, 0);
        const figure = ctx.state.preflight?.figures.iamRoles ?? { error: 'the preflight did not run' };
        const finding = rolesFinding(figure, roles, account.aws.region);
        const lines = findingLines(finding)
          .map((l) => `      ${l}`)
          .join('\n');
        if (finding.level === 'blocking')
          throw new StepFailed(
            `the new stacks make ${roles} IAM roles, more than the account has room for; nothing was created:\n${lines}`,
            'raise the quota (the lines under it say how), or remove roles the account no longer needs, then run clawfleet deploy again',
          );
        return {
          status: 'done',
          detail: `${ctx.state.stacks.length} stacks (${ctx.state.stacks.length - deployed} new, ${deployed} deployed before), cdk-nag clean\n${lines}`,
        };
      },
    },
    {
      name: 'bootstrap',
      plan: 'make sure the account and region are CDK-bootstrapped (stack CDKToolkit); run `cdk bootstrap` if not',
      async run(): Promise<StepResult> {
        const account = await ctx.account();
        const { TOOLKIT_STACK } = await import('./aws-account.ts');
        const toolkit = await account.stack(TOOLKIT_STACK);
        const status = toolkit?.StackStatus ?? '';
        if (/^(CREATE|UPDATE|IMPORT)_COMPLETE$|^UPDATE_ROLLBACK_COMPLETE$/.test(status)) {
          const version = toolkit?.Outputs?.find((o) => o.OutputKey === 'BootstrapVersion')?.OutputValue;
          return { status: 'skipped', detail: `bootstrapped already${version ? ` (version ${version})` : ''}` };
        }
        if (/_IN_PROGRESS$/.test(status))
          throw new StepFailed(`${TOOLKIT_STACK} is ${status}`, 'wait until CloudFormation has finished with it, then run clawfleet deploy again');
        if (toolkit) {
          throw new StepFailed(
            `${TOOLKIT_STACK} is ${status}: the bootstrap failed before`,
            `delete the ${TOOLKIT_STACK} stack (CloudFormation console; empty its S3 bucket first if asked), then run clawfleet deploy again`,
          );
        }
        const target = `aws://${ctx.state.identity?.account}/${account.aws.region}`;
        // From a directory without cdk.json: bootstrapping needs no synth of the app. An empty
        // one of its own, removed afterwards whatever happened (the CLI may write to it).
        const outside = mkdtempSync(join(tmpdir(), 'clawfleet-bootstrap-'));
        try {
          await (await ctx.cdk()).run(['bootstrap', target], { cwd: outside });
        } catch (err) {
          throw new StepFailed(
            (err as Error).message,
            'check your credentials may create CloudFormation stacks, S3 buckets, ECR repositories and IAM roles, then run clawfleet deploy again',
          );
        } finally {
          rmSync(outside, { recursive: true, force: true });
        }
        return { status: 'done', detail: `bootstrapped ${target}` };
      },
    },
    {
      name: 'secrets',
      plan: 'ask for the values the secrets lack (--secrets-file, else the terminal; hooks and dashboard tokens and OpenClaw device keys generated if not given)',
      async run(): Promise<StepResult> {
        const account = await ctx.account();
        const needs = fleetSecretNeeds(config);
        const held = new Map<string, SecretState>();
        for (const need of needs) {
          const state = await account.secret(need.secretId);
          if (state.exists && state.unreadable)
            throw new StepFailed(
              state.unreadable,
              `fix the secret (clawfleet secrets set replaces a value; a malformed secret needs scripts/set-secret.ts --replace), then run clawfleet deploy again`,
            );
          held.set(need.secretId, state);
        }
        const { collectValues, readSecretsFile } = await import('./values.ts');
        let file: SecretsFile | undefined;
        if (ctx.secretsFile) {
          try {
            file = await readSecretsFile(ctx.secretsFile === '-' ? '-' : resolve(ctx.io.cwd, ctx.secretsFile), ctx.io);
          } catch (err) {
            throw new StepFailed((err as Error).message, 'fix the file, then run clawfleet deploy again');
          }
        }
        const collected = await collectValues(needs, held, { file, prompt: ctx.interactive ? ctx.io.prompt : undefined });
        if (!ctx.interactive && collected.missing.length) {
          throw new StepFailed(
            `${collected.missing.length} value(s) missing:\n${collected.missing.map((m) => `      ${m.secretId}: ${m.name} (${m.usedBy})`).join('\n')}`,
            'give them in --secrets-file (or - for standard input), or run on a terminal to type them; nothing was deployed',
          );
        }
        ctx.state.missing = collected.missing;
        const putNow: string[] = [];
        for (const [secretId, values] of collected.values) {
          const need = needs.find((n) => n.secretId === secretId)!;
          if (held.get(secretId)?.exists) {
            await account.put(secretId, values).catch((err: Error) => {
              throw new StepFailed(err.message, 'check your credentials may secretsmanager:PutSecretValue, then run clawfleet deploy again');
            });
            putNow.push(...Object.keys(values));
            if (need.agentId) ctx.state.restart.add(need.agentId);
          } else ctx.state.pending.set(secretId, values);
        }
        const parts = [
          collected.said.length ? `given: ${collected.said.join('; ')}` : 'nothing new to set',
          putNow.length ? `put now: ${putNow.join(', ')}` : '',
          ctx.state.pending.size
            ? `put after the deploy (their secrets are made by it): ${[...ctx.state.pending.values()].flatMap((v) => Object.keys(v)).join(', ')}`
            : '',
          collected.missing.length ? `not set, waited for: ${collected.missing.map((m) => `${m.name} (${m.label})`).join(', ')}` : '',
        ].filter(Boolean);
        return { status: collected.values.size ? 'done' : 'skipped', detail: parts.join('; ') };
      },
    },
    {
      name: 'deploy',
      plan: `cdk deploy --all (about 15 minutes the first time), then put the values whose secrets it made and restart the agents that got values`,
      async run(): Promise<StepResult> {
        const cdk = await ctx.cdk();
        await cdk
          .run(['deploy', '--all', '--app', assemblyDir, '--outputs-file', ctx.outputsFile, ...(cdk.interactive ? [] : ['--require-approval', 'never'])])
          .catch((err: Error) => {
            throw new StepFailed(
              err.message,
              'the stacks that deployed stay; fix the cause and run clawfleet deploy again (unchanged stacks are skipped). A new stack that failed is ROLLBACK_COMPLETE and must be deleted first',
            );
          });
        const account = await ctx.account();
        const put: string[] = [];
        for (const [secretId, values] of ctx.state.pending) {
          await account.put(secretId, values).catch((err: Error) => {
            throw new StepFailed(
              `deployed, but ${err.message}`,
              'set the value with clawfleet secrets set --aws, or run clawfleet deploy again (it asks for what is still missing)',
            );
          });
          put.push(...Object.keys(values));
          const need = fleetSecretNeeds(config).find((n) => n.secretId === secretId);
          if (need?.agentId) ctx.state.restart.add(need.agentId);
        }
        ctx.state.pending.clear();
        const asked: string[] = [];
        for (const agentId of ctx.state.restart) {
          // A failed ask is no failure: a waiting runtime reads its secret again within a minute.
          await account.restart(agentId).then(
            () => asked.push(agentId),
            () => undefined,
          );
        }
        return {
          status: 'done',
          detail: [
            `${ctx.state.stacks?.length ?? 'all'} stacks deployed (outputs in ${ctx.outputsFile})`,
            put.length ? `put ${put.join(', ')}` : '',
            asked.length ? `asked ${fleet}-compute to restart ${asked.join(', ')}` : '',
          ]
            .filter(Boolean)
            .join('; '),
        };
      },
    },
    {
      name: 'webhooks',
      plan: accounts.length
        ? `point the webhook of ${accounts.map((a) => `"${a}"`).join(', ')} at the deployed Telegram function URL (setWebhook, with the secret token)`
        : 'none: the config has no Telegram accounts',
      async run(): Promise<StepResult> {
        const telegram = config.channels.telegram;
        if (!telegram || accounts.length === 0) return { status: 'skipped', detail: 'no Telegram accounts in the config' };
        if (!ctx.telegramCalls) return { status: 'skipped', detail: '--no-webhooks: the bots are left as they are' };
        const account = await ctx.account();
        const url = (await account.outputs(controlPlaneStackName(fleet))).TelegramWebhookUrl;
        if (!url)
          throw new StepFailed(
            `${controlPlaneStackName(fleet)} has no TelegramWebhookUrl output`,
            'deploy again (clawfleet deploy); the control plane must be deployed first',
          );
        const { registerWebhooks } = await import('./webhooks.ts');
        const { readTelegramTokens } = await import('../../shared/secrets/telegram-secrets.ts');
        const tokens = await readTelegramTokens(config, (id) => account.values(id));
        const done: string[] = [];
        for (const id of accounts) {
          const token = tokens[telegram.accounts[id]!.botTokenSecret];
          if (!token) {
            ctx.state.unregistered.push(id);
            continue;
          }
          const one: FleetConfig = { ...config, channels: { ...config.channels, telegram: { ...telegram, accounts: { [id]: telegram.accounts[id]! } } } };
          try {
            done.push(...(await registerWebhooks({ config: one, functionUrl: url, botToken: async () => token })).map((r) => `${r.accountId} → ${r.url}`));
          } catch (err) {
            throw new StepFailed(
              `setWebhook for "${id}" failed: ${(err as Error).message}`,
              `check ${telegram.accounts[id]!.botTokenSecret} is the bot's token from @BotFather (clawfleet secrets set … --control telegram --aws), then run clawfleet deploy again`,
            );
          }
        }
        const skipped = ctx.state.unregistered.length ? `; not registered, no token yet: ${ctx.state.unregistered.join(', ')}` : '';
        return { status: done.length ? 'done' : 'skipped', detail: `${done.length ? done.join(', ') : 'none registered'}${skipped}` };
      },
    },
    {
      name: 'links',
      plan: 'print each bot’s t.me link and the dashboard’s and hooks’ URLs',
      async run(): Promise<StepResult> {
        const account = await ctx.account();
        const outputs = await account.outputs(controlPlaneStackName(fleet));
        const lines: string[] = [];
        const telegram = ctx.telegramCalls ? config.channels.telegram : undefined;
        if (telegram) {
          const { createBotApi } = await import('../../shared/adapters/telegram/bot-api.ts');
          const { readTelegramTokens } = await import('../../shared/secrets/telegram-secrets.ts');
          const tokens = await readTelegramTokens(config, (id) => account.values(id));
          for (const id of accounts) {
            const token = tokens[telegram.accounts[id]!.botTokenSecret];
            if (!token) continue;
            const me = await createBotApi({ apiRoot: telegram.apiRoot, token })
              .call<{ username?: string }>('getMe', {})
              .catch(() => undefined);
            lines.push(`bot "${id}": ${me?.username ? `https://t.me/${me.username}` : '(getMe failed: check its token)'}`);
          }
        }
        if (outputs.DashboardUrl)
          lines.push(`dashboard: ${outputs.DashboardUrl} (sign in: \`npx clawfleet dashboard --aws\` prints a sign-in link, or use DASHBOARD_TOKEN)`);
        if (outputs.HooksUrl) lines.push(`hooks: ${outputs.HooksUrl}hooks/<mapping>`);
        return { status: 'done', detail: lines.length ? `\n${lines.map((l) => `      ${l}`).join('\n')}` : 'nothing to link' };
      },
    },
  ];
}

/** The stacks in a synthesized cloud assembly, by name. */
function assemblyStacks(dir: string): string[] {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type?: string; properties?: { stackName?: string } }>;
  };
  return Object.entries(manifest.artifacts ?? {})
    .filter(([, a]) => a.type === 'aws:cloudformation:stack')
    .map(([id, a]) => a.properties?.stackName ?? id);
}

/** The agents of `config` whose stacks are not in the account (or were deleted). */
async function newAgentsOf(account: DeployAccountPort, config: FleetConfig): Promise<string[]> {
  const states = await Promise.all(
    config.agents.list.map(async (a) => [a.id, (await account.stack(agentStackName(config.fleet, a.id)))?.StackStatus] as const),
  );
  return states.filter(([, status]) => status === undefined || status === 'DELETE_COMPLETE').map(([id]) => id);
}
