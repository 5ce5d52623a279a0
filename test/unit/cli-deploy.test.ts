// `clawfleet deploy`, offline: its plan, and its steps in order over an in-memory account and
// its quotas and a CDK CLI stand-in (the real one against the emulator is
// test/integration/deploy-day.test.ts). What it asks for and where values go; what a failed
// step says and that nothing after it runs; a second run asks nothing and skips what is done;
// values never reach the output. The preflight: each quota the fleet could cross, what it says
// and how to raise it, a blocking one stopping the deploy before the CDK CLI runs at all, and
// the account's Lambda concurrency passed to synth. The Bot API is the fake Telegram server
// (its real wire format).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployAccountPort, SecretState } from '../../cli/deploy/aws-account.ts';
import type { CdkRunner } from '../../cli/deploy/cdk.ts';
import { runDeploy } from '../../cli/deploy.ts';
import { runCli } from '../../cli/main.ts';
import { InMemoryAccountQuotas, type AccountQuotaFigures } from '../../shared/adapters/memory/in-memory-account-quotas.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const BOT = '1000001:AAfran-bot-token-0000000000000000000';
const KEY = 'sk-test-deploy-fran-0123456789abcdef';
const FLEET: FleetConfigInput = {
  fleet: 'dd',
  agents: {
    defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
    list: [
      { id: 'fran', default: true, mcp: { servers: { graph: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'GRAPH_TOKEN' } } } } },
      { id: 'grif', model: 'bedrock/amazon.nova-micro-v1:0' },
    ],
  },
  models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' }, bedrock: { api: 'bedrock-converse' } } },
  bindings: [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }],
  channels: { telegram: { apiRoot: 'http://placeholder', accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } },
};
const STACKS = ['dd-control-plane', 'dd-agent-fran', 'dd-agent-grif'];

let tg: FakeTelegram;
beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: BOT, username: 'fran_helper_bot' }] });
});
afterAll(() => tg?.close());

/** An account in memory: stacks with their status and outputs, secrets with their values, compute asks. */
class MemoryAccount implements DeployAccountPort {
  readonly aws = { region: 'eu-west-1' };
  stacks = new Map<string, { StackStatus: string; Outputs?: { OutputKey: string; OutputValue: string }[] }>();
  secrets = new Map<string, Record<string, string> | null>();
  restarted: string[] = [];
  calls: string[] = [];
  signedIn = true;
  async identity() {
    this.calls.push('identity');
    if (!this.signedIn) throw Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    return { account: '123456789012', arn: 'arn:aws:iam::123456789012:user/ops' };
  }
  async stack(name: string) {
    return this.stacks.get(name);
  }
  async outputs(name: string) {
    return Object.fromEntries((this.stacks.get(name)?.Outputs ?? []).map((o) => [o.OutputKey, o.OutputValue]));
  }
  async secret(id: string): Promise<SecretState> {
    if (!this.secrets.has(id)) return { exists: false };
    return { exists: true, names: Object.keys(this.secrets.get(id) ?? {}) };
  }
  async put(id: string, values: Record<string, string>) {
    if (!this.secrets.has(id)) throw new Error(`cannot put a value into "${id}": ResourceNotFoundException`);
    const next = { ...(this.secrets.get(id) ?? {}), ...values };
    this.secrets.set(id, next);
    return Object.keys(next);
  }
  async restart(agentId: string) {
    this.restarted.push(agentId);
  }
  async values(id: string) {
    return this.secrets.get(id) ?? {};
  }
  /** What `cdk deploy --all` makes: every stack, the secrets without values, the control plane's outputs. */
  deployed() {
    for (const s of STACKS) this.stacks.set(s, { StackStatus: 'CREATE_COMPLETE' });
    this.stacks.get('dd-control-plane')!.Outputs = [
      { OutputKey: 'TelegramWebhookUrl', OutputValue: 'https://abc123.lambda-url.eu-west-1.on.aws/' },
      { OutputKey: 'DashboardUrl', OutputValue: 'https://dash456.lambda-url.eu-west-1.on.aws/' },
    ];
    for (const id of ['clawfleet/dd/control/telegram', 'clawfleet/dd/control/dashboard', 'clawfleet/dd/agents/fran', 'clawfleet/dd/agents/grif'])
      if (!this.secrets.has(id)) this.secrets.set(id, null);
  }
}

/** An account with room for the fleet: Lambda's 1000, Fargate's 4000 vCPUs, IAM's 1000 roles… */
const ROOMY: AccountQuotaFigures = {
  lambda: { limit: 1000, unreserved: 1000 },
  reservations: {},
  serviceQuotas: { 'fargate/L-3032A538': 4000, 'fargate/L-36FBB829': 4000, 'cloudformation/L-0485CB21': 2000, 'vpc/L-F678F1CE': 5, 'vpc/L-A4707A72': 5 },
  iamRoles: { used: 14, quota: 1000 },
  stacks: 1,
  network: { vpcs: 1, internetGateways: 1 },
};

/** What the stand-in's templates make: the control plane 10 roles, each agent 3 (as the app does today). */
const ROLES: Record<string, number> = { 'dd-control-plane': 10, 'dd-agent-fran': 3, 'dd-agent-grif': 3 };

