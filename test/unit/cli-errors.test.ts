// What the CLI says when it is used wrong or AWS refuses: an unknown command or option with
// the nearest one and the usage (never Node's parser text), and every AWS failure as one
// sentence with the next step, from the SDK's own error classes and from real calls that fail.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AccessDeniedException as EcsAccessDenied, ClusterNotFoundException } from '@aws-sdk/client-ecs';
import { ThrottlingException } from '@aws-sdk/client-cloudwatch-logs';
import { ExpiredTokenException } from '@aws-sdk/client-sts';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, runCli } from '../../cli/main.ts';
import { awsErrorText, awsProblem, isAwsError } from '../../cli/aws-errors.ts';
import { nodePlanLine, replaceSdkNodeWarning } from '../../cli/sdk-node-warning.ts';
import { runSteps } from '../../cli/steps.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
function workdir(): string {
  const dir = tempDir('cf-cli-errors-');
  dirs.push(dir);
  writeFileSync(join(dir, 'clawfleet.json'), readFileSync('clawfleet.json'));
  return dir;
}

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const io = captureIO({ cwd: workdir(), env });
  const code = await runCli(argv, io);
  return { code, out: io.outText(), err: io.errText() };
}

describe('a command line the CLI does not take', () => {
  it('answers an unknown option with the nearest one and the command’s usage (exit 2)', async () => {
    const r = await run(['status', '--josn']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^clawfleet status: unknown option --josn; did you mean --json\?\n\nUsage: clawfleet status /);
  });

  it('answers an unknown command with the nearest one, and the list of commands', async () => {
    const r = await run(['statsu']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^clawfleet: unknown command "statsu"; did you mean status\?\n\nUsage: clawfleet <command> \[options\]/);
    expect((await run(['frobnicate'])).err).toMatch(/^clawfleet: unknown command "frobnicate"\n\nUsage:/);
  });

  it('answers an unknown subcommand or action with the nearest one', async () => {
    expect((await run(['cron', 'rn'])).err).toMatch(/^clawfleet cron: unknown subcommand "rn"; did you mean run\?\n\nUsage: clawfleet cron/);
    expect((await run(['runtime', 'restrat', '--agent', 'fran'])).err).toMatch(/^clawfleet runtime: unknown action "restrat"; did you mean restart\?/);
    expect((await run(['pairing'])).err).toMatch(/^clawfleet pairing: missing subcommand \(list or approve\)\n/);
    expect((await run(['cron', '--config', 'x.json', 'list'])).err).toMatch(/missing subcommand \(list or run\): it comes before the options/);
  });

  it('says when an option lacks its value, or takes none', async () => {
    expect((await run(['status', '--config'])).err).toMatch(/^clawfleet status: --config needs a value\n\nUsage:/);
    expect((await run(['status', '--json=yes'])).err).toMatch(/^clawfleet status: --json takes no value\n\nUsage:/);
    expect((await run(['logs', '--agent', 'fran', '--lines', '-5'])).err).toMatch(/^clawfleet logs: --lines needs a value/);
  });

  it('takes -h as --help everywhere', async () => {
    const r = await run(['status', '-h']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Usage: clawfleet status/);
  });

  it('never prints Node’s own parser text, for any command', async () => {
    for (const { name } of COMMANDS) {
      const sub = {
        runtime: 'restart',
        cron: 'list',
        pairing: 'list',
        agents: 'prune',
        workspace: 'push',
        secrets: 'list',
        config: 'validate',
        security: 'audit',
        skills: 'list',
        sandbox: 'install',
        openclaw: 'device',
      }[name];
      const r = await run([name, ...(sub ? [sub] : []), '--nope']);
      expect(r.code, name).toBe(2);
      expect(r.err, name).toMatch(new RegExp(`^clawfleet ${name}: unknown option --nope\\n\\nUsage: clawfleet `));
      expect(r.err, name).not.toMatch(/positional argument|ERR_PARSE_ARGS|To specify/);
    }
  });
});

