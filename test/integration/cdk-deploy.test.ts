// The CDK app deployed to the emulator with `cdklocal` and driven end to end: a real-format
// Telegram update POSTed to the deployed webhook's Function URL, queued by the deployed
// λ telegram-webhook, answered by a runtime process configured from the stack outputs,
// and delivered to the (fake) Bot API by the deployed λ outbox through the emulator's SQS
// event source mapping; a fleet skill beside the config shipped as fran's file asset, read
// by the runtime from the bootstrap bucket and offered to the model. Everything AWS-side is
// what `cdk deploy` created in this file's own account; nothing is provisioned by hand
// except the secrets' values.
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DescribeServicesCommand, DescribeTaskDefinitionCommand, DescribeTasksCommand, ECSClient } from '@aws-sdk/client-ecs';
import { GetFunctionConfigurationCommand, InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { GetScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putSecretValues } from '../../shared/adapters/aws/secrets-manager-writer.ts';
import { secretIdFor } from '../../shared/secrets/secret-target.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoSpendCounts, DynamoSpendLedger } from '../../shared/adapters/aws/dynamo-spend.ts';
import { periodsAt } from '../../shared/budget/periods.ts';
import { LambdaAgentCompute } from '../../shared/adapters/aws/lambda-agent-compute.ts';
import { SignedLambdaInvoker } from '../../shared/adapters/aws/signed-lambda-invoker.ts';
import {
  agentServiceName,
  agentStackName,
  clusterName,
  controlPlaneStackName,
  functionName,
  scheduleGroupName,
  tableNames,
} from '../../shared/config/names.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { awsTestEnv } from '../support/aws.ts';
import { awsQuery } from '../support/aws-query.ts';
import { cdklocal as runCdklocal } from '../support/cdklocal.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { DeployedWorkspaceRunner, isolatedSyncEntry } from '../support/workspace-task.ts';
import { awsTransferDeps } from '../../cli/workspace/aws-deps.ts';
import { pullFromAws, pushToAws } from '../../cli/workspace/aws-transfer.ts';
import { DynamoWorkspaceSyncLog } from '../../shared/adapters/aws/dynamo-workspace-sync-log.ts';
import { captureIO } from '../unit/cli-io.ts';
import { runCli } from '../../cli/main.ts';
import { tempDir } from '../support/temp-dirs.ts';

const REPO = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));
const aws = awsTestEnv();
const FLEET = 'cdkdep';
const BOT_TOKEN = '1000002:AAfran-deploy-token-00000000000000000';
const MODEL_KEY = 'sk-test-fran-deployed-0123456789';
const HOOKS_TOKEN = 'hooks-deployed-token-0123456789abcdef';
const DASHBOARD_TOKEN = 'dashboard-deployed-token-0123456789abcdef';
const RUNTIME_IMAGE = 'public.ecr.aws/docker/library/node:24-slim';
/** The operator's own chat with fran's bot, where alarms are told. */
const OPERATOR_CHAT = 7001;

const OutputsSchema = z.record(z.string(), z.record(z.string(), z.string()));

let tg: FakeTelegram;
let model: FakeModel;
let config: FleetConfig;
/** CLAWFLEET_FLEET_SKILLS_OBJECT as the deployed task definition has it. */
let spendTable = '';
let skillsObject: string;
let workDir: string;
/** The CDK context every cdklocal deploy of this file passes. */
let context: string[];
let outputs: z.infer<typeof OutputsSchema>;
let runtime: RuntimeProcess | undefined;
const timings: Record<string, number> = {};

/** The emulator serves a Function URL under its own endpoint, by the URL id AWS would put in the host name. */
function localUrl(output: string): string {
  const id = new URL(output).hostname.split('.')[0];
  return `${aws.endpoint}/_aws/lambda-url/${id}`;
}

/**
 * One cdklocal run's limit. The whole app deploys in ~20 s on a quiet machine; the clean-clone
 * run at load ~25 on 2 cores (two CPU hogs beside the suite) was still creating the first
 * deploy's changeset at the 150 s this was before, so a generous bound, never an expectation.
 */
const CDKLOCAL_MS = 420_000;

/** Runs cdklocal against this file's account; a failure shows the tail of what it said. */
const cdklocal = (args: string[], cwd: string, timeoutMs = CDKLOCAL_MS) => runCdklocal(aws, workDir, args, cwd, timeoutMs);

