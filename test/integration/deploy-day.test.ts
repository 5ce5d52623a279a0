// Deploy day against the emulator, in the documented order: `clawfleet deploy` (with
// cdklocal) checks the account's quotas (the emulator's Lambda and IAM figures; it has no
// Service Quotas), synthesizes, bootstraps, asks for the values on a terminal — one skipped —,
// deploys and registers the webhook; the agent's runtime, started from the stack outputs
// before that value is set, waits (no exit, nothing rolled back), and `clawfleet status --aws`
// says so through the deployed outbox function and registry; `clawfleet secrets set --aws` asks
// the deployed compute function to restart it, the new runtime starts at once and answers a
// Telegram update. Then an agent leaves the config: `clawfleet agents remove --aws` stops its
// service, issues its archive task, deletes its own schedules (not a neighbour's), its stack
// and its records; `agents prune` finds a stray left only as a schedule.
// Emulator gaps (docs/testing.md): no ECS task runs (a task definition is metadata there), so
// the runtime is a process this file starts, "ECS" replacing it means this file restarting it,
// and the archive task's end is reported by this file after checking what was asked of ECS;
// the archive script itself is tested in test/unit/workspace-archive-script.test.ts.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CloudFormationClient, CreateStackCommand, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DescribeServicesCommand,
  DescribeTaskDefinitionCommand,
  DescribeTasksCommand,
  ECSClient,
  ListTasksCommand,
  UpdateServiceCommand,
} from '@aws-sdk/client-ecs';
import { ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgents } from '../../cli/agents.ts';
import { AwsAgentRemoval, type TaskEnd } from '../../cli/agents/aws-removal.ts';
import { runDeploy } from '../../cli/deploy.ts';
import { runCli } from '../../cli/main.ts';
import { DynamoAgentMetrics } from '../../shared/adapters/aws/dynamo-agent-metrics.ts';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoInboundOrigins } from '../../shared/adapters/aws/dynamo-inbound-origins.ts';
import { DynamoSessionRegistry } from '../../shared/adapters/aws/dynamo-tables.ts';
import { EventBridgeCronScheduler } from '../../shared/adapters/aws/eventbridge-cron-scheduler.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentStackName, clusterName, controlPlaneStackName, functionName, scheduleGroupName, tableNames } from '../../shared/config/names.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { newOrigin } from '../../shared/control/origins.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const REPO = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));
const aws = awsTestEnv();
const FLEET = 'dday';
const BOT = '1000003:AAdeploy-day-token-000000000000000000';
const FRAN_KEY = 'sk-test-dday-fran-0123456789abcdef';
const OLD_KEY = 'sk-test-dday-old-0123456789abcdef';
const GRAPH = 'graph-token-dday-0123456789abcdef';
const RUNTIME_IMAGE = 'public.ecr.aws/docker/library/node:24-slim';

let tg: FakeTelegram;
let model: FakeModel;
let workDir: string;
let config: FleetConfigInput;
let runtime: RuntimeProcess | undefined;
let deployOut = '';
const timings: Record<string, number> = {};

/** The CLI's environment: the emulator for its own SDK clients and for cdklocal (which keeps only the AWS_* variables it is told to). */
const cliEnv = () => ({
  AWS_ENDPOINT_URL: aws.endpoint,
  AWS_ENDPOINT_URL_S3: aws.endpoint,
  AWS_REGION: aws.region,
  AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
  AWS_ENVAR_ALLOWLIST: 'AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_REGION',
  // Outside the repository (its package.json says "type": "module"): the emulator's Lambda worker.
  TMPDIR: join(workDir, 'tmp'),
  CI: 'true',
});

async function clawfleet(argv: string[], extra: { stdin?: string; answers?: string[] } = {}) {
  const io = captureIO({ cwd: workDir, env: cliEnv(), ...extra });
  const code = await runCli(argv, io);
  return { code, out: io.outText(), err: io.errText() };
}

const outputs = () => JSON.parse(readFileSync(join(workDir, 'cdk-outputs.json'), 'utf8')) as Record<string, Record<string, string>>;

