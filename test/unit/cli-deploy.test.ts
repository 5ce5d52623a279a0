// `clawfleet deploy`, offline: its plan without any AWS call, and its steps in order over an
// in-memory account and a CDK CLI stand-in (the real one against the emulator is
// test/integration/deploy-day.test.ts). What it asks for and where values go; what a failed
// step says and that nothing after it runs; a second run asks nothing and skips what is done;
// values never reach the output. The Bot API is the fake Telegram server (its real wire format).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeployAccountPort, SecretState } from '../../cli/deploy/aws-account.ts';
import type { CdkRunner } from '../../cli/deploy/cdk.ts';
import { runDeploy } from '../../cli/deploy.ts';
import { runCli } from '../../cli/main.ts';
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

/** A CDK CLI stand-in: records each run; synth writes the assembly's manifest, deploy makes the stacks. */
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
          JSON.stringify({ artifacts: Object.fromEntries(STACKS.map((s) => [s, { type: 'aws:cloudformation:stack', properties: { stackName: s } }])) }),
        );
      }
      if (args[0] === 'deploy') account.deployed();
    },
  });
  return { runs, runner };
}

function setup(opts: { fail?: { command: string; message: string } } = {}) {
  const dir = tempDir('cf-deploy-');
  const config = { ...FLEET, channels: { telegram: { ...FLEET.channels!.telegram!, apiRoot: tg.url } } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  const account = new MemoryAccount();
  const assemblyDir = join(dir, 'cdk.out');
  const cdk = fakeCdk(account, assemblyDir, opts.fail);
  const deps = { account: () => account, assemblyDir, cdk: (o: { interactive: boolean }) => cdk.runner(o.interactive) };
  return { dir, account, cdk, deps };
}

describe('clawfleet deploy --plan', () => {
  it('prints every step and the values each secret needs, calling no AWS API', async () => {
    const { dir } = setup();
    const io = captureIO({ cwd: dir });
    expect(
      await runDeploy(['--plan'], io, {
        account: () => {
          throw new Error('no AWS call in a plan');
        },
        cdk: () => {
          throw new Error('no CDK in a plan');
        },
      }),
    ).toBe(0);
    expect(io.outText()).toBe(
      [
        `deploy fleet "dd" (2 agents) from ${join(dir, 'clawfleet.json')}`,
        '  1. credentials: check the AWS credentials and region (STS GetCallerIdentity)',
        '  2. bootstrap: make sure the account and region are CDK-bootstrapped (stack CDKToolkit); run `cdk bootstrap` if not',
        '  3. synth: synthesize 3 stacks (dd-control-plane, dd-agent-fran, dd-agent-grif) with cdk-nag, and check none is stuck',
        '  4. secrets: ask for the values the secrets lack (--secrets-file, else the terminal; hooks and dashboard tokens and OpenClaw device keys generated if not given)',
        '  5. deploy: cdk deploy --all (about 15 minutes the first time), then put the values whose secrets it made and restart the agents that got values',
        '  6. webhooks: point the webhook of "fran" at the deployed Telegram function URL (setWebhook, with the secret token)',
        '  7. links: print each bot’s t.me link and the dashboard’s and hooks’ URLs',
        '  values the secrets need (asked for in step 4):',
        '    clawfleet/dd/control/telegram: FRAN_BOT_TOKEN',
        '    clawfleet/dd/control/dashboard: DASHBOARD_TOKEN (generated if not given)',
        '    clawfleet/dd/agents/fran: OPENAI_API_KEY, GRAPH_TOKEN',
        '    clawfleet/dd/agents/grif: (no value needed)',
        'plan only: no AWS call was made',
      ].join('\n'),
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
    // Bootstrapped from outside the app's directory, synthesized with the config, deployed from that assembly.
    expect(cdk.runs.map((r) => r.args[0])).toEqual(['bootstrap', 'synth', 'deploy']);
    expect(cdk.runs[0]!.args).toEqual(['bootstrap', 'aws://123456789012/eu-west-1']);
    expect(cdk.runs[0]!.cwd).toMatch(/clawfleet-bootstrap-/);
    expect(existsSync(cdk.runs[0]!.cwd!)).toBe(false);
    expect(cdk.runs[1]!.args).toEqual(['synth', '--quiet', '--output', join(dir, 'cdk.out'), '-c', `config=${join(dir, 'clawfleet.json')}`]);
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
      allowed_updates: ['message', 'callback_query'],
      secret_token: expect.any(String),
    });

    const out = io.outText();
    expect(out).toContain('  ✓ [1/7] credentials: account 123456789012 as arn:aws:iam::123456789012:user/ops, region eu-west-1');
    expect(out).toContain('  ✓ [2/7] bootstrap: bootstrapped aws://123456789012/eu-west-1');
    expect(out).toContain('  ✓ [3/7] synth: 3 stacks (3 new, 0 deployed before), cdk-nag clean');
    expect(out).toMatch(
      / {2}✓ \[4\/7\] secrets: given: FRAN_BOT_TOKEN for telegram \(typed\); DASHBOARD_TOKEN for dashboard \(generated: aws secretsmanager get-secret-value --secret-id clawfleet\/dd\/control\/dashboard --query SecretString shows it\); OPENAI_API_KEY for agent fran \(typed\); put after the deploy \(their secrets are made by it\): FRAN_BOT_TOKEN, DASHBOARD_TOKEN, OPENAI_API_KEY; not set, waited for: GRAPH_TOKEN \(agent fran\)/,
    );
    expect(out).toContain(
      `  ✓ [5/7] deploy: 3 stacks deployed (outputs in ${join(dir, 'cdk-outputs.json')}); put FRAN_BOT_TOKEN, DASHBOARD_TOKEN, OPENAI_API_KEY; asked dd-compute to restart fran`,
    );
    expect(out).toContain('  ✓ [6/7] webhooks: fran → https://abc123.lambda-url.eu-west-1.on.aws/telegram/fran');
    expect(out).toContain(
      '      bot "fran": https://t.me/fran_helper_bot\n      dashboard: https://dash456.lambda-url.eu-west-1.on.aws/ (sign in with DASHBOARD_TOKEN)',
    );
    expect(out).toMatch(/deployed, with this left to do:\n {2}- GRAPH_TOKEN for agent fran: clawfleet secrets set GRAPH_TOKEN --agent fran --aws$/);
    for (const value of [BOT, KEY, account.secrets.get('clawfleet/dd/control/dashboard')!.DASHBOARD_TOKEN!]) expect(out + io.errText()).not.toContain(value);

    // Again: bootstrap skipped, only the value still missing asked for, put at once (its secret exists now).
    const again = captureIO({ cwd: dir, answers: ['graph-token-0123456789abcdef'] });
    expect(await runDeploy([], again, deps), again.errText()).toBe(0);
    expect(again.asked!.map((a) => a.question)).toEqual(['GRAPH_TOKEN — MCP server "graph", in clawfleet/dd/agents/fran (Enter to skip): ']);
    expect(again.outText()).toContain('  – [2/7] bootstrap: bootstrapped already (version 28)');
    expect(again.outText()).toContain('  ✓ [3/7] synth: 3 stacks (0 new, 3 deployed before), cdk-nag clean');
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
        '  ✗ [4/7] secrets: 1 value(s) missing:',
        '      clawfleet/dd/agents/fran: GRAPH_TOKEN (MCP server "graph")',
        '    give them in --secrets-file (or - for standard input), or run on a terminal to type them; nothing was deployed',
        '    not done: deploy, webhooks, links',
      ].join('\n'),
    );
    expect(cdk.runs.map((r) => r.args[0])).toEqual(['bootstrap', 'synth']);
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
    expect(io.outText()).toContain('  – [6/7] webhooks: --no-webhooks: the bots are left as they are');
    expect(io.outText()).toContain('  ✓ [7/7] links: \n      dashboard: https://dash456.lambda-url.eu-west-1.on.aws/ (sign in with DASHBOARD_TOKEN)');
    expect(tg.calls().length).toBe(before);
  });

  it('stops at credentials it cannot use, saying how to sign in, and runs nothing after', async () => {
    const { dir, account, cdk, deps } = setup();
    account.signedIn = false;
    const io = captureIO({ cwd: dir });
    expect(await runDeploy([], io, deps)).toBe(1);
    expect(io.errText()).toMatch(
      /^ {2}✗ \[1\/7\] credentials: no usable AWS credentials \(CredentialsProviderError: Could not load credentials from any providers\)\n {4}sign in \(aws configure, aws sso login, or AWS_PROFILE \/ AWS_ACCESS_KEY_ID\), set AWS_REGION, then run clawfleet deploy again\n {4}not done: bootstrap, synth, secrets, deploy, webhooks, links$/,
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
      '  ✗ [3/7] synth: dd-agent-fran is ROLLBACK_COMPLETE: CloudFormation cannot update it\n    delete it (aws cloudformation delete-stack --stack-name <name>), then run clawfleet deploy again',
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
      '  ✗ [5/7] deploy: cdk deploy exited 1; its last lines:\n      ❌ dd-control-plane failed: Resource limit exceeded\n    the stacks that deployed stay; fix the cause and run clawfleet deploy again',
    );
    expect(readFileSync(join(dir, 'clawfleet.json'), 'utf8')).toContain('"dd"');
  });

  it('says what to check when cdk bootstrap fails, and leaves no directory of its own behind', async () => {
    const { dir, deps, cdk } = setup({ fail: { command: 'bootstrap', message: 'cdk bootstrap exited 1: AccessDenied' } });
    const io = captureIO({ cwd: dir });
    expect(await runDeploy(['--non-interactive'], io, deps)).toBe(1);
    expect(io.errText()).toContain('  ✗ [2/7] bootstrap: cdk bootstrap exited 1: AccessDenied\n    check your credentials may create CloudFormation stacks');
    expect(cdk.runs.map((r) => r.args[0])).toEqual(['bootstrap']);
    expect(existsSync(cdk.runs[0]!.cwd!)).toBe(false);
  });
});