async function timed<T>(label: string, work: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await work();
  } finally {
    timings[label] = Math.round(performance.now() - t0);
  }
}

/** fran's ECS service as the emulator has it. */
const desiredCount = async () => {
  const { services } = await new ECSClient(aws).send(new DescribeServicesCommand({ cluster: clusterName(FLEET), services: [agentServiceName('fran')] }));
  return services?.[0]?.desiredCount;
};

const output = (stack: string, key: string) => {
  const value = outputs[stack]?.[key];
  if (!value) throw new Error(`no output ${stack}.${key}; have ${JSON.stringify(outputs)}`);
  return value;
};

beforeAll(
  async () => {
    workDir = tempDir('cf-cdk-deploy-');
    if (!relative(REPO, realpathSync(workDir)).startsWith('..')) throw new Error(`the temp dir ${workDir} lies inside the repository; set TMPDIR elsewhere`);
    mkdirSync(join(workDir, 'tmp'));

    tg = await startTelegram({ bots: [{ token: BOT_TOKEN }] });
    model = await startModel({ apiKey: MODEL_KEY });
    config = parseConfig({
      fleet: FLEET,
      agents: {
        defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512, idleTimeoutMinutes: 30 } },
        // A heartbeat and a cron job, so their schedules are deployed too (neither fires during the test).
        // A budget (#31): her runtime finds the spend table in its task definition, the deployed λ outbox counts her calls.
        list: [{ id: 'fran', name: 'Fran', default: true, heartbeat: { every: '1d' }, budget: { dailyUsd: 5 } }],
      },
      models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY', baseUrl: model.baseUrls['openai-completions'] } } },
      bindings: [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }],
      channels: { telegram: { apiRoot: tg.url, allowFrom: ['5001'], accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } },
      cron: {
        jobs: [{ id: 'weekly', agentId: 'fran', schedule: { kind: 'cron', expr: '0 9 * * 1' }, payload: { kind: 'systemEvent', text: 'weekly review' } }],
      },
      hooks: { tokenSecret: 'HOOKS_TOKEN' },
      // Alarms reach the operator: by email (subscribed) and in their own chat with fran's bot.
      operator: { email: 'ops@example.com', telegram: { accountId: 'fran', chatId: OPERATOR_CHAT } },
    });
    const configFile = join(workDir, 'clawfleet.json');
    writeFileSync(configFile, JSON.stringify(config, null, 2));
    // A fleet skill beside the config (#19): shipped to fran as a file asset of its stack.
    mkdirSync(join(workDir, 'skills', 'weather'), { recursive: true });
    writeFileSync(join(workDir, 'skills', 'weather', 'SKILL.md'), '---\nname: weather\ndescription: Current weather from the deployed fleet skills\n---\n');

    context = ['-c', 'emulator=true', '-c', `runtimeImage=${RUNTIME_IMAGE}`, '-c', `config=${configFile}`];
    // From the temp dir: without a cdk.json there, bootstrap does not synthesize the app.
    await timed('bootstrap', () => cdklocal(['bootstrap', `aws://${aws.accountId}/${aws.region}`], workDir));
    const outputsFile = join(workDir, 'outputs.json');
    await timed('deploy', () =>
      // The first deploy creates every agent's stack: their services start at 0 (newAgents).
      cdklocal(
        [
          'deploy',
          '--all',
          ...context,
          '-c',
          'newAgents=*',
          '--output',
          join(workDir, 'cdk.out'),
          '--require-approval',
          'never',
          '--outputs-file',
          outputsFile,
        ],
        REPO,
      ),
    );
    outputs = OutputsSchema.parse(JSON.parse(readFileSync(outputsFile, 'utf8')));

    // Secret values go in after the deploy, as docs/deploy.md says, through the same function the script uses.
    const secrets = new SecretsManagerClient(aws);
    await putSecretValues(secrets, secretIdFor(FLEET, 'telegram'), { FRAN_BOT_TOKEN: BOT_TOKEN });
    await putSecretValues(secrets, secretIdFor(FLEET, 'agent:fran'), { OPENAI_API_KEY: MODEL_KEY });
    await putSecretValues(secrets, secretIdFor(FLEET, 'hooks'), { HOOKS_TOKEN });
    await putSecretValues(secrets, secretIdFor(FLEET, 'dashboard'), { DASHBOARD_TOKEN });

    // The runtime as its container would run, configured from the agent stack's outputs (and
    // where its fleet skills are, from its deployed task definition's environment).
    const fran = agentStackName(FLEET, 'fran');
    const { taskDefinition } = await new ECSClient(aws).send(new DescribeTaskDefinitionCommand({ taskDefinition: fran }));
    const env = (name: string) => taskDefinition?.containerDefinitions?.[0]?.environment?.find((e) => e.name === name)?.value ?? '';
    skillsObject = env('CLAWFLEET_FLEET_SKILLS_OBJECT');
    spendTable = env('CLAWFLEET_SPEND_TABLE');
    runtime = startRuntime({
      CLAWFLEET_FLEET_SKILLS_OBJECT: skillsObject,
      CLAWFLEET_SPEND_TABLE: spendTable,
      CLAWFLEET_AGENT_ID: 'fran',
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(config, 'fran')),
      CLAWFLEET_INBOX_URL: output(fran, 'InboxUrl'),
      CLAWFLEET_OUTBOX_URL: output(fran, 'OutboxUrl'),
      CLAWFLEET_DLQ_URL: output(fran, 'InboxDlqUrl'),
      CLAWFLEET_SECRET_ID: output(fran, 'SecretName'),
      CLAWFLEET_WORKSPACE: mkdtempSync(join(workDir, 'fran-')),
      CLAWFLEET_VISIBILITY_SECONDS: '10',
      CLAWFLEET_WAIT_SECONDS: '1',
      CLAWFLEET_DRAIN_SECONDS: '2',
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_REGION: aws.region,
      AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    });
    await runtime.waitFor((l) => l.msg === 'ready', 30_000);
  },
  2 * CDKLOCAL_MS + 120_000,
);