describe('an AWS error', () => {
  const aws = { region: 'eu-west-1' };
  const meta = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };

  it('becomes one sentence that says what to do, for each kind', () => {
    const credentials = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    expect(awsErrorText('cannot read queue q', credentials, aws)).toBe(
      'cannot read queue q: no AWS credentials found; sign in (aws configure, aws sso login, or AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), then run this again [CredentialsProviderError]',
    );
    const expired = new ExpiredTokenException({ message: 'The security token included in the request is expired', $metadata: meta });
    expect(awsProblem(expired, aws)).toMatchObject({
      kind: 'credentials-expired',
      next: expect.stringContaining('aws sso login'),
      code: 'ExpiredTokenException',
    });
    const sso = Object.assign(new Error('The SSO session associated with this profile has expired or is otherwise invalid.'), {
      name: 'CredentialsProviderError',
    });
    expect(awsProblem(sso, aws).kind).toBe('credentials-expired');
    const denied = new EcsAccessDenied({
      message: 'User: arn:aws:iam::123456789012:user/ops is not authorized to perform: ecs:DescribeServices on resource: *',
      $metadata: { ...meta, httpStatusCode: 403 },
    });
    expect(awsErrorText('cannot describe the services', denied, aws)).toBe(
      'cannot describe the services: access denied: your credentials may not call ecs:DescribeServices; use a role or user allowed to (docs/deploy.md says what clawfleet needs), then run this again [AccessDeniedException]',
    );
    const throttled = new ThrottlingException({ message: 'Rate exceeded', $metadata: meta });
    expect(awsErrorText('cannot read log group g', throttled, aws)).toBe(
      'cannot read log group g: AWS is throttling these requests; wait a minute, then run this again [ThrottlingException]',
    );
    const missing = new ClusterNotFoundException({ message: 'Cluster not found.', $metadata: meta });
    expect(awsErrorText('cannot restart agent-fran', missing, aws)).toBe(
      'cannot restart agent-fran: it does not exist at AWS in eu-west-1 (Cluster not found); deploy the fleet there first (clawfleet deploy), or check AWS_REGION and the account you are signed in to [ClusterNotFoundException]',
    );
    const stack = Object.assign(new Error('Stack with id demo-control-plane does not exist'), { name: 'ValidationError', $metadata: meta });
    expect(awsProblem(stack, aws).kind).toBe('not-found');
    const region = new Error('Region is missing');
    expect(awsProblem(region).problem).toBe('no AWS region is set');
    const invalid = Object.assign(new Error('The security token included in the request is invalid.'), { name: 'InvalidClientTokenId', $metadata: meta });
    expect(awsProblem(invalid, aws).kind).toBe('credentials-invalid');
    const unknown = Object.assign(new Error('something else'), { name: 'WeirdException', $metadata: meta });
    expect(awsErrorText('cannot do x', unknown, aws)).toBe('cannot do x: something else [WeirdException]');
  });

  it('from a step of deploy or agents remove that did not word it, is said the same way, with how to resume', async () => {
    const lines: string[] = [];
    const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) };
    const throttled = new ThrottlingException({ message: 'Rate exceeded', $metadata: meta });
    expect(
      await runSteps([{ name: 'stack', plan: 'delete it', run: () => Promise.reject(throttled) }], io, { again: 'run clawfleet agents remove old again' }),
    ).toBe(false);
    expect(lines).toEqual([
      '  ✗ stack: AWS is throttling these requests [ThrottlingException]\n    wait a minute, then run clawfleet agents remove old again: finished steps are skipped',
    ]);
  });

  it('is told apart from other errors by its shape', () => {
    expect(isAwsError(new ThrottlingException({ message: 'x', $metadata: meta }))).toBe(true);
    expect(isAwsError(new Error('ENOENT'))).toBe(false);
  });

  it('from a fleet command whose endpoint does not answer, names the endpoint and what to check', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const { port } = s.address() as AddressInfo;
        s.close(() => resolve(port));
      });
    });
    const r = await run(['status', '--aws'], {
      AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    });
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `clawfleet status: fleet "demo" on AWS: cannot reach http://127.0.0.1:${port} (AWS_ENDPOINT_URL); is the emulator running there? Start it, or unset AWS_ENDPOINT_URL for AWS itself [ECONNREFUSED]`,
    );
  }, 60_000);
});

describe('the AWS SDK’s Node-version warning', () => {
  it('is one line of ours, once, and every other warning still passes', () => {
    const passed: unknown[] = [];
    const said: string[] = [];
    const target = { emitWarning: (w: string | Error) => void passed.push(w) };
    const undo = replaceSdkNodeWarning(target, (line) => said.push(line));
    const sdk =
      'NodeVersionSupportWarning: The AWS SDK for JavaScript (v3)\nversions published after the first week of January 2027\nwill require node >=22. You are running node v20.20.2.';
    target.emitWarning(sdk);
    target.emitWarning(sdk);
    target.emitWarning('DeprecationWarning: something else');
    target.emitWarning(new Error('NodeVersionSupportWarning: an Error, not the SDK’s string'));
    expect(said).toEqual([nodePlanLine('v20.20.2')]);
    expect(said[0]).toMatch(/^clawfleet: note: on Node 20\.20\.2 the AWS SDK .* need Node ≥ 22, and clawfleet will require Node 22 before it takes one/);
    expect(passed).toHaveLength(2);
    undo();
    target.emitWarning(sdk);
    expect(passed).toHaveLength(3);
  });

  it('comes out of a real --aws command as that one line, with no credentials as the sentence that says to sign in', () => {
    const home = tempDir('cf-cli-errors-home-');
    dirs.push(home);
    const dir = workdir();
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, AWS_EC2_METADATA_DISABLED: 'true', AWS_REGION: 'us-east-1' };
    const r = spawnSync(process.execPath, [join(process.cwd(), 'bin/clawfleet.js'), 'status', '--aws'], { cwd: dir, env, encoding: 'utf8', timeout: 120_000 });
    expect(r.status, r.stderr).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(r.stderr).not.toContain('NodeVersionSupportWarning');
    expect(r.stderr).not.toContain('--trace-warnings');
    // Node 20 gets the note; on Node ≥ 22 the SDK says nothing, and neither do we.
    const notes = lines.filter((l) => l.startsWith('clawfleet: note: on Node'));
    expect(notes).toHaveLength(Number(process.versions.node.split('.')[0]) < 22 ? 1 : 0);
    expect(lines.filter((l) => !notes.includes(l))).toEqual([
      'clawfleet status: fleet "demo" on AWS: no AWS credentials found; sign in (aws configure, aws sso login, or AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), then run this again [CredentialsProviderError]',
    ]);
  }, 120_000);
});
