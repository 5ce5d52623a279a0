// `clawfleet workspace push|pull --aws` against the emulator: the staging prefix on real S3,
// the registry and the sync record in real DynamoDB, the agent's queue depth from SQS, its
// runtime tasks from ECS, and the one-off task played by the runtime bundle's workspace-sync
// entry (ECS only records RunTask here; the task definition and the RunTask request are
// checked against the deployed app in cdk-deploy.test.ts). Both ends verify the manifest; an
// interrupted transfer — the upload cut, or the task killed halfway — resumes without
// sending again what arrived; a forged manifest is refused.
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { ECSClient } from '@aws-sdk/client-ecs';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { pullFromAws, pushToAws, type AwsTransferDeps } from '../../cli/workspace/aws-transfer.ts';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoWorkspaceSyncLog } from '../../shared/adapters/aws/dynamo-workspace-sync-log.ts';
import { EcsWorkspaceTasks } from '../../shared/adapters/aws/ecs-workspace-tasks.ts';
import { S3WorkspaceStaging, stagingS3Client } from '../../shared/adapters/aws/s3-workspace-staging.ts';
import { SqsQueueDepths } from '../../shared/adapters/aws/sqs-queue-depths.ts';
import { SqsQueueDirectory } from '../../shared/adapters/aws/sqs-queues.ts';
import { InMemoryAgentCompute } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { tableNames } from '../../shared/config/names.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { awsTestEnv } from '../support/aws.ts';
import { provisionFleet } from '../support/provision.ts';
import { isolatedSyncEntry, ProcessWorkspaceRunner, runSyncEntry } from '../support/workspace-task.ts';
import { tempDir } from '../support/temp-dirs.ts';

const aws = awsTestEnv();
const BUCKET = `cf-staging-${aws.accountId}`;
const config = parseConfig({
  fleet: 'wsaws',
  agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'fran' }, { id: 'jerry' }] },
  models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
});
const s3 = new S3Client({ ...aws, forcePathStyle: true });
const doc = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
let entry: string;
let n = 0;
const tmp = (name: string) => tempDir(`cf-wsaws-${name}-`);

beforeAll(async () => {
  entry = isolatedSyncEntry();
  await provisionFleet(aws, config, { telegram: {}, agents: {} }, { ecs: true });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

/** Everything `workspace --aws` talks to, on the emulator; the task is a process of the bundle on `efs`. */
function setup(agentId = 'fran') {
  const efs = tmp('efs');
  const compute = new InMemoryAgentCompute();
  const sqs = new SQSClient(aws);
  const staging = new S3WorkspaceStaging(stagingS3Client(aws), BUCKET, `${agentId}/`);
  const runner = new ProcessWorkspaceRunner(entry, aws, BUCKET, () => efs);
  const lines: string[] = [];
  const deps: AwsTransferDeps = {
    lifecycle: {
      registry: new DynamoAgentRegistry(doc, tableNames(config.fleet).registry),
      compute,
      depths: new SqsQueueDepths(sqs, config.fleet, new SqsQueueDirectory(sqs)),
      clock: systemClock,
      log: memoryLogger(),
    },
    tasks: new EcsWorkspaceTasks(new ECSClient(aws), config.fleet),
    runner,
    staging,
    syncLog: new DynamoWorkspaceSyncLog(doc, tableNames(config.fleet).registry),
    say: (l) => lines.push(l),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    newTransferId: () => `t${Date.now().toString(36)}-${++n}`,
    limits: { stopMs: 30_000, taskMs: 60_000, pollMs: 50 },
  };
  return { efs, compute, staging, runner, deps, lines };
}

/** A workspace of `count` files (memory, transcripts, a binary, an executable), with their hashes. */
function workspaceOf(count: number, size = 2048): { dir: string; hashes: Map<string, string> } {
  const dir = tmp('local');
  const hashes = new Map<string, string>();
  const put = (rel: string, bytes: Buffer, mode = 0o644) => {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), bytes, { mode });
    hashes.set(rel, createHash('sha256').update(bytes).digest('hex'));
  };
  put('MEMORY.md', Buffer.from("- Sam's cat is called Miso.\n"));
  put('bin/tool.sh', Buffer.from('#!/bin/sh\necho hi\n'), 0o755);
  for (let i = 0; i < count; i++)
    put(`memory/2026-11-${String(i % 30).padStart(2, '0')}-${i}.md`, Buffer.from(`${i}:`.padEnd(size, String.fromCharCode(97 + (i % 26)))));
  put('image.bin', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7) % 256)));
  return { dir, hashes };
}

function hashesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const rel = join(e.parentPath, e.name).slice(dir.length + 1);
    out.set(
      rel,
      createHash('sha256')
        .update(readFileSync(join(dir, rel)))
        .digest('hex'),
    );
  }
  return out;
}

const stagedKeys = async (prefix: string) => ((await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: prefix }))).Contents ?? []).map((o) => o.Key!);

describe('workspace push and pull through the staging bucket', () => {
  it('pushes a workspace onto “EFS” and pulls it back byte for byte, holding the agent meanwhile and recording it', async () => {
    const t = setup();
    const { dir, hashes } = workspaceOf(12);
    const pushed = await pushToAws('fran', dir, { force: false, hibernate: false }, t.deps);
    expect(pushed).toMatchObject({ files: 15, created: 15, sent: 15, workspaceFiles: 15 });
    expect(hashesOf(t.efs)).toEqual(hashes);
    // Held, so stopped through compute, and released asleep (it was asleep).
    expect(t.compute.calls).toEqual([{ agentId: 'fran', action: 'stop' }]);
    expect((await t.deps.lifecycle.registry.get('fran'))?.state).toBe('asleep');
    // Progress came from the task's status document.
    expect(t.lines.some((l) => /workspace task .* started/.test(l))).toBe(true);
    // Verified at both ends: the staged copy is gone.
    expect(await stagedKeys('fran/')).toEqual([]);

    const home = join(tmp('home'), 'fran');
    const pulled = await pullFromAws('fran', home, { force: false, hibernate: false }, t.deps);
    expect(pulled).toMatchObject({ files: 15, created: 15 });
    expect(hashesOf(home)).toEqual(hashes);
    expect(statSync(join(home, 'bin', 'tool.sh')).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, 'MEMORY.md')).mode & 0o777).toBe(0o600);
    // The dashboard's record, in the registry table.
    const { Item } = await doc.send(new GetCommand({ TableName: tableNames(config.fleet).registry, Key: { pk: 'workspace:fran' } }));
    expect(Item).toMatchObject({ direction: 'pull', files: 15, workspaceFiles: 15, where: home });
  });

  it('looks for conflicts before it stops a running agent, and leaves it running when there are some', async () => {
    const t = setup('jerry');
    const { dir } = workspaceOf(2);
    writeFileSync(join(t.efs, 'MEMORY.md'), '- what jerry wrote himself\n');
    const registry = t.deps.lifecycle.registry;
    expect(await registry.transition('jerry', ['absent', 'asleep'], 'awake', Date.now())).toBe(true);
    onTestFinished(async () => {
      await registry.transition('jerry', ['awake'], 'asleep', Date.now());
      // What this push staged stays staged (for a retry with --force): gone here, so later tests count from nothing.
      await t.staging.remove([...(await t.staging.staged()).keys()]);
      for (const d of [t.efs, dir]) rmSync(d, { recursive: true, force: true });
    });
    await expect(pushToAws('jerry', dir, { force: false, hibernate: true }, t.deps)).rejects.toMatchObject({
      code: 'WORKSPACE_CONFLICT',
      message: expect.stringMatching(
        /^jerry's workspace already holds files that differ; nothing was sent to it and jerry was left running:\n {2}MEMORY\.md: exists with other content/,
      ),
    });
    // Never held, never stopped: one task ran, the check, and the workspace is as it was.
    expect(t.compute.calls).toEqual([]);
    expect((await registry.get('jerry'))?.state).toBe('awake');
    expect([...t.runner.runs.values()].map((r) => r.run.action)).toEqual(['check']);
    expect(readFileSync(join(t.efs, 'MEMORY.md'), 'utf8')).toBe('- what jerry wrote himself\n');
    expect(t.lines).toContain(`checking 5 files against jerry's workspace before stopping it (transfer ${[...t.runner.runs.values()][0]!.run.transfer})…`);
    // The staged manifest's scan said its total, once.
    expect(t.lines.filter((l) => l.startsWith('  scanned: '))).toEqual(['  scanned: 5 files (8.0 KiB)']);
  });

  it('fails a push whose staged body is not the manifest’s, drops that body, and succeeds once it is sent again', async () => {
    const t = setup();
    const { dir, hashes } = workspaceOf(3);
    const victim = hashes.get('MEMORY.md')!;
    // Between staging and the task, someone with the agent's role rewrites a staged body.
    t.runner.beforeStart = async () => {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `fran/objects/${victim}`, Body: "- Sam's cat is called Mino.\n" })); // same size, other bytes
      t.runner.beforeStart = undefined;
    };
    await expect(pushToAws('fran', dir, { force: false, hibernate: false }, t.deps)).rejects.toMatchObject({ code: 'FILE_CORRUPT' });
    expect(await stagedKeys(`fran/objects/${victim}`)).toEqual([]);
    expect(readdirSync(t.efs).filter((f) => f.includes('MEMORY'))).toEqual([]); // nothing half-written
    expect((await t.deps.lifecycle.registry.get('fran'))?.state).toBe('asleep');
    const again = await pushToAws('fran', dir, { force: false, hibernate: false }, t.deps);
    expect(again.sent).toBe(1);
    expect(readFileSync(join(t.efs, 'MEMORY.md'), 'utf8')).toBe("- Sam's cat is called Miso.\n");
  });

  it('resumes an upload cut halfway without sending again what arrived', async () => {
    const t = setup();
    const { dir, hashes } = workspaceOf(20);
    const put = t.staging.put.bind(t.staging);
    let sent = 0;
    t.staging.put = async (sha, size, body) => {
      if (++sent > 10) throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
      return put(sha, size, body);
    };
    await expect(pushToAws('fran', dir, { force: false, hibernate: false }, t.deps)).rejects.toThrow(/socket hang up/);
    const arrived = (await stagedKeys('fran/objects/')).length;
    expect(arrived).toBeGreaterThanOrEqual(10);
    t.staging.put = put;
    const resumed = await pushToAws('fran', dir, { force: true, hibernate: false }, t.deps);
    expect(resumed.sent).toBe(23 - arrived);
    expect(hashesOf(t.efs)).toEqual(hashes);
  });

  it('resumes a pull whose task was killed halfway: the second task stages only what the first had not', async () => {
    const t = setup('jerry');
    const { dir, hashes } = workspaceOf(120, 16 * 1024);
    // jerry's workspace on "EFS".
    for (const [rel] of hashes) {
      mkdirSync(join(t.efs, rel, '..'), { recursive: true });
      writeFileSync(join(t.efs, rel), readFileSync(join(dir, rel)));
    }
    chmodSync(join(t.efs, 'bin', 'tool.sh'), 0o755);
    let killedAt = 0;
    t.runner.onStart = async (p) => {
      t.runner.onStart = undefined;
      // Killed once some bodies have arrived, as a task stopped by Fargate would be.
      for (;;) {
        killedAt = (await stagedKeys('jerry/objects/')).length;
        if (killedAt >= 20) break;
        await new Promise((r) => setTimeout(r, 5));
      }
      p.child.kill('SIGKILL');
    };
    const home = join(tmp('home'), 'jerry');
    await expect(pullFromAws('jerry', home, { force: false, hibernate: false }, t.deps)).rejects.toMatchObject({ code: 'TASK_FAILED' });
    expect((await t.deps.lifecycle.registry.get('jerry'))?.state).toBe('asleep');
    const before = (await stagedKeys('jerry/objects/')).length;
    expect(before).toBeGreaterThanOrEqual(killedAt);
    expect(before).toBeLessThan(hashes.size);
    const pulled = await pullFromAws('jerry', home, { force: false, hibernate: false }, t.deps);
    // The second task's own count: bodies it staged now, and those it found already there.
    expect(pulled.sent).toBe(hashes.size - before);
    expect(hashesOf(home)).toEqual(hashes);
  });
});

