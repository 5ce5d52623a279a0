// The CLI's commands that need no running fleet: help and exit codes, config validate,
// secrets in the local file (names only in output), cron list, cost.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, runCli } from '../../cli/main.ts';
import { PRICES_DATE } from '../../cli/aws-prices.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const demo = readFileSync('clawfleet.json', 'utf8');

function workdir(config: unknown = JSON.parse(demo)): string {
  const dir = tempDir('cf-cli-');
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  return dir;
}

describe('clawfleet', () => {
  it('lists its commands, and answers --help on every one of them with exit 0', async () => {
    const io = captureIO();
    expect(await runCli(['--help'], io)).toBe(0);
    for (const c of COMMANDS.filter((c) => !c.hidden)) expect(io.outText()).toContain(`  ${c.name}`);
    for (const c of COMMANDS) {
      const each = captureIO();
      expect(await runCli([c.name, '--help'], each), c.name).toBe(0);
      expect(each.outText(), c.name).toMatch(/^Usage: clawfleet /);
    }
  });

  it('exits 2 with the help on an unknown command, subcommand or option', async () => {
    for (const argv of [['nope'], ['runtime', 'explode', '--agent', 'jerry'], ['status', '--colour'], ['secrets'], []]) {
      const io = captureIO({ cwd: workdir() });
      expect(await runCli(argv, io), argv.join(' ')).toBe(2);
    }
  });

  it('validates a config, printing every problem with its path (exit 3)', async () => {
    const ok = captureIO({ cwd: workdir() });
    expect(await runCli(['config', 'validate'], ok)).toBe(0);
    expect(ok.outText()).toMatch(/clawfleet.json is valid: fleet "demo", 4 agents/);

    const broken = JSON.parse(demo);
    broken.agents.list[1].runtime = { cpus: 3 };
    broken.agents.list[2].colour = 'red';
    const bad = captureIO({ cwd: workdir(broken) });
    expect(await runCli(['config', 'validate'], bad)).toBe(3);
    expect(bad.errText()).toContain('agents.list[1].runtime.cpus: 3 is not one of 0.25, 0.5, 1, 2, 4, 8, 16');
    expect(bad.errText()).toContain('agents.list[2].colour: unknown key; the keys here are id, name, default, model, runtime,');

    const missing = captureIO({ cwd: workdir() });
    expect(await runCli(['config', 'validate', '--config', 'absent.json'], missing)).toBe(3);
    expect(missing.errText()).toMatch(/cannot read .*absent.json: ENOENT/);
  });

  it('stores a secret from standard input in the local file and lists names, never values', async () => {
    const dir = workdir();
    const value = 'sk-test-never-printed-0123456789';
    const set = captureIO({ cwd: dir, stdin: `${value}\n` });
    expect(await runCli(['secrets', 'set', 'OPENAI_API_KEY', '--agent', 'fran'], set)).toBe(0);
    expect(set.outText()).toContain('stored OPENAI_API_KEY in clawfleet/demo/agents/fran');
    const file = join(dir, 'clawfleet.secrets.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: value } });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const list = captureIO({ cwd: dir });
    expect(await runCli(['secrets', 'list', '--agent', 'jerry'], list)).toBe(0);
    expect(list.outText()).toContain('expected by the config but missing: ANTHROPIC_API_KEY');
    const listFran = captureIO({ cwd: dir });
    await runCli(['secrets', 'list', '--agent', 'fran'], listFran);
    expect(listFran.outText()).toContain('  OPENAI_API_KEY');
    expect(listFran.outText() + set.outText() + set.errText()).not.toContain(value);

    const token = captureIO({ cwd: dir, stdin: '123:bot-token-value' });
    expect(await runCli(['secrets', 'set', 'JERRY_BOT_TOKEN', '--control', 'telegram'], token)).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))['clawfleet/demo/control/telegram']).toEqual({ JERRY_BOT_TOKEN: '123:bot-token-value' });
  });

  it('refuses an empty value, a bad name and an unknown agent', async () => {
    const dir = workdir();
    expect(await runCli(['secrets', 'set', 'X_KEY', '--agent', 'fran'], captureIO({ cwd: dir, stdin: '' }))).toBe(2);
    expect(await runCli(['secrets', 'set', 'not-a-name', '--agent', 'fran'], captureIO({ cwd: dir, stdin: 'v' }))).toBe(2);
    const unknown = captureIO({ cwd: dir, stdin: 'v' });
    expect(await runCli(['secrets', 'set', 'X_KEY', '--agent', 'zed'], unknown)).toBe(2);
    expect(unknown.errText()).toMatch(/no agent "zed" in fleet "demo"; agents: jerry, fran, grif, ray/);
  });

  it('lists cron jobs from the config', async () => {
    const config = JSON.parse(demo);
    config.cron = {
      jobs: [
        {
          id: 'brief',
          agentId: 'fran',
          schedule: { kind: 'cron', expr: '0 7 * * *', tz: 'Europe/Berlin' },
          sessionTarget: 'isolated',
          payload: { kind: 'agentTurn', message: 'Morning brief' },
        },
      ],
    };
    const io = captureIO({ cwd: workdir(config) });
    expect(await runCli(['cron', 'list'], io)).toBe(0);
    expect(io.outText()).toMatch(/brief\s+fran\s+cron "0 7 \* \* \*" \(Europe\/Berlin\)\s+isolated\s+agent turn: Morning brief/);
    const none = captureIO({ cwd: workdir() });
    await runCli(['cron', 'run', 'brief'], none);
    expect(none.errText()).toMatch(/no cron job "brief"/);
  });

  it('estimates the monthly cost, printing the prices it used and their date', async () => {
    const io = captureIO({ cwd: workdir() });
    expect(await runCli(['cost', '--messages-per-day', '100'], io)).toBe(0);
    const text = io.outText();
    // On Graviton by default; its Spot column is x86_64, what `spot: true` alone would run on.
    expect(text).toMatch(/jerry\s+native\s+2 vCPU \/ 4 GB arm64\s+\$58\s+\$22\s+\$58 \(always on\)/);
    expect(text).toMatch(/fran .*hibernating, 2h\/day awake/);
    expect(text).toContain(`as of ${PRICES_DATE}`);
    expect(text).toMatch(/Secrets Manager\s+\$2\.\d\d \(7 secrets\)/);
    // Four tasks' addresses: jerry all month, three light agents 2 h a day.
    expect(text).toMatch(/Public IPv4\s+\$4\.\d\d \(one per running task\)/);
    expect(text).toMatch(/t3\.large on demand, 30 GB gp3, public IPv4\): \$67\/month/);
    // The media bucket (#16): 4 agents × 5 files a day × 30 days × ~1 MB ≈ 0.6 GB.
    expect(text).toMatch(/S3 media storage\s+\$0\.01 \(0\.6 GB: 5 files of ~1 MB per agent per day, kept 30 days\)/);
    expect(text).toMatch(/S3 media requests\s+\$0\.\d\d \(a PUT and a GET per file\)/);
    expect(await runCli(['cost', '--awake-hours-per-day', '25'], captureIO({ cwd: workdir() }))).toBe(2);
  });

  it('says what streamed replies cost per turn: drafts, and per draft its envelope, λ outbox record and SQS requests', async () => {
    const line = (text: string) => text.split('\n').find((l) => /^Streamed replies/.test(l)) ?? '';
    const io = captureIO({ cwd: workdir() });
    expect(await runCli(['cost', '--writing-seconds', '8'], io)).toBe(0);
    // Written over 8 s: a draft a second in a private chat after the first second (7), one per 3 s in a group (2).
    const streamed = line(io.outText());
    expect(streamed).toMatch(
      /^Streamed replies, per turn written over 8 s: 7 drafts in a private chat, 2 in a group; each draft is 1 outbox envelope, 1 λ outbox record, 3 SQS requests \(send, receive, delete\) and 1 DynamoDB read — \$\d+\.\d\d\/month of the figures above \(priced as private chats\)\.$/,
    );
    // The month's figure is the drafts' own share, and it grows with the writing time.
    const monthOf = (text: string) => Number(/— \$(\d+\.\d\d)\/month/.exec(line(text))?.[1]);
    const longer = captureIO({ cwd: workdir() });
    await runCli(['cost', '--writing-seconds', '30'], longer);
    expect(line(longer.outText())).toMatch(/over 30 s: 29 drafts in a private chat, 9 in a group;/);
    expect(monthOf(longer.outText())).toBeGreaterThan(monthOf(io.outText()));
    expect(monthOf(io.outText())).toBeGreaterThan(0);
    // An answer written within one draft interval sends none, and the line says so.
    const quick = captureIO({ cwd: workdir() });
    await runCli(['cost', '--writing-seconds', '0.5'], quick);
    expect(line(quick.outText())).toMatch(/^Streamed replies as drafts: none \(/);
    // Streaming off everywhere: no drafts either.
    const off = JSON.parse(demo);
    off.channels.telegram.streaming = 'off';
    const quiet = captureIO({ cwd: workdir(off) });
    await runCli(['cost'], quiet);
    expect(line(quiet.outText())).toMatch(/^Streamed replies as drafts: none \(no account streams "partial"/);
    expect(await runCli(['cost', '--writing-seconds', '601'], captureIO({ cwd: workdir() }))).toBe(2);
  });

  it('counts in words that agree with the number ("1 agent", "4 agents")', async () => {
    const one = JSON.parse(demo);
    one.agents.list = [{ id: 'fran', default: true }];
    one.bindings = [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }];
    one.channels.telegram.accounts = { fran: one.channels.telegram.accounts.fran };
    one.cron = { jobs: [{ id: 'brief', agentId: 'fran', schedule: { kind: 'every', every: '1d' }, payload: { kind: 'agentTurn', message: 'hi' } }] };
    const validate = captureIO({ cwd: workdir(one) });
    expect(await runCli(['config', 'validate'], validate)).toBe(0);
    expect(validate.outText()).toMatch(/fleet "demo", 1 agent \(fran\), 1 binding, 1 telegram account, 1 cron job$/);
    const cost = captureIO({ cwd: workdir(one) });
    expect(await runCli(['cost', '--messages-per-day', '1'], cost)).toBe(0);
    expect(cost.outText()).toContain('(1 agent, 1 message per agent per day)');
    const four = captureIO({ cwd: workdir() });
    await runCli(['config', 'validate'], four);
    expect(four.outText()).toMatch(/4 agents \(jerry, fran, grif, ray\), 4 bindings, 4 telegram accounts, 0 cron jobs$/);
  });

  it('says how to pass options through `npm start` when npm took them for itself', async () => {
    // `npm start --port 8788 --state /tmp/s`: npm keeps --port and --state as its config and passes "8788" on.
    const io = captureIO({ cwd: workdir(), env: { npm_lifecycle_event: 'start', npm_config_port: 'true', npm_config_state: '/tmp/s' } });
    expect(await runCli(['start', '8788'], io)).toBe(2);
    expect(io.errText()).toContain('npm took --port, --state for itself: npm passes on only what follows `--`. Run: npm start -- --port 8788 --state /tmp/s');
  });

  it('says how to pick another port when its port is in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const dir = workdir();
      const io = captureIO({ cwd: dir });
      expect(await runCli(['start', '--port', String(port), '--state', 'state', '--secrets', 'none.json'], io)).toBe(1);
      expect(io.errText()).toContain(
        `port ${port} is in use (another \`clawfleet start\`?); pick another: npm start -- --port ${port + 1} (or clawfleet start --port ${port + 1})`,
      );
    } finally {
      taken.close();
    }
    // start rebuilds a stale runtime bundle first (6-9 s on a busy 2-core machine): not what this checks.
  }, 60_000);

  it('says how to start a fleet when none is running', async () => {
    const io = captureIO({ cwd: workdir() });
    expect(await runCli(['status'], io)).toBe(1);
    expect(io.errText()).toMatch(/no local fleet is running .*clawfleet start/s);
  });
});
