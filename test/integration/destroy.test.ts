// `clawfleet destroy` against the emulator: a two-agent fleet deployed with `clawfleet deploy`
// (cdklocal), given what a fleet in use has — agent records, an approved pairing, a session, a
// schedule an agent made, files in a workspace, a secret the CLI made, and termination
// protection on its control plane (as the app sets it) — is destroyed: the export folder holds
// the tables, the pairing and the workspaces; the webhook is deleted; every stack is gone, the
// control plane's protection turned off on the way; the secrets' values are kept in dated copies
// scheduled for deletion; and each resource the plan listed as kept (and billed) is still there.
// Emulator gap (docs/testing.md): no ECS task runs, so the workspace task is played by the
// runtime bundle's workspace-sync entry as a process on a folder standing for the agent's EFS
// directory, as test/integration/workspace-aws.test.ts does.
import { mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CloudFormationClient, DescribeStacksCommand, UpdateTerminationProtectionCommand } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeFileSystemsCommand, EFSClient } from '@aws-sdk/client-efs';
import { DescribeTaskDefinitionCommand, ECSClient } from '@aws-sdk/client-ecs';
import { HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateSecretCommand, DescribeSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsDestroyAccount } from '../../cli/destroy/account.ts';
import type { DestroyState } from '../../cli/destroy/destroy-steps.ts';
import { runDestroy } from '../../cli/destroy.ts';
import { runDeploy } from '../../cli/deploy.ts';
import { awsTransferDeps } from '../../cli/workspace/aws-deps.ts';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoPairingStore } from '../../shared/adapters/aws/dynamo-pairing-store.ts';
import { DynamoSessionRegistry } from '../../shared/adapters/aws/dynamo-tables.ts';
import { EventBridgeCronScheduler, schedulerClient } from '../../shared/adapters/aws/eventbridge-cron-scheduler.ts';
import { dynamoDocumentClient } from '../../shared/adapters/aws/clients.ts';
import { parseConfig } from '../../shared/config/load.ts';
import {
  agentStackName,
  agentWorkspaceTaskFamily,
  controlPlaneStackName,
  functionName,
  scheduleGroupName,
  tableNames,
  WORKSPACE_SYNC_CONTAINER,
} from '../../shared/config/names.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';
import { isolatedSyncEntry, ProcessWorkspaceRunner } from '../support/workspace-task.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const REPO = realpathSync(fileURLToPath(new URL('../../', import.meta.url)));
const aws = awsTestEnv();
const FLEET = 'dsty';
const BOT = '1000004:AAdestroy-day-token-00000000000000000';
const KEY = 'sk-test-destroy-fran-0123456789abcdef';
const RUNTIME_IMAGE = 'public.ecr.aws/docker/library/node:24-slim';

let tg: FakeTelegram;
let workDir: string;
let config: FleetConfigInput;
let out = '';
let err = '';
let code = -1;
const efs = (agentId: string) => join(workDir, 'efs', agentId);
const timings: Record<string, number> = {};

const cliEnv = () => ({
  AWS_ENDPOINT_URL: aws.endpoint,
  AWS_ENDPOINT_URL_S3: aws.endpoint,
  AWS_REGION: aws.region,
  AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
  AWS_ENVAR_ALLOWLIST: 'AWS_ACCESS_KEY_ID,AWS_SECRET_ACCESS_KEY,AWS_REGION',
  TMPDIR: join(workDir, 'tmp'),
  CI: 'true',
});

