// The image's app on the image's Node: built by the Dockerfile's own build-stage commands on
// Node 24 (bundle, compile cache, template) and started with its final stage's CMD and ENV,
// against the emulator. A start must read every module it loads from the compile cache the
// build made, the lazily loaded ones (the AWS adapters, the model provider) included; only
// the entry is compiled. Node 24 is the one the integration project's setup installs into
// .cache/ (test/support/install-node24.ts).
import { askOnQueues, emulatorRuntimeEnv } from '../support/queue-turn.ts';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildImageApp, type ImageApp } from '../../bench/runtime-harness.ts';
import { NODE24_VERSION } from '../../local/openclaw-install.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { tempDir } from '../support/temp-dirs.ts';

const NODE24 = inject('node24');

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const KEY = 'sk-test-node24-fran-0123456789abcdef';
let model: FakeModel;
let fleet: ProvisionedFleet;
let image: ImageApp;
let runtime: RuntimeProcess | undefined;
let workspace: string;

describe(`the image’s app on Node ${NODE24_VERSION}`, () => {
  beforeAll(async () => {
    const dir = tempDir('cf-image24-');
    image = buildImageApp(process.cwd(), join(dir, 'app'), NODE24);
    model = await startModel({ apiKey: KEY });
    const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    example.fleet = 'img24';
    example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
    // Exec denied: the sandbox is another test's business (container-credentials.test.ts).
    example.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { deny: ['exec'] };
    const config = parseConfig(example);
    fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: { OPENAI_API_KEY: KEY } } });
    runtime = startRuntime(
      {
        ...image.env,
        ...emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', {
          CLAWFLEET_WORKSPACE: (workspace = join(dir, 'workspace')),
          CLAWFLEET_RUNTIME_STATE: join(dir, 'state'),
          CLAWFLEET_HEALTH_FILE: join(dir, 'alive'),
        }),
        // Node says, on stderr, whether each module's code came from the cache.
        NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
      },
      [NODE24, ...image.nodeArgs],
    );
  }, 90_000);

  afterAll(async () => {
    await runtime?.kill('SIGKILL');
    await model?.close();
  });

  it('builds a compile cache that holds every chunk, for the path the image runs from', () => {
    const cache = image.env.NODE_COMPILE_CACHE!;
    expect(cache).toBe(join(image.app, 'compile-cache'));
    const chunks = readdirSync(join(image.app, 'dist', 'chunks')).filter((f) => f.endsWith('.mjs'));
    const entries = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    expect(entries.length).toBeGreaterThanOrEqual(chunks.length);
  });

  it('starts as the CMD says, answers a message, and compiles nothing but its entry', async () => {
    expect(image.nodeArgs).toEqual(['--enable-source-maps', '--max-semi-space-size=1', join(image.app, 'dist/main.mjs')]);
    await runtime!.waitFor((l) => l.msg === 'ready', 30_000);
    // Seeded from /app/templates, found from the lazily loaded chunk in dist/chunks/ too.
    expect(existsSync(join(workspace, 'SOUL.md'))).toBe(true);
    const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'img24.1', 'hello from Node 24');
    expect(reply).toMatchObject({ inReplyTo: 'img24.1', text: 'echo: hello from Node 24' });
    expect(await runtime!.kill('SIGTERM')).toBe(0);

    const said = runtime!
      .output()
      .split('\n')
      .filter((l) => l.startsWith('[compile cache]'));
    const fromCache = said.filter((l) => /was accepted/.test(l)).map((l) => /file:\/\/(\S+)/.exec(l)![1]!);
    const compiled = said.filter((l) => /was not initialized|rejected|failed/.test(l));
    // The AWS adapters and the model provider, loaded after main.mjs, came from the cache too.
    expect(fromCache.some((f) => /chunks\/connect-aws-/.test(f))).toBe(true);
    expect(fromCache.some((f) => /chunks\/openai-completions-/.test(f))).toBe(true);
    expect(compiled).toEqual([expect.stringContaining(`${join(image.app, 'dist/main.mjs')} was not initialized`)]);
    expect(runtime!.output()).not.toContain(KEY);
  });
});