afterAll(async () => {
  await runtime?.kill('SIGKILL');
  await tg?.close();
  await model?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  if (Object.keys(timings).length > 0)
    console.log(
      `[cdk-deploy] ${Object.entries(timings)
        .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`)
        .join(', ')}`,
    );
});

/**
 * How long an asynchronous invocation may take to show its effect: the emulator queues it and
 * starts the function to run it; with 30 s this test failed once on two
 * cores loaded by the rest of the suite. A longer wait costs nothing when it passes.
 */
const ASYNC_INVOKE_MS = 60_000;
/** A cdklocal deploy of one agent's stack: synth and deploy, under a load that once took it past 150 s. */
const REDEPLOY_MS = 400_000;

describe('the CDK app deployed to the emulator', () => {
  it('answers a Telegram update POSTed to the webhook URL, through the deployed functions and a runtime configured from the outputs', async () => {
    const webhook = localUrl(output(controlPlaneStackName(FLEET), 'TelegramWebhookUrl'));
    expect(await desiredCount()).toBe(0); // fran hibernates: deployed at 0
    const started = performance.now();
    const res = await fetch(`${webhook}/telegram/fran`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(BOT_TOKEN) },
      body: JSON.stringify(textUpdate({ updateId: 700, chatId: 5001, fromId: 5001, text: 'hello from the deployed stack' })),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, envelopeId: 'tg.fran.700' });

    await expect
      .poll(() => tg.calls('sendMessage').filter((c) => c.params.text === 'echo: hello from the deployed stack').length, { timeout: 45_000, interval: 250 })
      .toBe(1);
    timings.reply = Math.round(performance.now() - started);
    const reply = tg.calls('sendMessage').find((c) => c.params.text === 'echo: hello from the deployed stack')!;
    expect(reply).toMatchObject({ token: BOT_TOKEN, params: { chat_id: 5001 } });
    // fran's model key, read by the runtime from fran's own deployed secret.
    expect(model.requests().at(-1)?.headers.authorization).toBe(`Bearer ${MODEL_KEY}`);
    // The registry as the deployed functions wrote it: the webhook recorded the activity, the
    // outbox the runtime's heartbeat (so the agent counts as awake and was not woken again).
    const fran = await new DynamoAgentRegistry(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), tableNames(FLEET).registry).get('fran');
    expect(fran).toMatchObject({ state: 'awake', lastActivityAt: expect.any(Number), lastHeartbeatAt: expect.any(Number) });
  });

  it('counts fran’s model call in the deployed spend table, and /status says it against her budget (#31)', async () => {
    expect(spendTable).toBe(tableNames(FLEET).spend);
    const doc = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
    // The deployed λ outbox priced the call's usage report; the runtime settled the same in its own ledger.
    await expect
      .poll(async () => (await new DynamoSpendCounts(doc, spendTable).totals('fran', Date.now())).dayMicros, { timeout: 45_000, interval: 250 })
      .toBeGreaterThan(0);
    const counted = (await new DynamoSpendCounts(doc, spendTable).totals('fran', Date.now())).dayMicros;
    expect((await new DynamoSpendLedger(doc, spendTable).month('fran', periodsAt(Date.now()).month)).spentMicros).toBe(counted);
    const webhook = localUrl(output(controlPlaneStackName(FLEET), 'TelegramWebhookUrl'));
    const res = await fetch(`${webhook}/telegram/fran`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecretFor(BOT_TOKEN) },
      body: JSON.stringify(textUpdate({ updateId: 702, chatId: 5001, fromId: 5001, text: '/status' })),
    });
    expect(res.status).toBe(200);
    await expect
      .poll(() => tg.calls('sendMessage').some((c) => /\nSpend: \$[0-9.]+ of \$5\.00 today · \$[0-9.]+ this month \(UTC\)\n/.test(String(c.params.text))), {
        timeout: 45_000,
        interval: 250,
      })
      .toBe(true);
  });

  it("ships the fleet's skill to fran: its task definition names its bundle in the bootstrap assets bucket, which its runtime reads and offers", () => {
    expect(skillsObject).toMatch(new RegExp(`^s3://cdk-hnb659fds-assets-${aws.accountId}-${aws.region}/[0-9a-f]{64}\\.gz$`));
    expect(runtime!.lines.find((l) => l.msg === 'fleet skills read')).toMatchObject({ from: skillsObject, files: 1 });
    const system = JSON.stringify((model.requests().at(-1)?.body as { messages?: unknown[] } | undefined)?.messages?.[0]);
    expect(system).toContain('weather: Current weather from the deployed fleet skills (fleet-skills/weather/SKILL.md)');
  });

  it('refuses a webhook call without the secret token', async () => {
    const webhook = localUrl(output(controlPlaneStackName(FLEET), 'TelegramWebhookUrl'));
    const res = await fetch(`${webhook}/telegram/fran`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'wrong' },
      body: JSON.stringify(textUpdate({ updateId: 701, chatId: 5001, fromId: 5001, text: 'sneaky' })),
    });
    expect(res.status).toBe(401);
  });

  it('serves hooks and the dashboard on their own Function URLs, each asking for its token', async () => {
    const hooks = localUrl(output(controlPlaneStackName(FLEET), 'HooksUrl'));
    const wake = (token: string) =>
      fetch(`${hooks}/hooks/wake`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ text: 'deployed hook' }),
      });
    expect((await wake('wrong')).status).toBe(401);
    expect((await wake(HOOKS_TOKEN)).status).toBeLessThan(300);

    const dashboard = localUrl(output(controlPlaneStackName(FLEET), 'DashboardUrl'));
    const fleetView = (token: string) => fetch(`${dashboard}/api/fleet`, { headers: { authorization: `Bearer ${token}` } });
    expect((await fleetView('wrong')).status).toBe(401);
    const view = await fleetView(DASHBOARD_TOKEN);
    expect(view.status).toBe(200);
    // Read from the registry, SQS and the metrics table by the deployed function.
    expect(await view.json()).toMatchObject({ fleet: FLEET, where: 'aws', agents: [{ id: 'fran', state: 'awake', queue: { dlq: 0, outboxDlq: 0 } }] });

    // `clawfleet dashboard --aws`: the deployed Function URL with a code the deployed function signs in with.
    const io = captureIO({
      cwd: workDir,
      env: {
        AWS_ENDPOINT_URL: aws.endpoint,
        AWS_REGION: aws.region,
        AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
      },
    });
    expect(await runCli(['dashboard', '--aws'], io), io.errText()).toBe(0);
    const link = io.outText().split('\n')[1]!.trim();
    expect(link).toMatch(/\/login#code=\d+\.[0-9a-f]{64}$/);
    expect(link.startsWith(`${output(controlPlaneStackName(FLEET), 'DashboardUrl').replace(/\/$/, '')}/login#`)).toBe(true);
    expect(io.outText()).not.toContain(DASHBOARD_TOKEN);
    const signIn = await fetch(`${dashboard}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `code=${link.split('#code=')[1]}`,
    });
    expect(signIn.status, await signIn.clone().text()).toBe(303);
    expect(signIn.headers.get('set-cookie')).toMatch(/^clawfleet_dashboard=\d+\.[0-9a-f]{64}; /);
  });

  it('deploys the config’s cron job and heartbeat as schedules invoking cron-dispatch, and tells the outbox how agents schedule their own', async () => {
    const scheduler = new SchedulerClient(aws);
    const { Schedules = [] } = await scheduler.send(new ListSchedulesCommand({ GroupName: scheduleGroupName(FLEET) }));
    expect(Schedules.map((s) => s.Name).sort()).toEqual(['cdkdep-health', 'config-fran-weekly', 'heartbeat-fran']);
    const weekly = await scheduler.send(new GetScheduleCommand({ GroupName: scheduleGroupName(FLEET), Name: 'config-fran-weekly' }));
    expect(weekly.ScheduleExpression).toBe('cron(0 9 ? * 2 *)');
    expect(weekly.Target?.Arn).toBe(`arn:aws:lambda:${aws.region}:${aws.accountId}:function:${functionName(FLEET, 'cron-dispatch')}`);

    const outbox = await new LambdaClient(aws).send(new GetFunctionConfigurationCommand({ FunctionName: functionName(FLEET, 'outbox') }));
    expect(outbox.Environment?.Variables).toMatchObject({
      CLAWFLEET_CRON_FUNCTION_ARN: weekly.Target?.Arn,
      CLAWFLEET_SCHEDULER_ROLE_ARN: weekly.Target?.RoleArn,
    });
  });

  it(
    'wakes and hibernates an agent by asking the deployed compute function, which alone sets the service’s desired count',
    async () => {
      const dashboard = localUrl(output(controlPlaneStackName(FLEET), 'DashboardUrl'));
      const act = async (action: string) => {
        const res = await fetch(`${dashboard}/api/fleet/fran/${action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${DASHBOARD_TOKEN}` },
          body: '{}',
        });
        expect(res.status, await res.clone().text()).toBe(200);
        return ((await res.json()) as { state: string }).state;
      };
      // fran answered while awake with no wake needed; its service is still at 0.
      expect(await desiredCount()).toBe(0);
      expect(await act('hibernate')).toBe('asleep');
      expect(await act('wake')).toBe('waking');
      // The dashboard function asked λ compute (an asynchronous invocation), which set the count…
      await expect.poll(desiredCount, { timeout: ASYNC_INVOKE_MS, interval: 250 }).toBe(1);
      expect(await act('hibernate')).toBe('asleep');
      await expect.poll(desiredCount, { timeout: ASYNC_INVOKE_MS, interval: 250 }).toBe(0);
      // …as λ compute's own log says: the dashboard holds no ECS power, it only asks.
      const computeSaid = async () => {
        const { events = [] } = await new CloudWatchLogsClient(aws).send(
          new FilterLogEventsCommand({ logGroupName: `/aws/lambda/${functionName(FLEET, 'compute')}`, filterPattern: '"agent compute set"' }),
        );
        return events
          .map((e) => JSON.parse(e.message!.slice(e.message!.indexOf('{'))))
          .map((l: { agentId: string; outcome: string }) => `${l.agentId} ${l.outcome}`);
      };
      // (Which ask did which depends on when the emulator ran them: each follows the registry.)
      await expect.poll(computeSaid, { timeout: ASYNC_INVOKE_MS, interval: 500 }).toEqual(expect.arrayContaining(['fran started', 'fran stopped']));
      const dashboardFn = await new LambdaClient(aws).send(new GetFunctionConfigurationCommand({ FunctionName: functionName(FLEET, 'dashboard') }));
      expect(dashboardFn.Environment?.Variables?.CLAWFLEET_COMPUTE_FUNCTION).toBe(functionName(FLEET, 'compute'));
      // An ask Lambda does not queue is an error for the asker (here: no such function), never a silent no-op.
      const nowhere = new LambdaAgentCompute(new SignedLambdaInvoker(aws), functionName(FLEET, 'no-such-holder'));
      await expect(nowhere.setRunning('fran', true)).rejects.toMatchObject({
        code: 'COMPUTE_ASK_FAILED',
        message: expect.stringMatching(/could not ask cdkdep-no-such-holder to run agent fran: ResourceNotFoundException/),
      });
    },
    4 * ASYNC_INVOKE_MS,
  );

  it(
    'leaves the desired count λ compute set through a redeploy that changes the agent’s task definition',
    async () => {
      const dashboard = localUrl(output(controlPlaneStackName(FLEET), 'DashboardUrl'));
      const act = (action: string) =>
        fetch(`${dashboard}/api/fleet/fran/${action}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${DASHBOARD_TOKEN}` },
          body: '{}',
        });
      expect((await act('wake')).status).toBe(200);
      await expect.poll(desiredCount, { timeout: ASYNC_INVOKE_MS, interval: 250 }).toBe(1);
      const service = async () =>
        (await new ECSClient(aws).send(new DescribeServicesCommand({ cluster: clusterName(FLEET), services: [agentServiceName('fran')] }))).services![0]!;
      const before = (await service()).taskDefinition;
      try {
        // fran's stack again, as `cdk deploy` after a config change: a new task definition (more
        // memory), and no newAgents, so the template names no desired count. Only her stack
        // (--exclusively), so only its assets are built.
        const configFile = join(workDir, 'clawfleet-bigger.json');
        const bigger = {
          ...config,
          agents: { ...config.agents, defaults: { ...config.agents.defaults, runtime: { cpus: 0.25, memoryMb: 1024, idleTimeoutMinutes: 30 } } },
        };
        writeFileSync(configFile, JSON.stringify(bigger, null, 2));
        const again = context.map((c) => (c.startsWith('config=') ? `config=${configFile}` : c));
        await timed('redeploy', () =>
          cdklocal(
            ['deploy', agentStackName(FLEET, 'fran'), '--exclusively', ...again, '--output', join(workDir, 'cdk.redeploy.out'), '--require-approval', 'never'],
            REPO,
            REDEPLOY_MS,
          ),
        );
        const after = await service();
        expect(after.taskDefinition).not.toBe(before);
        expect((await new ECSClient(aws).send(new DescribeTaskDefinitionCommand({ taskDefinition: after.taskDefinition }))).taskDefinition?.memory).toBe(
          '1024',
        );
        // Still running: the redeploy did not stop the awake agent.
        expect(after.desiredCount).toBe(1);
      } finally {
        // Back to sleep for the tests after this one, whatever happened above.
        expect((await act('hibernate')).status).toBe(200);
        await expect.poll(desiredCount, { timeout: ASYNC_INVOKE_MS, interval: 250 }).toBe(0);
      }
    },
    3 * ASYNC_INVOKE_MS + REDEPLOY_MS,
  );

  it('parks a forged compute request in λ compute’s dead-letter queue with its reason, touching no service', async () => {
    // A run for fran, were it not for the field no caller may send: refused, fran stays at 0.
    const forged = { v: 1, agentId: 'fran', action: 'run', cluster: 'clawfleet-elsewhere' };
    const invoked = await new LambdaClient(aws).send(
      new InvokeCommand({ FunctionName: functionName(FLEET, 'compute'), InvocationType: 'Event', Payload: new TextEncoder().encode(JSON.stringify(forged)) }),
    );
    expect(invoked.StatusCode).toBe(202);
    const sqs = new SQSClient(aws);
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: `${functionName(FLEET, 'compute')}-dlq` }));
    let parked: { requestPayload?: unknown; responsePayload?: { errorMessage?: string } } | undefined;
    const deadline = Date.now() + 45_000;
    while (!parked && Date.now() < deadline) {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 5 }));
      if (Messages?.[0]) parked = JSON.parse(Messages[0].Body!);
    }
    // Lambda's on-failure record: the request as sent, and the error λ compute threw for it (after its retries).
    expect(parked).toMatchObject({ requestPayload: forged, responsePayload: { errorMessage: expect.stringMatching(/^not a compute request: .*cluster/) } });
    expect(await desiredCount()).toBe(0);
  }, 60_000);

  it(
    'tells the operator’s chat of an alarm going off, once, however often SNS delivers it, and mails the operator',
    async () => {
      const alarm = `${agentStackName(FLEET, 'fran')}-inbox-dlq`;
      const topicArn = output(controlPlaneStackName(FLEET), 'AlarmsTopicArn');
      const told = () => tg.calls('sendMessage').filter((c) => Number(c.params.chat_id) === OPERATOR_CHAT && String(c.params.text).includes(alarm));
      // The operator's email and λ operator-alerts are the topic's subscribers.
      const subscriptions = await awsQuery(aws, 'sns', { Action: 'ListSubscriptionsByTopic', TopicArn: topicArn, Version: '2010-03-31' });
      expect(subscriptions).toContain('<Endpoint>ops@example.com</Endpoint>');
      expect(subscriptions).toMatch(new RegExp(`<Endpoint>arn:aws:lambda:[^<]*:function:${functionName(FLEET, 'operator-alerts')}</Endpoint>`));

      // The deployed alarm changes state: CloudWatch notifies the topic, SNS invokes λ operator-alerts, fran's bot writes.
      await awsQuery(aws, 'monitoring', {
        Action: 'SetAlarmState',
        AlarmName: alarm,
        StateValue: 'ALARM',
        StateReason: 'a message in the DLQ (test)',
        Version: '2010-08-01',
      });
      await expect.poll(() => told().length, { timeout: ASYNC_INVOKE_MS, interval: 250 }).toBe(1);
      expect(told()[0]).toMatchObject({ token: BOT_TOKEN });
      expect(String(told()[0]!.params.text)).toContain(
        `🔴 ${alarm}\nMessages in ${FLEET}-agent-fran-dlq.fifo: see their "reason" attribute\na message in the DLQ (test) (`,
      );

      // One state change, delivered twice more by SNS (each a message of its own) and once straight to the function: nothing more is sent.
      const change = JSON.stringify({
        AlarmName: alarm,
        AlarmDescription: 'the same change, delivered again',
        NewStateValue: 'ALARM',
        OldStateValue: 'OK',
        NewStateReason: 'redelivered',
        StateChangeTime: '2026-12-03T10:15:00.000+0000',
      });
      const outcomes = async () => {
        const { events = [] } = await new CloudWatchLogsClient(aws).send(
          new FilterLogEventsCommand({ logGroupName: `/aws/lambda/${functionName(FLEET, 'operator-alerts')}`, filterPattern: '"operator alert"' }),
        );
        // The function's own JSON lines; the emulator's lines about the invocation are not ours.
        return events
          .map((e) => e.message ?? '')
          .filter((m) => m.includes('{"level"'))
          .map((m) => JSON.parse(m.slice(m.indexOf('{"level"'))) as { alarm?: string; outcome?: string })
          .filter((l) => l.outcome);
      };
      const alarmOutcomes = async () =>
        (await outcomes())
          .filter((o) => o.alarm === alarm)
          .map((o) => o.outcome)
          .sort();
      // Two deliveries of that change, the second once the first is told: it finds it sent. (Two at
      // once would meet in flight, and the second wait for Lambda's retry: a minute on AWS, one and
      // two seconds on the emulator, which a crowded machine's slow first send outlasts — that
      // case is test/unit/operator-alerts.test.ts's.)
      const publish = () => awsQuery(aws, 'sns', { Action: 'Publish', TopicArn: topicArn, Message: change, Version: '2010-03-31' });
      await publish();
      await expect.poll(alarmOutcomes, { timeout: ASYNC_INVOKE_MS, interval: 500 }).toEqual(['sent', 'sent']);
      await publish();
      await expect.poll(alarmOutcomes, { timeout: ASYNC_INVOKE_MS, interval: 500 }).toEqual(['duplicate', 'sent', 'sent']);
      // And once more, straight to the function with SNS's event, as a retry of Lambda's would come.
      const invoked = await new LambdaClient(aws).send(
        new InvokeCommand({
          FunctionName: functionName(FLEET, 'operator-alerts'),
          Payload: new TextEncoder().encode(JSON.stringify({ Records: [{ Sns: { MessageId: 'direct-1', Message: change } }] })),
        }),
      );
      expect(invoked.FunctionError).toBeUndefined();
      expect(JSON.parse(new TextDecoder().decode(invoked.Payload))).toEqual(['duplicate']);
      expect(told()).toHaveLength(2);
      expect(String(told()[1]!.params.text)).toContain('redelivered');
    },
    4 * ASYNC_INVOKE_MS,
  );

  it('moves fran’s workspace in and out through the deployed staging bucket and its own one-off task, held through λ compute', async () => {
    const ecs = new ECSClient(aws);
    const definition = async (family: string) => (await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: family }))).taskDefinition!;
    // The one-off task definition: fran's own access point (the runtime's), and the role of her
    // one-off tasks (the archive's), never the runtime's; all three with the fleet's execution role.
    const [runtimeTask, workspaceTask, archiveTask] = await Promise.all([
      definition(agentStackName(FLEET, 'fran')),
      definition(`${agentStackName(FLEET, 'fran')}-workspace`),
      definition(`${agentStackName(FLEET, 'fran')}-archive`),
    ]);
    expect(workspaceTask.taskRoleArn).not.toBe(runtimeTask.taskRoleArn);
    expect(workspaceTask.taskRoleArn).toBe(archiveTask.taskRoleArn);
    const sharedExecution = expect.stringMatching(/:role\/clawfleet-cdkdep-task-execution$/);
    expect([runtimeTask, workspaceTask, archiveTask].map((t) => t.executionRoleArn)).toEqual([sharedExecution, sharedExecution, sharedExecution]);
    expect(workspaceTask.volumes?.[0]?.efsVolumeConfiguration?.authorizationConfig).toEqual(
      runtimeTask.volumes?.[0]?.efsVolumeConfiguration?.authorizationConfig,
    );
    expect(workspaceTask.containerDefinitions?.[0]).toMatchObject({ name: 'WorkspaceSync', user: '1000', readonlyRootFilesystem: true });

    // The CLI's own wiring (the bucket found through that task definition, the deployed registry and λ compute)…
    const deps = await awsTransferDeps(
      config,
      'fran',
      captureIO({
        env: {
          AWS_ENDPOINT_URL: aws.endpoint,
          AWS_REGION: aws.region,
          AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
          AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
        },
      }),
    );
    const efs = mkdtempSync(join(workDir, 'fran-efs-'));
    // …with the container played, since the emulator's ECS records a RunTask and runs nothing.
    const runner = new DeployedWorkspaceRunner(
      deps.runner,
      async (arn) => {
        const { tasks = [] } = await ecs.send(new DescribeTasksCommand({ cluster: clusterName(FLEET), tasks: [arn] }));
        const task = tasks[0]!;
        const def = await definition(task.taskDefinitionArn!);
        const overrides = task.overrides?.containerOverrides?.find((o) => o.name === 'WorkspaceSync');
        const environment = Object.fromEntries(
          [...(def.containerDefinitions![0]!.environment ?? []), ...(overrides?.environment ?? [])].map((e) => [e.name!, e.value!]),
        );
        return { environment, command: def.containerDefinitions![0]!.command ?? [], taskRoleArn: def.taskRoleArn, overrides: task.overrides };
      },
      isolatedSyncEntry(),
      aws,
      efs,
    );
    const local = mkdtempSync(join(workDir, 'fran-local-'));
    writeFileSync(join(local, 'MEMORY.md'), "- Sam's cat is called Miso.\n");
    const pushed = await pushToAws('fran', local, { force: false, hibernate: true }, { ...deps, runner, limits: { ...deps.limits, pollMs: 250 } });
    expect(pushed).toMatchObject({ files: 1, created: 1 });
    expect(readFileSync(join(efs, 'MEMORY.md'), 'utf8')).toBe("- Sam's cat is called Miso.\n");
    // RunTask as the CLI sent it: fran's workspace task, the transfer in the container's environment.
    expect(runner.started[0]!.environment).toMatchObject({
      CLAWFLEET_AGENT_ID: 'fran',
      CLAWFLEET_STAGING_PREFIX: 'fran/',
      CLAWFLEET_SYNC_ACTION: 'push',
      CLAWFLEET_SYNC_FORCE: '0',
    });
    expect(runner.started[0]!.taskRoleArn).toBe(workspaceTask.taskRoleArn);
    // Held through the deployed λ compute (fran's service at 0 meanwhile), released asleep, the push recorded for the dashboard.
    expect(await desiredCount()).toBe(0);
    expect((await new DynamoAgentRegistry(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), tableNames(FLEET).registry).get('fran'))?.state).toBe('asleep');
    expect(await new DynamoWorkspaceSyncLog(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), tableNames(FLEET).registry).last('fran')).toMatchObject({
      direction: 'push',
      files: 1,
    });

    const home = join(workDir, 'fran-home');
    expect(await pullFromAws('fran', home, { force: false, hibernate: false }, { ...deps, runner, limits: { ...deps.limits, pollMs: 250 } })).toMatchObject({
      files: 1,
      created: 1,
    });
    expect(readFileSync(join(home, 'MEMORY.md'), 'utf8')).toBe("- Sam's cat is called Miso.\n");
  }, 90_000);
});