beforeAll(async () => {
  workDir = tempDir('cf-destroy-');
  if (!relative(REPO, realpathSync(workDir)).startsWith('..')) throw new Error(`the temp dir ${workDir} lies inside the repository; set TMPDIR elsewhere`);
  mkdirSync(join(workDir, 'tmp'));
  tg = await startTelegram({ bots: [{ token: BOT, username: 'dsty_fran_bot' }] });
  config = {
    fleet: FLEET,
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran', default: true }, { id: 'grif' }] },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
    bindings: [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }],
    channels: { telegram: { apiRoot: tg.url, accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } } },
  };
  writeFileSync(join(workDir, 'clawfleet.json'), JSON.stringify(config, null, 2));
  const values = JSON.stringify({
    [`clawfleet/${FLEET}/control/telegram`]: { FRAN_BOT_TOKEN: BOT },
    [`clawfleet/${FLEET}/agents/fran`]: { OPENAI_API_KEY: KEY },
    [`clawfleet/${FLEET}/agents/grif`]: { OPENAI_API_KEY: KEY },
  });
  const io = captureIO({ cwd: workDir, env: cliEnv(), stdin: values });
  const t0 = performance.now();
  const deployed = await runDeploy(
    [
      '--cdk',
      join(REPO, 'node_modules', '.bin', 'cdklocal'),
      '--context',
      'emulator=true',
      '--context',
      `runtimeImage=${RUNTIME_IMAGE}`,
      '--secrets-file',
      '-',
      '--non-interactive',
    ],
    io,
    { assemblyDir: join(workDir, 'cdk.out') },
  );
  timings.deploy = Math.round(performance.now() - t0);
  if (deployed !== 0) throw new Error(`clawfleet deploy exited ${deployed}:\n${io.errText()}\n${io.outText().slice(-4000)}`);

  // What a fleet in use holds.
  const doc = dynamoDocumentClient(aws);
  const tables = tableNames(FLEET);
  await new DynamoAgentRegistry(doc, tables.registry).transition('grif', ['absent'], 'asleep', Date.now());
  const pairings = new DynamoPairingStore(doc, tables.registry);
  const now = Date.now();
  await pairings.createPending({
    channel: 'telegram',
    accountId: 'fran',
    peerId: '5001',
    displayName: 'Ann',
    code: 'K7M2QX9P',
    status: 'pending',
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
  await pairings.approve('K7M2QX9P', now);
  await new DynamoSessionRegistry(doc, tables.sessions).put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: { channel: 'none' }, updatedAt: now });
  const cronDispatch = `arn:aws:lambda:${aws.region}:${aws.accountId}:function:${functionName(FLEET, 'cron-dispatch')}`;
  await new EventBridgeCronScheduler(schedulerClient(aws), {
    group: scheduleGroupName(FLEET),
    functionArn: cronDispatch,
    roleArn: `arn:aws:iam::${aws.accountId}:role/scheduler`,
  }).put({
    name: 'agent-fran-tidy',
    expression: 'rate(1 day)',
    input: JSON.stringify({ v: 1, kind: 'cron', agentId: 'fran', jobId: 'tidy' }),
  });
  mkdirSync(join(efs('fran'), 'memory'), { recursive: true });
  writeFileSync(join(efs('fran'), 'MEMORY.md'), 'Ann likes tea\n');
  writeFileSync(join(efs('fran'), 'memory', '2026-12-03.md'), 'talked about the garden\n');
  mkdirSync(efs('grif'), { recursive: true });
  writeFileSync(join(efs('grif'), 'MEMORY.md'), 'grif remembers\n');
  // A secret `clawfleet secrets set --aws` made (no stack owns it), and the control plane protected as the app protects it.
  await new SecretsManagerClient(aws).send(
    new CreateSecretCommand({ Name: `clawfleet/${FLEET}/control/hooks`, SecretString: JSON.stringify({ HOOKS_TOKEN: 'h'.repeat(40) }) }),
  );
  await new CloudFormationClient(aws).send(
    new UpdateTerminationProtectionCommand({ StackName: controlPlaneStackName(FLEET), EnableTerminationProtection: true }),
  );

  // Destroy, the workspace task played by the bundle's workspace-sync entry.
  const entry = isolatedSyncEntry();
  const ecs = new ECSClient(aws);
  const dio = captureIO({ cwd: workDir, env: cliEnv() });
  const t1 = performance.now();
  code = await runDestroy(['--yes', '--recovery-days', '7'], dio, {
    pollMs: 500,
    account: (cfg, settings, io2) =>
      awsDestroyAccount(cfg, settings, io2, async (agentId) => {
        const { taskDefinition } = await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: agentWorkspaceTaskFamily(FLEET, agentId) }));
        const bucket = taskDefinition!
          .containerDefinitions!.find((c) => c.name === WORKSPACE_SYNC_CONTAINER)!
          .environment!.find((e) => e.name === 'CLAWFLEET_STAGING_BUCKET')!.value!;
        const deps = await awsTransferDeps(parseConfig(config), agentId, io2);
        return { ...deps, runner: new ProcessWorkspaceRunner(entry, aws, bucket, efs), limits: { stopMs: 60_000, taskMs: 120_000, pollMs: 250 } };
      }),
  });
  timings.destroy = Math.round(performance.now() - t1);
  out = dio.outText();
  err = dio.errText();
}, 600_000);

afterAll(async () => {
  await tg?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  if (Object.keys(timings).length)
    console.log(
      `[destroy] ${Object.entries(timings)
        .map(([k, ms]) => `${k} ${(ms / 1000).toFixed(1)} s`)
        .join(', ')}`,
    );
});