/** A CDK CLI stand-in: records each run; synth writes the assembly (manifest and templates), deploy makes the stacks. */
function fakeCdk(account: MemoryAccount, assemblyDir: string, fail?: { command: string; message: string }) {
  const runs: { args: string[]; cwd: string | undefined }[] = [];
  const runner = (interactive: boolean): CdkRunner => ({
    interactive,
    async run(args, opts) {
      runs.push({ args, cwd: opts?.cwd });
      // What the CLI may leave where it runs: the step removes its own directory, whatever happened.
      if (args[0] === 'bootstrap') writeFileSync(join(opts!.cwd!, 'cdk.context.json'), '{}');
      if (fail && args[0] === fail.command) throw new Error(fail.message);
      if (args[0] === 'bootstrap')
        account.stacks.set('CDKToolkit', { StackStatus: 'CREATE_COMPLETE', Outputs: [{ OutputKey: 'BootstrapVersion', OutputValue: '28' }] });
      if (args[0] === 'synth') {
        mkdirSync(assemblyDir, { recursive: true });
        writeFileSync(
          join(assemblyDir, 'manifest.json'),
          JSON.stringify({
            artifacts: Object.fromEntries(
              STACKS.map((s) => [s, { type: 'aws:cloudformation:stack', properties: { stackName: s, templateFile: `${s}.template.json` } }]),
            ),
          }),
        );
        for (const s of STACKS) {
          const resources = Object.fromEntries(Array.from({ length: ROLES[s]! }, (_, i) => [`Role${i}`, { Type: 'AWS::IAM::Role' }]));
          writeFileSync(join(assemblyDir, `${s}.template.json`), JSON.stringify({ Resources: { ...resources, Queue: { Type: 'AWS::SQS::Queue' } } }));
        }
      }
      if (args[0] === 'deploy') account.deployed();
    },
  });
  return { runs, runner };
}

