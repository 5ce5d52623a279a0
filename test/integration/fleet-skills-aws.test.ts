// Fleet skills on the AWS path (#19), over real wire protocols: a runtime started with the AWS
// connection reads the bundle it is named (CLAWFLEET_FLEET_SKILLS_OBJECT) from the emulator's
// S3 with its signed GetObject, unpacks it, copies it into its workspace in place of any old
// copy, and offers its skills to the model (the fake model server records the system prompt).
// A bundle that is not there leaves the agent with its own skills and says so.
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFleetSkillsBundle } from '../../shared/config/fleet-skills-bundle.ts';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { askOnQueues, emulatorRuntimeEnv } from '../support/queue-turn.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { tempDir } from '../support/temp-dirs.ts';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const s3 = new S3Client({ ...aws, forcePathStyle: true });
const BUCKET = `cdk-assets-skills-${aws.accountId}`;
const KEY = 'sk-test-fleet-skills-0123456789abcdef';
const text = (s: string) => new TextEncoder().encode(s);
let model: FakeModel;
let fleet: ProvisionedFleet;
let config: FleetConfig;
const runtimes: RuntimeProcess[] = [];

/** The system prompt of the model request whose last user text is `said`. */
function systemPromptFor(said: string): string {
  const request = model.requests().find((r) => r.lastUserText === said);
  const messages = (request?.body as { messages?: { role: string; content: unknown }[] } | undefined)?.messages ?? [];
  const system = messages.find((m) => m.role === 'system')?.content;
  return typeof system === 'string' ? system : JSON.stringify(system ?? '');
}

function launch(dir: string, object: string): RuntimeProcess {
  const runtime = startRuntime(
    emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', {
      CLAWFLEET_WORKSPACE: join(dir, 'workspace'),
      CLAWFLEET_RUNTIME_STATE: join(dir, 'state'),
      CLAWFLEET_FLEET_SKILLS_OBJECT: object,
    }),
  );
  runtimes.push(runtime);
  return runtime;
}

beforeAll(async () => {
  model = await startModel({ apiKey: KEY });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'skills';
  example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  // Exec denied: the sandbox is another test's business; a skill is still offered (read is allowed).
  example.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { deny: ['exec'] };
  config = parseConfig(example);
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: { OPENAI_API_KEY: KEY } } });
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
}, 60_000);

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill('SIGKILL')));
  await model?.close();
});

describe('fleet skills on AWS', () => {
  it("are read from the agent's object in S3, copied into its workspace in place of the old copy, and offered to the model", async () => {
    const bundle = encodeFleetSkillsBundle([
      {
        path: 'weather/SKILL.md',
        executable: false,
        data: text('---\nname: weather\ndescription: Current weather and forecasts\n---\n\nRun scripts/get.sh.\n'),
      },
      { path: 'weather/scripts/get.sh', executable: true, data: text('#!/bin/sh\necho sunny\n') },
    ]);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: '0f1e2d3c.gz', Body: bundle }));
    const dir = tempDir('cf-fleet-skills-aws-');
    mkdirSync(join(dir, 'workspace', 'fleet-skills', 'stale'), { recursive: true });
    const runtime = launch(dir, `s3://${BUCKET}/0f1e2d3c.gz`);
    await runtime.waitFor((l) => l.msg === 'ready', 30_000);
    expect(runtime.lines.find((l) => l.msg === 'fleet skills read')).toMatchObject({ from: `s3://${BUCKET}/0f1e2d3c.gz`, files: 2 });

    const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'skills.1', 'what can you do?');
    expect(reply).toMatchObject({ inReplyTo: 'skills.1' });
    expect(systemPromptFor('what can you do?')).toContain('- weather: Current weather and forecasts (fleet-skills/weather/SKILL.md)');
    expect(existsSync(join(dir, 'workspace', 'fleet-skills', 'stale'))).toBe(false);
    expect(statSync(join(dir, 'workspace', 'fleet-skills', 'weather', 'scripts', 'get.sh')).mode & 0o111).not.toBe(0);
    expect(await runtime.kill('SIGTERM')).toBe(0);
  });

  it('that cannot be read leave the agent with its own skills, and say so', async () => {
    const dir = tempDir('cf-fleet-skills-aws-missing-');
    const runtime = launch(dir, `s3://${BUCKET}/not-there.gz`);
    await runtime.waitFor((l) => l.msg === 'ready', 30_000);
    expect(runtime.lines.find((l) => l.msg === 'fleet skills not read; the agent has its own skills only')).toMatchObject({
      from: `s3://${BUCKET}/not-there.gz`,
    });
    expect(existsSync(join(dir, 'workspace', 'fleet-skills'))).toBe(false);
    expect(await runtime.kill('SIGTERM')).toBe(0);
  });
});