function startFran(): RuntimeProcess {
  const out = outputs()[agentStackName(FLEET, 'fran')]!;
  return startRuntime({
    CLAWFLEET_AGENT_ID: 'fran',
    CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(parseConfig(config), 'fran')),
    CLAWFLEET_INBOX_URL: out.InboxUrl!,
    CLAWFLEET_OUTBOX_URL: out.OutboxUrl!,
    CLAWFLEET_DLQ_URL: out.InboxDlqUrl!,
    CLAWFLEET_SECRET_ID: out.SecretName!,
    CLAWFLEET_WORKSPACE: mkdtempSync(join(workDir, 'fran-')),
    CLAWFLEET_VISIBILITY_SECONDS: '10',
    CLAWFLEET_WAIT_SECONDS: '1',
    CLAWFLEET_DRAIN_SECONDS: '2',
    CLAWFLEET_HEARTBEAT_SECONDS: '2',
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
  });
}

/** What λ compute logged that it did, as "<agent> <outcome>". */
async function computeSaid(): Promise<string[]> {
  const { events = [] } = await new CloudWatchLogsClient(aws).send(
    new FilterLogEventsCommand({ logGroupName: `/aws/lambda/${functionName(FLEET, 'compute')}`, filterPattern: '"agent compute set"' }),
  );
  return events.map((e) => JSON.parse(e.message!.slice(e.message!.indexOf('{')))).map((l: { agentId: string; outcome: string }) => `${l.agentId} ${l.outcome}`);
}

beforeAll(async () => {
  workDir = tempDir('cf-deploy-day-');
  if (!relative(REPO, realpathSync(workDir)).startsWith('..')) throw new Error(`the temp dir ${workDir} lies inside the repository; set TMPDIR elsewhere`);
  mkdirSync(join(workDir, 'tmp'));
  tg = await startTelegram({ bots: [{ token: BOT, username: 'dday_fran_bot' }] });
  model = await startModel({ apiKey: FRAN_KEY });
  config = {
    fleet: FLEET,
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [
        // fran needs a value beyond its model key, which the operator does not have on deploy day.
        { id: 'fran', name: 'Fran', default: true, secrets: ['GRAPH_TOKEN'] },
        { id: 'old', heartbeat: { every: '1d' } },
      ],
    },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY', baseUrl: model.baseUrls['openai-completions'] } } },
    bindings: [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }],
    channels: { telegram: { apiRoot: tg.url, allowFrom: ['5001'], accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } },
  };
  writeFileSync(join(workDir, 'clawfleet.json'), JSON.stringify(config, null, 2));

  // Typed on the "terminal": the bot token, Enter for a generated dashboard token, Enter to
  // skip fran's GRAPH_TOKEN (fran will wait for it), fran's key, old's key.
  const io = captureIO({ cwd: workDir, env: cliEnv(), answers: [BOT, '', '', FRAN_KEY, OLD_KEY] });
  const t0 = performance.now();
  const code = await runDeploy(
    ['--cdk', join(REPO, 'node_modules', '.bin', 'cdklocal'), '--context', 'emulator=true', '--context', `runtimeImage=${RUNTIME_IMAGE}`],
    io,
    { assemblyDir: join(workDir, 'cdk.out') },
  );
  timings.deploy = Math.round(performance.now() - t0);
  deployOut = io.outText();
  if (code !== 0) throw new Error(`clawfleet deploy exited ${code}:\n${io.errText()}\n${deployOut.slice(-6000)}`);
}, 420_000);