function setup(opts: { fail?: { command: string; message: string }; quotas?: Partial<AccountQuotaFigures>; runtimes?: Record<string, object> } = {}) {
  const dir = tempDir('cf-deploy-');
  const list = FLEET.agents.list.map((a) => (opts.runtimes?.[a.id] ? { ...a, runtime: opts.runtimes[a.id] } : a));
  const config = { ...FLEET, agents: { ...FLEET.agents, list }, channels: { telegram: { ...FLEET.channels!.telegram!, apiRoot: tg.url } } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  const account = new MemoryAccount();
  const quotas = new InMemoryAccountQuotas({ ...ROOMY, ...opts.quotas });
  const assemblyDir = join(dir, 'cdk.out');
  const cdk = fakeCdk(account, assemblyDir, opts.fail);
  const deps = { account: () => account, quotas: () => quotas, assemblyDir, cdk: (o: { interactive: boolean }) => cdk.runner(o.interactive) };
  return { dir, account, quotas, cdk, deps };
}

describe('clawfleet deploy --plan', () => {
  it('prints every step, the values each secret needs and the preflight, creating nothing and running no CDK', async () => {
    const { dir, account, deps } = setup();
    const io = captureIO({ cwd: dir });
    expect(
      await runDeploy(['--plan'], io, {
        ...deps,
        cdk: () => {
          throw new Error('no CDK in a plan');
        },
      }),
    ).toBe(0);
    expect(io.outText()).toBe(
      [
        `deploy fleet "dd" (2 agents) from ${join(dir, 'clawfleet.json')}`,
        '  1. credentials: check the AWS credentials and region (STS GetCallerIdentity)',
        '  2. preflight: read the account’s quotas — Lambda concurrency (reserved concurrency is sized from it), Fargate vCPUs, CloudFormation stacks, VPCs, IAM roles — and stop before anything is made if the fleet would cross one',
        '  3. synth: synthesize 3 stacks (dd-control-plane, dd-agent-fran, dd-agent-grif) with cdk-nag and the account’s Lambda concurrency, check none is stuck, and check the IAM roles the new stacks make fit the account’s quota',
        '  4. bootstrap: make sure the account and region are CDK-bootstrapped (stack CDKToolkit); run `cdk bootstrap` if not',
        '  5. secrets: ask for the values the secrets lack (--secrets-file, else the terminal; hooks and dashboard tokens and OpenClaw device keys generated if not given)',
        '  6. deploy: cdk deploy --all (about 15 minutes the first time), then put the values whose secrets it made and restart the agents that got values',
        '  7. webhooks: point the webhook of "fran" at the deployed Telegram function URL (setWebhook, with the secret token)',
        '  8. links: print each bot’s t.me link and the dashboard’s and hooks’ URLs',
        '  values the secrets need (asked for in step 5):',
        '    clawfleet/dd/control/telegram: FRAN_BOT_TOKEN',
        '    clawfleet/dd/control/dashboard: DASHBOARD_TOKEN (generated if not given)',
        '    clawfleet/dd/agents/fran: OPENAI_API_KEY, GRAPH_TOKEN',
        '    clawfleet/dd/agents/grif: (no value needed)',
        '  preflight (step 2), account eu-west-1:',
        '    ✓ AWS Lambda "Concurrent executions" (lambda L-B99A9384): reserved concurrency: telegram-webhook 10, dashboard 5, compute 1 (16 of the account\'s 1000; 984 left unreserved); synth is told lambdaConcurrency=1000',
        '    ✓ AWS Fargate "Fargate On-Demand vCPU resource count" (fargate L-3032A538): all 2 agents awake at once need 0.5 vCPUs of 4000; other Fargate tasks in this account and region count against it too',
        '    ✓ AWS CloudFormation "Stack count" (cloudformation L-0485CB21): 1 of 2000 in use; the deploy adds 4 stacks (the control plane, one per agent, and the CDK bootstrap stack)',
        '    ✓ Amazon VPC "VPCs per Region" (vpc L-F678F1CE): 1 of 5 in use; the deploy adds 1 VPC (the control plane’s)',
        '    ✓ Amazon VPC "Internet gateways per Region" (vpc L-A4707A72): 1 of 5 in use; the deploy adds 1 internet gateway (its VPC’s)',
        '    IAM roles: 14 of 1000 in use; what the new stacks make is counted from their templates at step 3 (synth)',
        'plan only: nothing was created or changed',
      ].join('\n'),
    );
    // Read-only: who the credentials are, and which stacks exist; nothing put, nothing restarted.
    expect(account.calls).toEqual(['identity']);
    expect(account.restarted).toEqual([]);
  });

  it('without usable credentials prints the plan and says the preflight did not run', async () => {
    const { dir, account, deps } = setup();
    account.signedIn = false;
    const io = captureIO({ cwd: dir });
    expect(await runDeploy(['--plan'], io, deps)).toBe(0);
    expect(io.outText()).toContain(
      "  preflight: not run, no usable AWS credentials (CredentialsProviderError: Could not load credentials from any providers); sign in and run --plan again to check the account's quotas\nplan only: nothing was created or changed",
    );
  });

  it('is listed among the commands and refuses a value passed as context or a malformed --context', async () => {
    const { dir } = setup();
    expect(await runCli(['deploy', '--context', 'config=other.json'], captureIO({ cwd: dir }))).toBe(2);
    expect(await runCli(['deploy', '--context', 'no-equals'], captureIO({ cwd: dir }))).toBe(2);
  });
});

describe('clawfleet deploy', () => {
  it('goes from credentials to bot links on a first deploy, asking on the terminal (no echo) and putting each value where its secret is', async () => {
    const { dir, account, cdk, deps } = setup();
    // Bot token typed; the OpenAI key typed; the MCP token skipped (fran waits for it); the dashboard token generated.
    const io = captureIO({ cwd: dir, answers: [BOT, '', KEY, ''] });
    expect(await runDeploy([], io, deps), io.errText()).toBe(0);

    expect(io.asked).toEqual([
      { question: 'FRAN_BOT_TOKEN — the bot of account "fran", in clawfleet/dd/control/telegram (Enter to skip): ', secret: true },
      { question: 'DASHBOARD_TOKEN — the dashboard’s sign-in, in clawfleet/dd/control/dashboard (Enter to generate one): ', secret: true },
      { question: 'OPENAI_API_KEY — the API key of provider "openai", in clawfleet/dd/agents/fran (Enter to skip): ', secret: true },
      { question: 'GRAPH_TOKEN — MCP server "graph", in clawfleet/dd/agents/fran (Enter to skip): ', secret: true },
    ]);
    expect(cdk.runs.map((r) => r.args[0])).toEqual(['synth', 'bootstrap', 'deploy']);
    // Synthesized first (with the account's Lambda concurrency; both agents' stacks are new, so their services are
    // created at desired count 0, then left to λ compute), then bootstrapped from outside the app's directory.
    expect(cdk.runs[0]!.args).toEqual([
      'synth',
      '--quiet',
      '--output',
      join(dir, 'cdk.out'),
      '-c',
      `config=${join(dir, 'clawfleet.json')}`,
      '-c',
      'lambdaConcurrency=1000',
      '-c',
      'newAgents=fran,grif',
    ]);
    expect(cdk.runs[1]!.args).toEqual(['bootstrap', 'aws://123456789012/eu-west-1']);
    expect(cdk.runs[1]!.cwd).toMatch(/clawfleet-bootstrap-/);
    expect(existsSync(cdk.runs[1]!.cwd!)).toBe(false);
    // A terminal for the test's questions, but not for the CDK CLI's: it is told not to ask.
    expect(cdk.runs[2]!.args).toEqual([
      'deploy',
      '--all',
      '--app',
      join(dir, 'cdk.out'),
      '--outputs-file',
      join(dir, 'cdk-outputs.json'),
      '--require-approval',
      'never',
    ]);
    // First deploy: no secret existed, so every value went in right after the deploy.
    expect(account.secrets.get('clawfleet/dd/control/telegram')).toEqual({ FRAN_BOT_TOKEN: BOT });
    expect(account.secrets.get('clawfleet/dd/agents/fran')).toEqual({ OPENAI_API_KEY: KEY });
    expect(account.secrets.get('clawfleet/dd/control/dashboard')!.DASHBOARD_TOKEN).toMatch(/^[0-9a-f]{48}$/);
    expect(account.restarted).toEqual(['fran']);
    // The webhook, with the secret token Telegram will echo, and the bot's link.
    const [hook] = tg.calls('setWebhook');
    expect(hook!.params).toMatchObject({
      url: 'https://abc123.lambda-url.eu-west-1.on.aws/telegram/fran',
      allowed_updates: ['message', 'callback_query', 'message_reaction'],
      secret_token: expect.any(String),
    });

    const out = io.outText();
    expect(out).toContain('  ✓ [1/8] credentials: account 123456789012 as arn:aws:iam::123456789012:user/ops, region eu-west-1');
    expect(out).toContain('  ✓ [4/8] bootstrap: bootstrapped aws://123456789012/eu-west-1');
    expect(out).toContain('  ✓ [3/8] synth: 3 stacks (3 new, 0 deployed before), cdk-nag clean');
    expect(out).toMatch(
      / {2}✓ \[5\/8\] secrets: given: FRAN_BOT_TOKEN for telegram \(typed\); DASHBOARD_TOKEN for dashboard \(generated: aws secretsmanager get-secret-value --secret-id clawfleet\/dd\/control\/dashboard --query SecretString shows it\); OPENAI_API_KEY for agent fran \(typed\); put after the deploy \(their secrets are made by it\): FRAN_BOT_TOKEN, DASHBOARD_TOKEN, OPENAI_API_KEY; not set, waited for: GRAPH_TOKEN \(agent fran\)/,
    );
    expect(out).toContain(
      `  ✓ [6/8] deploy: 3 stacks deployed (outputs in ${join(dir, 'cdk-outputs.json')}); put FRAN_BOT_TOKEN, DASHBOARD_TOKEN, OPENAI_API_KEY; asked dd-compute to restart fran`,
    );
    expect(out).toContain('  ✓ [7/8] webhooks: fran → https://abc123.lambda-url.eu-west-1.on.aws/telegram/fran');
    expect(out).toContain(
      '      bot "fran": https://t.me/fran_helper_bot\n      dashboard: https://dash456.lambda-url.eu-west-1.on.aws/ (sign in: `npx clawfleet dashboard --aws` prints a sign-in link, or use DASHBOARD_TOKEN)',
    );
    expect(out).toMatch(/deployed, with this left to do:\n {2}- GRAPH_TOKEN for agent fran: clawfleet secrets set GRAPH_TOKEN --agent fran --aws$/);
    for (const value of [BOT, KEY, account.secrets.get('clawfleet/dd/control/dashboard')!.DASHBOARD_TOKEN!]) expect(out + io.errText()).not.toContain(value);

    // Again: bootstrap skipped, only the value still missing asked for, put at once (its secret exists now).
    const again = captureIO({ cwd: dir, answers: ['graph-token-0123456789abcdef'] });
    expect(await runDeploy([], again, deps), again.errText()).toBe(0);
    expect(again.asked!.map((a) => a.question)).toEqual(['GRAPH_TOKEN — MCP server "graph", in clawfleet/dd/agents/fran (Enter to skip): ']);
    expect(again.outText()).toContain('  – [4/8] bootstrap: bootstrapped already (version 28)');
    expect(again.outText()).toContain('  ✓ [3/8] synth: 3 stacks (0 new, 3 deployed before), cdk-nag clean');
    // No stack is new: no template names a desired count, so the deploy leaves every service as it runs.
    expect(
      cdk.runs
        .filter((r) => r.args[0] === 'synth')
        .at(-1)!
        .args.some((a) => a.startsWith('newAgents=')),
    ).toBe(false);
    expect(again.outText()).toContain('put now: GRAPH_TOKEN');
    expect(account.secrets.get('clawfleet/dd/agents/fran')).toEqual({ OPENAI_API_KEY: KEY, GRAPH_TOKEN: 'graph-token-0123456789abcdef' });
    expect(again.outText()).toMatch(/deployed: message a bot above to talk to its agent/);
  });

  it('takes values from a secrets file, and without a terminal fails listing every one still missing — before anything is deployed', async () => {
    const { dir, account, cdk, deps } = setup();
    writeFileSync(
      join(dir, 'values.json'),
      JSON.stringify({ 'clawfleet/dd/control/telegram': { FRAN_BOT_TOKEN: BOT }, 'clawfleet/dd/agents/fran': { OPENAI_API_KEY: KEY } }),
    );
    const io = captureIO({ cwd: dir });
    expect(await runDeploy(['--secrets-file', 'values.json'], io, deps)).toBe(1);
    expect(io.errText()).toBe(
      [
        '  ✗ [5/8] secrets: 1 value(s) missing:',
        '      clawfleet/dd/agents/fran: GRAPH_TOKEN (MCP server "graph")',
        '    give them in --secrets-file (or - for standard input), or run on a terminal to type them; nothing was deployed',
        '    not done: deploy, webhooks, links',
      ].join('\n'),
    );
    expect(cdk.runs.map((r) => r.args[0])).toEqual(['synth', 'bootstrap']);
    expect(account.stacks.has('dd-control-plane')).toBe(false);

    // The same from standard input, now complete: deployed without a question.
    const all = JSON.stringify({
      'clawfleet/dd/control/telegram': { FRAN_BOT_TOKEN: BOT },
      'clawfleet/dd/agents/fran': { OPENAI_API_KEY: KEY, GRAPH_TOKEN: 'g-0123456789' },
    });
    const io2 = captureIO({ cwd: dir, stdin: all });
    expect(await runDeploy(['--secrets-file', '-', '--non-interactive'], io2, deps), io2.errText()).toBe(0);
    expect(account.secrets.get('clawfleet/dd/agents/fran')).toEqual({ OPENAI_API_KEY: KEY, GRAPH_TOKEN: 'g-0123456789' });
    expect(io2.outText()).not.toContain(KEY);
  });

  it('calls no Bot API with --no-webhooks (a fleet whose bots answer elsewhere, the smoke test)', async () => {
    const { dir, deps } = setup();
    const before = tg.calls().length;
    const io = captureIO({
      cwd: dir,
      stdin: JSON.stringify({
        'clawfleet/dd/control/telegram': { FRAN_BOT_TOKEN: BOT },
        'clawfleet/dd/agents/fran': { OPENAI_API_KEY: KEY, GRAPH_TOKEN: 'g' },
      }),
    });
    expect(await runDeploy(['--secrets-file', '-', '--no-webhooks'], io, deps), io.errText()).toBe(0);
    expect(io.outText()).toContain('  – [7/8] webhooks: --no-webhooks: the bots are left as they are');
    expect(io.outText()).toContain(
      '  ✓ [8/8] links: \n      dashboard: https://dash456.lambda-url.eu-west-1.on.aws/ (sign in: `npx clawfleet dashboard --aws` prints a sign-in link, or use DASHBOARD_TOKEN)',
    );
    expect(tg.calls().length).toBe(before);
  });

  it('stops at credentials it cannot use, saying how to sign in, and runs nothing after', async () => {
    const { dir, account, cdk, deps } = setup();
    account.signedIn = false;
    const io = captureIO({ cwd: dir });
    expect(await runDeploy([], io, deps)).toBe(1);
    expect(io.errText()).toMatch(
      /^ {2}✗ \[1\/8\] credentials: no AWS credentials found \[CredentialsProviderError\]\n {4}sign in \(aws configure, aws sso login, or AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\), then run clawfleet deploy again\n {4}not done: preflight, synth, bootstrap, secrets, deploy, webhooks, links$/,
    );
    expect(cdk.runs).toEqual([]);
  });

  it('names a stack CloudFormation cannot update (a first deploy rolled back) and says to delete it', async () => {
    const { dir, account, deps } = setup();
    account.stacks.set('CDKToolkit', { StackStatus: 'UPDATE_COMPLETE' });
    account.stacks.set('dd-agent-fran', { StackStatus: 'ROLLBACK_COMPLETE' });
    const io = captureIO({ cwd: dir });
    expect(await runDeploy(['--non-interactive'], io, deps)).toBe(1);
    expect(io.errText()).toContain(
      '  ✗ [3/8] synth: dd-agent-fran is ROLLBACK_COMPLETE: CloudFormation cannot update it\n    delete it (aws cloudformation delete-stack --stack-name <name>), then run clawfleet deploy again',
    );
  });

  it('passes a failed cdk deploy on with its last lines and what to do, the values kept for the next run', async () => {
    const { dir, deps } = setup({
      fail: { command: 'deploy', message: 'cdk deploy exited 1; its last lines:\n      ❌ dd-control-plane failed: Resource limit exceeded' },
    });
    const io = captureIO({
      cwd: dir,
      stdin: JSON.stringify({
        'clawfleet/dd/control/telegram': { FRAN_BOT_TOKEN: BOT },
        'clawfleet/dd/agents/fran': { OPENAI_API_KEY: KEY, GRAPH_TOKEN: 'g' },
      }),
    });
    expect(await runDeploy(['--secrets-file', '-', '--non-interactive'], io, deps)).toBe(1);
    expect(io.errText()).toContain(
      '  ✗ [6/8] deploy: cdk deploy exited 1; its last lines:\n      ❌ dd-control-plane failed: Resource limit exceeded\n    the stacks that deployed stay; fix the cause and run clawfleet deploy again',
    );
    expect(readFileSync(join(dir, 'clawfleet.json'), 'utf8')).toContain('"dd"');
  });

  it('says what to check when cdk bootstrap fails, and leaves no directory of its own behind', async () => {
    const { dir, deps, cdk } = setup({ fail: { command: 'bootstrap', message: 'cdk bootstrap exited 1: AccessDenied' } });
    const io = captureIO({ cwd: dir });
    expect(await runDeploy(['--non-interactive'], io, deps)).toBe(1);
    expect(io.errText()).toMatch(
      / {2}✗ \[\d\/\d\] bootstrap: cdk bootstrap exited 1: AccessDenied\n {4}check your credentials may create CloudFormation stacks/,
    );
    const bootstrap = cdk.runs.find((r) => r.args[0] === 'bootstrap')!;
    expect(cdk.runs.at(-1)).toBe(bootstrap);
    expect(existsSync(bootstrap.cwd!)).toBe(false);
  });
});

describe('the preflight', () => {
  /** Every value given on standard input, nothing asked: the deploy runs through unless a quota stops it. */
  const ALL = JSON.stringify({
    'clawfleet/dd/control/telegram': { FRAN_BOT_TOKEN: BOT },
    'clawfleet/dd/agents/fran': { OPENAI_API_KEY: KEY, GRAPH_TOKEN: 'g-0123456789' },
  });
  async function deploy(s: ReturnType<typeof setup>, args: string[] = []) {
    const io = captureIO({ cwd: s.dir, stdin: ALL });
    const code = await runDeploy(['--secrets-file', '-', '--non-interactive', ...args], io, s.deps);
    return { code, out: io.outText(), err: io.errText() };
  }
  const synthArgs = (s: ReturnType<typeof setup>) => s.cdk.runs.find((r) => r.args[0] === 'synth')?.args ?? [];

  it('on a new account’s 10 concurrent executions reserves nothing, says so with the quota to raise, and deploys', async () => {
    const s = setup({ quotas: { lambda: { limit: 10, unreserved: 10 } } });
    const r = await deploy(s);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      '      ! AWS Lambda "Concurrent executions" (lambda L-B99A9384): reserved concurrency: none (the account gives 10 concurrent executions; reserving 16 (telegram-webhook 10, dashboard 5, compute 1) needs 116, since Lambda keeps 100 unreserved. Raise the quota "Concurrent executions" (Service Quotas, AWS Lambda) to reserve); synth is told lambdaConcurrency=10. ' +
        'The fleet deploys, its functions sharing what is unreserved: a flood of webhook or dashboard requests can then hold back outbox and cron-dispatch. A quota of 116 lets it reserve\n' +
        '          raise it: aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 116 --region eu-west-1\n' +
        '          or in the console: https://eu-west-1.console.aws.amazon.com/servicequotas/home/services/lambda/quotas/L-B99A9384',
    );
    expect(r.out).toContain('  ✓ [2/8] preflight: 5 of 5 quotas read, 1 warning (!); IAM roles follow synth');
    expect(synthArgs(s)).toContain('lambdaConcurrency=10');
    // Said again at the end, with the rest of what is left to do.
    expect(r.out).toMatch(
      /deployed, with this left to do:\n {2}- AWS Lambda "Concurrent executions": aws service-quotas request-service-quota-increase --service-code lambda --quota-code L-B99A9384 --desired-value 116 --region eu-west-1$/,
    );
  });

  it('counts what other functions reserve as not the fleet’s, and a redeploy’s own reservations as its own', async () => {
    // 890 of 1000 reserved by others: 110 left, short of 116.
    const crowded = setup({ quotas: { lambda: { limit: 1000, unreserved: 110 } } });
    const r = await deploy(crowded);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("890 of the account's 1000 are reserved by other functions; synth is told lambdaConcurrency=110.");
    expect(r.out).toContain('--quota-code L-B99A9384 --desired-value 1006 --region eu-west-1');
    // The fleet's own 16 are reserved already: they are the fleet's to reserve again.
    const again = setup({
      quotas: { lambda: { limit: 1000, unreserved: 984 }, reservations: { 'dd-telegram-webhook': 10, 'dd-dashboard': 5, 'dd-compute': 1, 'other-fn': 50 } },
    });
    const r2 = await deploy(again);
    expect(r2.code, r2.err).toBe(0);
    expect(r2.out).toContain(
      '      ✓ AWS Lambda "Concurrent executions" (lambda L-B99A9384): reserved concurrency: telegram-webhook 10, dashboard 5, compute 1 (16 of the account\'s 1000; 984 left unreserved); synth is told lambdaConcurrency=1000',
    );
    expect(synthArgs(again)).toContain('lambdaConcurrency=1000');
  });

  it('uses a lambdaConcurrency given with --context as given, and reserves nothing with reservedConcurrency=false', async () => {
    const s = setup({ quotas: { lambda: { limit: 10, unreserved: 10 } } });
    const r = await deploy(s, ['--context', 'lambdaConcurrency=500']);
    expect(r.code, r.err).toBe(0);
    expect(synthArgs(s).filter((a) => a.startsWith('lambdaConcurrency='))).toEqual(['lambdaConcurrency=500']);
    expect(r.out).toContain(
      '✓ AWS Lambda "Concurrent executions" (lambda L-B99A9384): lambdaConcurrency=500 as given with --context: reserved concurrency: telegram-webhook 10',
    );
    const off = setup({ quotas: { lambda: { limit: 10, unreserved: 10 } } });
    const r2 = await deploy(off, ['--context', 'reservedConcurrency=false']);
    expect(r2.code, r2.err).toBe(0);
    expect(r2.out).toContain(
      '✓ AWS Lambda "Concurrent executions" (lambda L-B99A9384): reserved concurrency: none (reservedConcurrency=false); synth is told lambdaConcurrency=10',
    );
  });

  it('stops before anything is made when the always-on agents and one that wakes do not fit Fargate’s vCPUs', async () => {
    const s = setup({
      runtimes: { fran: { cpus: 2, memoryMb: 4096, alwaysOn: true } },
      quotas: { serviceQuotas: { ...ROOMY.serviceQuotas, 'fargate/L-3032A538': 2 } },
    });
    const r = await deploy(s);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      [
        '  ✗ [2/8] preflight: the fleet would cross a quota (✗); nothing was created:',
        '      ✓ AWS Lambda "Concurrent executions" (lambda L-B99A9384): reserved concurrency: telegram-webhook 10, dashboard 5, compute 1 (16 of the account\'s 1000; 984 left unreserved); synth is told lambdaConcurrency=1000',
        '      ✗ AWS Fargate "Fargate On-Demand vCPU resource count" (fargate L-3032A538): the quota is 2 vCPUs; the fleet needs 2.25 running at once (always on: fran 2; the largest that hibernates: grif 0.25), and 2.25 with all 2 awake; other Fargate tasks in this account and region count against it too',
        '          raise it: aws service-quotas request-service-quota-increase --service-code fargate --quota-code L-3032A538 --desired-value 3 --region eu-west-1',
        '          or in the console: https://eu-west-1.console.aws.amazon.com/servicequotas/home/services/fargate/quotas/L-3032A538',
        '      ✓ AWS CloudFormation "Stack count" (cloudformation L-0485CB21): 1 of 2000 in use; the deploy adds 4 stacks (the control plane, one per agent, and the CDK bootstrap stack)',
        '      ✓ Amazon VPC "VPCs per Region" (vpc L-F678F1CE): 1 of 5 in use; the deploy adds 1 VPC (the control plane’s)',
        '      ✓ Amazon VPC "Internet gateways per Region" (vpc L-A4707A72): 1 of 5 in use; the deploy adds 1 internet gateway (its VPC’s)',
        '    raise each quota marked ✗ (the lines under it say how; an increase can take a while to be granted), then run clawfleet deploy again',
        '    not done: synth, bootstrap, secrets, deploy, webhooks, links',
      ].join('\n'),
    );
    // Not even synth ran: no stack, no bootstrap, no value put.
    expect(s.cdk.runs).toEqual([]);
    expect([...s.account.stacks.keys()]).toEqual([]);
    expect(s.account.secrets.size).toBe(0);
  });

  it('warns, and deploys, when all agents awake at once would not fit; Spot agents are counted against Spot’s quota', async () => {
    const s = setup({
      runtimes: { fran: { cpus: 1, memoryMb: 2048 }, grif: { cpus: 1, memoryMb: 2048, spot: true } },
      quotas: { serviceQuotas: { ...ROOMY.serviceQuotas, 'fargate/L-3032A538': 4000, 'fargate/L-36FBB829': 0.5 } },
    });
    let r = await deploy(s);
    // Spot: grif alone, 1 vCPU, against 0.5: it could never wake — blocking.
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      '      ✗ AWS Fargate "Fargate Spot vCPU resource count" (fargate L-36FBB829): the quota is 0.5 vCPUs; the fleet needs 1 running at once (the largest that hibernates: grif 1), and 1 with all 1 awake',
    );
    expect(r.err).toContain(
      '      ✓ AWS Fargate "Fargate On-Demand vCPU resource count" (fargate L-3032A538): all 1 agents awake at once need 1 vCPUs of 4000',
    );

    const w = setup({
      runtimes: { fran: { cpus: 1, memoryMb: 2048 }, grif: { cpus: 1, memoryMb: 2048 } },
      quotas: { serviceQuotas: { ...ROOMY.serviceQuotas, 'fargate/L-3032A538': 1 } },
    });
    r = await deploy(w);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      '      ! AWS Fargate "Fargate On-Demand vCPU resource count" (fargate L-3032A538): all 2 agents awake at once (a cron job or a broadcast wakes them together) need 2 vCPUs, the quota is 1: past it an agent waits to wake until another hibernates; other Fargate tasks in this account and region count against it too\n' +
        '          raise it: aws service-quotas request-service-quota-increase --service-code fargate --quota-code L-3032A538 --desired-value 2 --region eu-west-1',
    );
    expect(r.out).toContain('  ✓ [6/8] deploy: 3 stacks deployed');
  });

  it('stops before anything is made when the stacks or the VPC would not fit, naming each; a deployed control plane adds neither', async () => {
    const s = setup({ quotas: { stacks: 1998, network: { vpcs: 5, internetGateways: 5 } } });
    const r = await deploy(s);
    expect(r.code).toBe(1);
    expect(r.err).toContain('  ✗ [2/8] preflight: the fleet would cross 3 quotas (✗); nothing was created:');
    expect(r.err).toContain(
      '      ✗ AWS CloudFormation "Stack count" (cloudformation L-0485CB21): 1998 of 2000 in use; the deploy adds 4 stacks (the control plane, one per agent, and the CDK bootstrap stack), 2 too many\n' +
        '          raise it: aws service-quotas request-service-quota-increase --service-code cloudformation --quota-code L-0485CB21 --desired-value 2002 --region eu-west-1',
    );
    expect(r.err).toContain(
      '      ✗ Amazon VPC "VPCs per Region" (vpc L-F678F1CE): 5 of 5 in use; the deploy adds 1 VPC (the control plane’s), 1 too many\n' +
        '          raise it: aws service-quotas request-service-quota-increase --service-code vpc --quota-code L-F678F1CE --desired-value 6 --region eu-west-1',
    );
    expect(r.err).toContain(
      '      ✗ Amazon VPC "Internet gateways per Region" (vpc L-A4707A72): 5 of 5 in use; the deploy adds 1 internet gateway (its VPC’s), 1 too many',
    );
    expect(s.cdk.runs).toEqual([]);

    // The control plane (with its VPC) and the bootstrap stack are there already: only the agents' stacks are new.
    s.account.stacks.set('dd-control-plane', { StackStatus: 'CREATE_COMPLETE' });
    s.account.stacks.set('CDKToolkit', { StackStatus: 'CREATE_COMPLETE' });
    const r2 = await deploy(s);
    expect(r2.code, r2.err).toBe(0);
    expect(r2.out).toContain('✓ AWS CloudFormation "Stack count" (cloudformation L-0485CB21): 1998 of 2000 in use; the deploy adds 2 stacks');
    expect(r2.out).toContain('✓ Amazon VPC "VPCs per Region" (vpc L-F678F1CE): 5 of 5 in use; the deploy adds 0 VPC');
  });

  it('counts the IAM roles the new stacks’ templates make and stops after synth when they do not fit, before bootstrap or deploy', async () => {
    const s = setup({ quotas: { iamRoles: { used: 990, quota: 1000 } } });
    const r = await deploy(s);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      [
        '  ✗ [3/8] synth: the new stacks make 16 IAM roles, more than the account has room for; nothing was created:',
        '      ✗ IAM "Roles per account" (iam L-FE177D64): 990 of 1000 in use; the deploy adds 16 roles (counted in the new stacks’ templates), 6 too many',
        '          raise it: aws service-quotas request-service-quota-increase --service-code iam --quota-code L-FE177D64 --desired-value 1006 --region us-east-1',
        '          or in the console: https://us-east-1.console.aws.amazon.com/servicequotas/home/services/iam/quotas/L-FE177D64',
        '    raise the quota (the lines under it say how), or remove roles the account no longer needs, then run clawfleet deploy again',
        '    not done: bootstrap, secrets, deploy, webhooks, links',
      ].join('\n'),
    );
    expect(s.cdk.runs.map((x) => x.args[0])).toEqual(['synth']);

    // Stacks deployed already have their roles counted in the account: only new stacks' roles are added.
    s.account.stacks.set('dd-control-plane', { StackStatus: 'CREATE_COMPLETE' });
    const r2 = await deploy(s);
    expect(r2.code, r2.err).toBe(0);
    expect(r2.out).toContain(
      '      ✓ IAM "Roles per account" (iam L-FE177D64): 990 of 1000 in use; the deploy adds 6 roles (counted in the new stacks’ templates)',
    );
  });

  it('goes on, saying which it could not check and how to check by hand, when a figure cannot be read', async () => {
    const s = setup();
    const denied = Object.assign(new Error('User: arn:aws:iam::123456789012:user/ops is not authorized to perform: servicequotas:GetServiceQuota'), {
      name: 'AccessDeniedException',
    });
    s.quotas.failing.set('fargate/L-3032A538', denied);
    s.quotas.failing.set('lambda', Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
    const r = await deploy(s);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(
      '      ! AWS Fargate "Fargate On-Demand vCPU resource count" (fargate L-3032A538): could not be read (AccessDeniedException: User: arn:aws:iam::123456789012:user/ops is not authorized to perform: servicequotas:GetServiceQuota); not checked. Check it by hand: aws service-quotas get-service-quota --service-code fargate --quota-code L-3032A538',
    );
    expect(r.out).toContain(
      '      ! AWS Lambda "Concurrent executions" (lambda L-B99A9384): could not be read (TooManyRequestsException: Rate exceeded); not checked, so nothing is reserved (none (the account\'s Lambda concurrency was not given;',
    );
    expect(r.out).toContain('  ✓ [2/8] preflight: 3 of 5 quotas read, 2 warnings (!)');
    // Unknown, the app reserves nothing: synth is told no figure.
    expect(synthArgs(s).some((a) => a.startsWith('lambdaConcurrency='))).toBe(false);
  });

  it('with --plan, says the deploy would stop and exits 1 when a quota is crossed', async () => {
    const s = setup({ quotas: { network: { vpcs: 5, internetGateways: 1 } } });
    const io = captureIO({ cwd: s.dir });
    expect(await runDeploy(['--plan'], io, s.deps)).toBe(1);
    expect(io.outText()).toContain(
      '    ✗ Amazon VPC "VPCs per Region" (vpc L-F678F1CE): 5 of 5 in use; the deploy adds 1 VPC (the control plane’s), 1 too many',
    );
    expect(io.outText()).toMatch(/ {2}the deploy would stop at step 2: raise each quota marked ✗ first\nplan only: nothing was created or changed$/);
    expect(s.cdk.runs).toEqual([]);
  });
});