describe('the workspace-sync entry refuses what is not its own', () => {
  const env = (over: Record<string, string>) => ({
    CLAWFLEET_AGENT_ID: 'fran',
    CLAWFLEET_WORKSPACE: tmp('efs'),
    CLAWFLEET_STAGING_BUCKET: BUCKET,
    CLAWFLEET_STAGING_PREFIX: 'fran/',
    CLAWFLEET_SYNC_ACTION: 'push',
    CLAWFLEET_SYNC_TRANSFER: `forged-${++n}-transfer`,
    ...over,
  });
  const manifest = (agentId: string, path: string) => ({
    v: 1,
    agentId,
    createdAt: 1,
    files: [{ path, size: 2, sha256: createHash('sha256').update('hi').digest('hex'), executable: false }],
    skipped: [],
    totalBytes: 2,
  });

  it('stops at once when no CLI holds the agent for it (no keepalive), writing nothing', async () => {
    const e = env({});
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: `fran/transfers/${e.CLAWFLEET_SYNC_TRANSFER}/manifest.json`,
        Body: JSON.stringify(manifest('fran', 'MEMORY.md')),
      }),
    );
    const p = runSyncEntry(entry, aws, e);
    expect((await p.exited).code).toBe(1);
    expect(await new S3WorkspaceStaging(stagingS3Client(aws), BUCKET, 'fran/').getDocument(e.CLAWFLEET_SYNC_TRANSFER, 'result')).toMatchObject({
      ok: false,
      code: 'HOLDER_GONE',
    });
    expect(readdirSync(e.CLAWFLEET_WORKSPACE)).toEqual([]);
  });

  it('reads only its own agent’s prefix', async () => {
    const p = runSyncEntry(entry, aws, env({ CLAWFLEET_STAGING_PREFIX: 'jerry/' }));
    expect((await p.exited).code).toBe(2);
    expect(p.output()).toMatch(/CLAWFLEET_STAGING_PREFIX: must be \\"fran\/\\"/);
  });

  it('refuses another agent’s manifest, and one whose paths climb out of the workspace', async () => {
    for (const [m, code] of [
      [manifest('jerry', 'MEMORY.md'), 'MANIFEST_OTHER_AGENT'],
      [manifest('fran', '../../etc/cron.d/evil'), 'MANIFEST_INVALID'],
    ] as const) {
      const e = env({});
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `fran/transfers/${e.CLAWFLEET_SYNC_TRANSFER}/manifest.json`, Body: JSON.stringify(m) }));
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `fran/transfers/${e.CLAWFLEET_SYNC_TRANSFER}/keepalive.json`, Body: '{}' }));
      const p = runSyncEntry(entry, aws, e);
      expect((await p.exited).code).toBe(1);
      const result = JSON.parse(
        await await new S3WorkspaceStaging(stagingS3Client(aws), BUCKET, 'fran/')
          .getDocument(e.CLAWFLEET_SYNC_TRANSFER, 'result')
          .then((r) => JSON.stringify(r)),
      );
      expect(result).toMatchObject({ ok: false, code });
      expect(readdirSync(e.CLAWFLEET_WORKSPACE)).toEqual([]);
    }
  });
});