describe('clawfleet destroy, against the emulator', () => {
  it('ran every step in order, after a plan that names what is kept and what goes', () => {
    expect(code, `${out}\n${err}`).toBe(0);
    for (const [i, step] of ['webhooks', 'schedules', 'workspaces', 'tables', 'secrets kept', 'agent stacks', 'control plane', 'leftover secrets'].entries())
      expect(out).toMatch(new RegExp(`^ {2}[✓–] \\[${i + 1}/8\\] ${step}: `, 'm'));
    expect(out).toContain(`  7. control plane: turn off ${FLEET}-control-plane's termination protection (it is on`);
    expect(out).toContain('  ✓ [7/8] control plane: turned off its termination protection, on purpose, for this delete; deleted dsty-control-plane');
    expect(out).toContain('  ✓ [1/8] webhooks: deleted the webhook of fran');
    expect(tg.calls('deleteWebhook')).toHaveLength(1);
    expect(out).toContain('  ✓ [2/8] schedules: deleted agent-fran-tidy');
    for (const v of [BOT, KEY]) expect(out + err).not.toContain(v);
  });

  it('exported the tables, the approved pairing and each agent’s workspace', () => {
    const outDir = join(workDir, `clawfleet-export-${FLEET}`);
    const items = (table: string) =>
      readFileSync(join(outDir, 'tables', `${table}.jsonl`), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const registry = items(tableNames(FLEET).registry);
    expect(registry.map((i) => i.pk)).toEqual(expect.arrayContaining(['agent:grif', 'pairing:telegram:fran:5001']));
    expect(items(tableNames(FLEET).sessions)).toEqual([expect.objectContaining({ pk: 'agent:fran:main', agentId: 'fran' })]);
    expect(JSON.parse(readFileSync(join(outDir, 'pairings.json'), 'utf8'))).toEqual([
      expect.objectContaining({ accountId: 'fran', peerId: '5001', displayName: 'Ann', status: 'approved' }),
    ]);
    expect(readFileSync(join(outDir, 'workspaces', 'fran', 'MEMORY.md'), 'utf8')).toBe('Ann likes tea\n');
    expect(readFileSync(join(outDir, 'workspaces', 'fran', 'memory', '2026-12-03.md'), 'utf8')).toBe('talked about the garden\n');
    expect(readFileSync(join(outDir, 'workspaces', 'grif', 'MEMORY.md'), 'utf8')).toBe('grif remembers\n');
    expect(out).toMatch(/ {2}✓ \[3\/8\] workspaces: pulled fran 2 files, grif 1 files/);
  });

  it('deleted every stack, kept the secrets’ values in dated copies for their recovery window, and left what it listed as kept', async () => {
    const cfn = new CloudFormationClient(aws);
    for (const name of [controlPlaneStackName(FLEET), agentStackName(FLEET, 'fran'), agentStackName(FLEET, 'grif')]) {
      const stacks = (await cfn.send(new DescribeStacksCommand({ StackName: name })).catch(() => ({ Stacks: [] }))).Stacks ?? [];
      expect(
        stacks.filter((s) => s.StackStatus !== 'DELETE_COMPLETE'),
        name,
      ).toEqual([]);
    }
    const sm = new SecretsManagerClient(aws);
    const describe = (id: string) => sm.send(new DescribeSecretCommand({ SecretId: id })).catch((e: Error) => e);
    const day = new Date().toISOString().slice(0, 10);
    for (const name of ['control/telegram', 'agents/fran']) {
      const copy = await describe(`clawfleet-destroyed/${FLEET}/${day}/${name}`);
      expect(copy, name).toMatchObject({ DeletedDate: expect.any(Date) });
      expect(out).toContain(`clawfleet/${FLEET}/${name}, kept as clawfleet-destroyed/${FLEET}/${day}/${name}, until `);
    }
    // The CLI's own secret, which no stack owned: scheduled for deletion itself.
    expect(await describe(`clawfleet/${FLEET}/control/hooks`)).toMatchObject({ DeletedDate: expect.any(Date) });

    // Everything the plan listed as kept by the stacks is still there (and said how to delete).
    const state = JSON.parse(readFileSync(join(workDir, `clawfleet-export-${FLEET}`, 'destroy.json'), 'utf8')) as DestroyState;
    expect(state.kept.map((k) => k.type)).toEqual(expect.arrayContaining(['AWS::EFS::FileSystem', 'AWS::S3::Bucket']));
    for (const k of state.kept) {
      if (k.type === 'AWS::EFS::FileSystem')
        expect((await new EFSClient(aws).send(new DescribeFileSystemsCommand({ FileSystemId: k.physicalId }))).FileSystems).toHaveLength(1);
      else if (k.type === 'AWS::S3::Bucket') await new S3Client({ ...aws, forcePathStyle: true }).send(new HeadBucketCommand({ Bucket: k.physicalId }));
      else if (k.type === 'AWS::DynamoDB::Table') await new DynamoDBClient(aws).send(new DescribeTableCommand({ TableName: k.physicalId }));
      else throw new Error(`a kept ${k.type} this test does not check`);
      expect(out).toContain(k.physicalId);
    }
    expect(out).toMatch(/Still billed until you delete them:\n {2}- /);
  });
});
