// The runtime as the image runs it. The Dockerfile cannot be built here (no Docker engine),
// so this does what its stages do: bundle runtime-image/src/main.ts with build.mjs, put the
// workspace template beside it, and run `node dist/main.mjs` from a directory with no
// node_modules anywhere above it — proving that the bundle carries everything it imports
// (the provider SDK and MCP client chunks it loads later included) — against the emulator.
import { askOnQueues, emulatorRuntimeEnv } from '../support/queue-turn.ts';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { tempDir } from '../support/temp-dirs.ts';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const KEY = 'sk-test-bundle-fran-0123456789abcdef';
let model: FakeModel;
let fleet: ProvisionedFleet;
let app: string;
let runtime: RuntimeProcess | undefined;

beforeAll(async () => {
  app = join(tempDir('cf-image-'), 'app');
  execFileSync(process.execPath, ['runtime-image/build.mjs', join(app, 'dist')], { stdio: 'ignore' });
  cpSync('runtime-image/templates', join(app, 'templates'), { recursive: true });
  model = await startModel({ apiKey: KEY });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'img';
  example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  const config = parseConfig(example);
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: { OPENAI_API_KEY: KEY } } });
  runtime = startRuntime(
    { ...emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', { CLAWFLEET_WORKSPACE: join(app, '..', 'workspace') }), NODE_ENV: 'production' },
    [process.execPath, '--enable-source-maps', join(app, 'dist/main.mjs')],
  );
}, 60_000);

afterAll(async () => {
  await runtime?.kill('SIGKILL');
  await model?.close();
});

describe('the image’s bundle', () => {
  it('has no node_modules to lean on', () => {
    for (let dir = app; dir !== dirname(dir); dir = dirname(dir)) expect(existsSync(join(dir, 'node_modules')), dir).toBe(false);
  });

  it('starts, seeds the workspace from the template beside it, answers through the provider it loads on demand, and drains on SIGTERM', async () => {
    await runtime!.waitFor((l) => l.msg === 'ready', 30_000);
    expect(existsSync(join(app, '..', 'workspace', 'SOUL.md'))).toBe(true);
    const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'img.1', 'hello from the image');
    expect(reply).toMatchObject({ inReplyTo: 'img.1', text: 'echo: hello from the image' });
    expect(model.requests().at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(await runtime!.kill('SIGTERM')).toBe(0);
    expect(runtime!.output()).not.toContain(KEY);
  });
});