afterAll(async () => {
  await runtime?.kill('SIGKILL');
  await tg?.close();
  await model?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  if (Object.keys(timings).length)
    console.log(
      `[deploy-day] ${Object.entries(timings)
        .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`)
        .join(', ')}`,
    );
});

describe('clawfleet deploy, against the emulator', () => {
  it('ran every step in order, putting the values into the secrets the deploy made and registering the webhook', async () => {
    for (const [i, step] of ['credentials', 'preflight', 'synth', 'bootstrap', 'secrets', 'deploy', 'webhooks', 'links'].entries())
      expect(deployOut).toMatch(new RegExp(`^ {2}[✓–] \\[${i + 1}/8\\] ${step}: `, 'm'));
    expect(deployOut).toContain(`  ✓ [1/8] credentials: account ${aws.accountId}`);
    // The emulator's Lambda gives 1000, less what functions of any account there reserve: every reservation
    // fits, and synth is told the figure. It has no Service Quotas (docs/testing.md): those quotas are warnings
    // saying how to check them by hand.
    expect(deployOut).toContain('  ✓ [2/8] preflight: 1 of 5 quotas read, 4 warnings (!); IAM roles follow synth');
    expect(deployOut).toContain(
      '      ✓ AWS Lambda "Concurrent executions" (lambda L-B99A9384): reserved concurrency: telegram-webhook 10, dashboard 5, compute 1',
    );
    expect(deployOut).toMatch(/synth is told lambdaConcurrency=\d+\n/);
    expect(deployOut).toMatch(
      / {6}! AWS Fargate "Fargate On-Demand vCPU resource count" \(fargate L-3032A538\): could not be read \(.+\); not checked\. Check it by hand: aws service-quotas get-service-quota --service-code fargate --quota-code L-3032A538\n/,
    );
    expect(deployOut).toContain('  ✓ [3/8] synth: 3 stacks (3 new, 0 deployed before), cdk-nag clean');
    // The emulator's IAM counts roles: the new stacks' templates' roles fit.
    expect(deployOut).toMatch(/ {6}✓ IAM "Roles per account" \(iam L-FE177D64\): \d+ of 1000 in use; the deploy adds \d+ roles/);
    expect(deployOut).toContain('not set, waited for: GRAPH_TOKEN (agent fran)');
    expect(deployOut).toMatch(/deployed, with this left to do:\n {2}- GRAPH_TOKEN for agent fran: clawfleet secrets set GRAPH_TOKEN --agent fran --aws/);
    const sm = new SecretsManagerClient(aws);
    const value = async (id: string) => JSON.parse((await sm.send(new GetSecretValueCommand({ SecretId: id }))).SecretString!);
    expect(await value(`clawfleet/${FLEET}/control/telegram`)).toEqual({ FRAN_BOT_TOKEN: BOT });
    expect(await value(`clawfleet/${FLEET}/agents/fran`)).toEqual({ OPENAI_API_KEY: FRAN_KEY });
    expect((await value(`clawfleet/${FLEET}/control/dashboard`)).DASHBOARD_TOKEN).toMatch(/^[0-9a-f]{48}$/);
    const webhookUrl = outputs()[controlPlaneStackName(FLEET)]!.TelegramWebhookUrl!;
    expect(tg.calls('setWebhook').map((c) => c.params)).toEqual([
      expect.objectContaining({ url: `${webhookUrl.replace(/\/$/, '')}/telegram/fran`, secret_token: webhookSecretFor(BOT) }),
    ]);
    expect(deployOut).toContain('bot "fran": https://t.me/dday_fran_bot');
    // Both agents' stacks were new: their services were created at desired count 0 (the
    // deployed templates name it), and after that only λ compute sets it.
    for (const id of ['fran', 'old']) {
      const template = JSON.parse(readFileSync(join(workDir, 'cdk.out', `${agentStackName(FLEET, id)}.template.json`), 'utf8'));
      const services = Object.values<{ Type: string; Properties: { DesiredCount?: number } }>(template.Resources).filter((r) => r.Type === 'AWS::ECS::Service');
      expect(services.map((r) => r.Properties.DesiredCount)).toEqual([0]);
    }
    for (const v of [BOT, FRAN_KEY, OLD_KEY]) expect(deployOut).not.toContain(v);
  });
});

describe('an agent whose secret lacks a value, deployed', () => {
  it('waits instead of exiting, says so in `clawfleet status --aws`, and answers once the value is set', async () => {
    runtime = startFran();
    await runtime.waitFor((l) => l.msg === 'waiting for secret values; taking no work until they are set', 30_000);
    // Its heartbeat, through the deployed outbox function, into the registry that status reads.
    let status = { code: -1, out: '', err: '' };
    await expect
      .poll(async () => ((status = await clawfleet(['status', '--aws'])), status.out), { timeout: 45_000, interval: 1_000 })
      .toMatch(
        /⚠ fran: waiting for secret "clawfleet\/dday\/agents\/fran": it lacks GRAPH_TOKEN \(agents\.list\[\]\.secrets\)\. Set with: clawfleet secrets set <NAME> --agent fran --aws/,
      );
    expect(status.out).toMatch(/^fran\s+/m);
    expect(runtime.child.exitCode).toBeNull();
    // The deployed dashboard says it too, signed in with the token the deploy generated.
    const token = JSON.parse(
      (await new SecretsManagerClient(aws).send(new GetSecretValueCommand({ SecretId: `clawfleet/${FLEET}/control/dashboard` }))).SecretString!,
    ).DASHBOARD_TOKEN as string;
    const dashboardId = new URL(outputs()[controlPlaneStackName(FLEET)]!.DashboardUrl!).hostname.split('.')[0];
    const view = (await (
      await fetch(`${aws.endpoint}/_aws/lambda-url/${dashboardId}/api/fleet`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { agents: { id: string; warnings: string[] }[] };
    expect(view.agents.find((a) => a.id === 'fran')?.warnings).toEqual([
      expect.stringMatching(/^waiting for secret "clawfleet\/dday\/agents\/fran": it lacks GRAPH_TOKEN/),
    ]);
    // Nothing rolled back: the agent's stack is deployed and its secret is there.
    const stack = (await new CloudFormationClient(aws).send(new DescribeStacksCommand({ StackName: agentStackName(FLEET, 'fran') }))).Stacks![0]!;
    expect(stack.StackStatus).toMatch(/^(CREATE|UPDATE)_COMPLETE$/);

    const set = await clawfleet(['secrets', 'set', 'GRAPH_TOKEN', '--agent', 'fran', '--aws'], { stdin: `${GRAPH}\n` });
    expect(set.code, set.err).toBe(0);
    expect(set.out).toContain(`asked ${functionName(FLEET, 'compute')} to restart fran`);
    // λ compute forced a new deployment (its log says so); on AWS ECS would now replace the task.
    await expect.poll(computeSaid, { timeout: 45_000, interval: 500 }).toContain('fran restarted');
    // …which this file does for it: the waiting runtime stops cleanly, the new one reads the value at once.
    expect(await runtime.kill('SIGTERM')).toBe(0);
    runtime = startFran();
    await runtime.waitFor((l) => l.msg === 'ready', 30_000);
    expect(runtime.lines.some((l) => String(l.msg).startsWith('waiting for secret'))).toBe(false);

    const webhook = outputs()[controlPlaneStackName(FLEET)]!.TelegramWebhookUrl!;
    const id = new URL(webhook).hostname.split('.')[0];
    const res = await fetch(`${aws.endpoint}/_aws/lambda-url/${id}/telegram/fran`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(BOT) },
      body: JSON.stringify(textUpdate({ updateId: 900, chatId: 5001, fromId: 5001, text: 'deploy day done?' })),
    });
    expect(res.status).toBe(200);
    await expect
      .poll(() => tg.calls('sendMessage').filter((c) => c.params.text === 'echo: deploy day done?').length, { timeout: 45_000, interval: 250 })
      .toBe(1);
    // The status warning is gone with the next heartbeat.
    await expect.poll(async () => (await clawfleet(['status', '--aws'])).out, { timeout: 30_000, interval: 1_000 }).not.toContain('waiting for secret');
    for (const v of [GRAPH, FRAN_KEY]) expect(runtime.output() + set.out + set.err).not.toContain(v);
  }, 240_000);
});

describe('an agent that leaves the config', () => {
  const tables = tableNames(FLEET);
  const db = () => DynamoDBDocumentClient.from(new DynamoDBClient(aws));

  it('is removed with `clawfleet agents remove --aws`: its task stopped, archive task issued, its own schedules, stack and records gone', async () => {
    // What a running `old` left: its registry, metrics, a session, an origin, a job it made
    // itself — and a neighbour's job whose name `agent-old-` also starts.
    const client = db();
    await new DynamoAgentRegistry(client, tables.registry).transition('old', ['absent'], 'awake', Date.now());
    await new DynamoAgentMetrics(client, tables.registry).recordTurn({ agentId: 'old', inboundId: 'tg.old.1', outcome: 'ended', at: Date.now() });
    await new DynamoSessionRegistry(client, tables.sessions).put({
      sessionKey: 'agent:old:main',
      agentId: 'old',
      target: { channel: 'none' },
      updatedAt: Date.now(),
    });
    await new DynamoInboundOrigins(client, tables.origins).put(
      newOrigin({ id: 'tg.old.1', agentId: 'old', sessionKey: 'agent:old:main', target: { channel: 'none' }, createdAt: Date.now() }),
    );
    const fran = await client.send(new GetCommand({ TableName: tables.registry, Key: { pk: 'agent:fran' } }));
    const cronDispatch = `arn:aws:lambda:${aws.region}:${aws.accountId}:function:${functionName(FLEET, 'cron-dispatch')}`;
    const scheduler = new EventBridgeCronScheduler(new SchedulerClient(aws), {
      group: scheduleGroupName(FLEET),
      functionArn: cronDispatch,
      roleArn: `arn:aws:iam::${aws.accountId}:role/scheduler`,
    });
    await scheduler.put({ name: 'agent-old-tidy', expression: 'rate(1 day)', input: JSON.stringify({ v: 1, kind: 'cron', agentId: 'old', jobId: 'tidy' }) });
    await scheduler.put({
      name: 'agent-old-2-report',
      expression: 'rate(1 day)',
      input: JSON.stringify({ v: 1, kind: 'cron', agentId: 'old-2', jobId: 'report' }),
    });

    // It was awake: its service at 1, a task running (as far as the emulator runs one).
    const ecs = new ECSClient(aws);
    await ecs.send(new UpdateServiceCommand({ cluster: clusterName(FLEET), service: 'agent-old', desiredCount: 1 }));
    const oldTasks = async () => (await ecs.send(new ListTasksCommand({ cluster: clusterName(FLEET), serviceName: 'agent-old' }))).taskArns ?? [];
    await expect.poll(async () => (await oldTasks()).length, { timeout: 30_000 }).toBe(1);
    const [oldTask] = await oldTasks();

    // The config without `old` (its control plane would be deployed now; this file skips that minute).
    config = { ...config, agents: { ...config.agents!, list: config.agents!.list.filter((a) => a.id !== 'old') } };
    writeFileSync(join(workDir, 'clawfleet.json'), JSON.stringify(config, null, 2));

    const dry = await clawfleet(['agents', 'remove', 'old', '--aws', '--dry-run']);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toMatch(
      /^remove agent old from fleet "dday" on AWS account \d{12}, us-east-1 at \S+:\n {2}1\. stop: .*\n {2}2\. archive: run task dday-agent-old-archive: copy \/agents\/old to \/archive\/old\/<date>\/ .*\n {2}3\. schedules: .*\n {2}4\. stack: delete stack dday-agent-old .*\n {2}5\. records: .*\n {2}! its secret clawfleet\/dday\/agents\/old is deleted with its stack at once/,
    );

    // The emulator starts no container: this stands in for ECS saying the archive task ended, after checking what it was asked to run.
    const archived: string[] = [];
    const waitForTask = async (taskArn: string): Promise<TaskEnd> => {
      const task = (await ecs.send(new DescribeTasksCommand({ cluster: clusterName(FLEET), tasks: [taskArn] }))).tasks![0]!;
      const def = (await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: task.taskDefinitionArn! }))).taskDefinition!;
      expect(def.family).toBe('dday-agent-old-archive');
      // (The emulator keeps a deployed task definition's volumes in CloudFormation's spelling, which the SDK drops:
      // the two access points are asserted on the template, test/infra/fleet-app.test.ts.)
      expect(def.containerDefinitions?.[0]?.mountPoints?.map((m) => `${m.sourceVolume}:${m.containerPath}`)).toEqual([
        'workspace:/workspace',
        'archive:/archive',
      ]);
      expect(def.containerDefinitions?.[0]?.entryPoint?.slice(0, 2)).toEqual(['node', '-e']);
      expect(task.startedBy).toBe('clawfleet-agents-remove');
      archived.push(taskArn);
      return { exitCode: 0, reason: 'Essential container in task exited' };
    };
    const io = captureIO({ cwd: workDir, env: cliEnv() });
    const code = await runAgents(['remove', 'old', '--aws', '--yes'], io, {
      awsRemoval: (fleet, settings, where) => new AwsAgentRemoval(fleet, settings, { pollMs: 250, waitForTask, where }),
    });
    expect(code, `${io.outText()}\n${io.errText()}`).toBe(0);
    expect(archived).toHaveLength(1);
    const out = io.outText();
    expect(out).toContain('  ✓ stop: agent-old at 0, no task running');
    // Its task had stopped before the archive task was run.
    expect((await ecs.send(new DescribeTasksCommand({ cluster: clusterName(FLEET), tasks: [oldTask!] }))).tasks?.[0]?.lastStatus).toBe('STOPPED');
    expect(out).toMatch(/ {2}✓ archive: task [\w-]+ copied the workspace to \/archive\/old\/<date>\/ and emptied it/);
    expect(out).toContain('  ✓ schedules: deleted agent-old-tidy');
    expect(out).toContain('  ✓ stack: dday-agent-old deleted');
    expect(out).toMatch(/ {2}✓ records: deleted 2 registry, 1 session and 1 origin record\(s\)\nagent old removed/);

    // Gone: its stack, its queue, its schedules (the config's heartbeat with the stack, its own by the CLI); the neighbour's job stays.
    expect(
      (
        await new CloudFormationClient(aws).send(new DescribeStacksCommand({ StackName: agentStackName(FLEET, 'old') })).catch(() => ({ Stacks: [] }))
      ).Stacks?.filter((s) => s.StackStatus !== 'DELETE_COMPLETE'),
    ).toEqual([]);
    await expect(new SQSClient(aws).send(new GetQueueUrlCommand({ QueueName: `${FLEET}-agent-old.fifo` }))).rejects.toMatchObject({
      name: expect.stringMatching(/QueueDoesNotExist|NonExistentQueue/),
    });
    const { Schedules = [] } = await new SchedulerClient(aws).send(new ListSchedulesCommand({ GroupName: scheduleGroupName(FLEET) }));
    expect(Schedules.map((s) => s.Name).sort()).toEqual(['agent-old-2-report', `${FLEET}-health`]);
    const left = async (table: string) =>
      ((await client.send(new ScanCommand({ TableName: table }))).Items ?? []).map((i) => String(i.pk)).filter((pk) => pk.includes('old'));
    expect(await left(tables.registry)).toEqual([]);
    expect(await left(tables.sessions)).toEqual([]);
    expect(await left(tables.origins)).toEqual([]);
    // fran is untouched: its record and its service.
    expect((await client.send(new GetCommand({ TableName: tables.registry, Key: { pk: 'agent:fran' } }))).Item?.state).toBe(fran.Item?.state);
    const services = (await ecs.send(new DescribeServicesCommand({ cluster: clusterName(FLEET), services: ['agent-fran'] }))).services ?? [];
    expect(services[0]?.status).toBe('ACTIVE');
  }, 240_000);

  it('is found by `agents prune --aws` wherever it is left, here as a schedule alone, and pruned — and a stack clawfleet did not make is left alone', async () => {
    // Someone else's stack under a name of the fleet's pattern: never removed.
    const cfn = new CloudFormationClient(aws);
    await cfn.send(
      new CreateStackCommand({
        StackName: `${FLEET}-agent-visitor`,
        TemplateBody: JSON.stringify({
          Description: 'not clawfleet',
          Resources: { Queue: { Type: 'AWS::SQS::Queue', Properties: { QueueName: `${FLEET}-visitor-queue` } } },
        }),
      }),
    );
    await expect
      .poll(async () => (await cfn.send(new DescribeStacksCommand({ StackName: `${FLEET}-agent-visitor` }))).Stacks?.[0]?.StackStatus, { timeout: 30_000 })
      .toBe('CREATE_COMPLETE');
    const refused = await clawfleet(['agents', 'remove', 'visitor', '--aws', '--yes']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('stack dday-agent-visitor was not made by clawfleet for agent visitor');

    const dry = await clawfleet(['agents', 'prune', '--aws', '--dry-run']);
    expect(dry.code, dry.err).toBe(0);
    expect(dry.out).toContain('left alone: stack dday-agent-visitor, which clawfleet did not make for an agent "visitor"');
    expect(dry.out).toContain('not in the config: old-2 (schedule agent-old-2-report)');
    expect(dry.out).not.toContain('remove agent visitor');
    expect(dry.out).toMatch(
      /remove agent old-2 from fleet "dday" on AWS account \d{12}, us-east-1 at \S+:\n {2}1\. schedules: .*\n {2}2\. records: .*\n {2}! no stack dday-agent-old-2/,
    );
    const pruned = await clawfleet(['agents', 'prune', '--aws', '--yes']);
    expect(pruned.code, pruned.err).toBe(0);
    expect(pruned.out).toContain('  ✓ schedules: deleted agent-old-2-report');
    expect((await clawfleet(['agents', 'prune', '--aws', '--dry-run'])).out).toMatch(/nothing to prune: every agent found is in the config \(fran\)$/);
    expect((await cfn.send(new DescribeStacksCommand({ StackName: `${FLEET}-agent-visitor` }))).Stacks?.[0]?.StackStatus).toBe('CREATE_COMPLETE');
  }, 120_000);
});
