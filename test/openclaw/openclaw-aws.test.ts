// runtime.kind "openclaw" over the AWS connection, as its task runs it: the runtime process
// on the emulator's SQS inbox and outbox and its Secrets Manager secret, the real, pinned
// OpenClaw as its managed gateway, the fake model behind it. A message on the inbox queue is
// answered by exactly one reply envelope on the outbox queue; the container health file is
// fresh while the gateway is still starting; the gateway's token is in no log line; and run
// as root on the image's Node 24, as the image runs it, the gateway runs as a user of its own
// that cannot read the runtime's environment — which no longer holds the task role's
// credentials URI ECS put there (the runtime re-executes itself without it).
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureOpenclaw, OPENCLAW_VERSION } from '../../local/openclaw-install.ts';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { awsTestEnv } from '../support/aws.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { processes } from '../support/process-tree.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { emulatorRuntimeEnv, sendToMainSession } from '../support/queue-turn.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ROOT = process.getuid?.() === 0;
/** A user with a passwd entry on any Debian (OpenClaw may ask for its own): the image's clawfleet-openclaw stands in. */
const GATEWAY_USER = { uid: 65534, gid: 65534 };
const KEY = 'sk-test-openclaw-aws-fran-0123456789abcdef';
const CREDENTIALS_URI = `/v2/credentials/${crypto.randomUUID()}`;

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
let model: FakeModel;
let fleet: ProvisionedFleet;
let config: FleetConfig;
let runtime: RuntimeProcess;
let root: string;
let healthBeforeReady: number | undefined;

const outbox = () => fleet.queues.fran!.outbox;

/** Every envelope on fran's outbox queue until `done` holds and then `settleMs` more, deleted as read. */
async function drainOutbox(done: (seen: Record<string, unknown>[]) => boolean, timeoutMs: number, settleMs = 3_000): Promise<Record<string, unknown>[]> {
  const seen: Record<string, unknown>[] = [];
  let doneAt: number | undefined;
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; ) {
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: outbox(), MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    for (const m of Messages) {
      seen.push(JSON.parse(m.Body!) as Record<string, unknown>);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: outbox(), ReceiptHandle: m.ReceiptHandle! }));
    }
    if (doneAt === undefined && done(seen)) doneAt = Date.now();
    if (doneAt !== undefined && Date.now() - doneAt >= settleMs) return seen;
  }
  throw new Error(`outbox not done in ${timeoutMs / 1000} s; saw ${JSON.stringify(seen).slice(0, 2000)}; runtime: ${runtime.output().slice(-3000)}`);
}

beforeAll(async () => {
  const install = ensureOpenclaw(undefined, (line) => console.log(`openclaw install: ${line}`));
  model = await startModel({
    responder: (r) => ({ text: JSON.stringify(r.body).includes('hello over sqs') ? 'echo: hello over sqs' : 'nothing to echo' }),
  });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'ocaws';
  example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  example.agents.list.find((a: { id: string }) => a.id === 'fran').runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };
  config = parseConfig(example);
  fleet = await provisionFleet(aws, config, {
    telegram: {},
    agents: { fran: { OPENAI_API_KEY: KEY }, grif: { OPENAI_API_KEY: 'sk-test-grif-not-fran-0123456789' } },
  });

  // As the image lays it out: the runtime's state root's (0711 in the openclaw stage, so the
  // gateway's user reaches its own directory in it), the workspace shared with the gateway's group.
  root = tempDir('cf-openclaw-aws-');
  chmodSync(root, 0o711);
  const workspace = join(root, 'workspace');
  const state = join(root, 'state');
  mkdirSync(workspace, { mode: 0o770 });
  mkdirSync(state, { mode: 0o711 });
  chmodSync(state, 0o711);
  if (ROOT) {
    chownSync(workspace, 0, GATEWAY_USER.gid);
    chmodSync(workspace, 0o2770);
  }
  runtime = startRuntime(
    {
      ...emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', {
        CLAWFLEET_WORKSPACE: workspace,
        CLAWFLEET_RUNTIME_STATE: state,
        CLAWFLEET_HEALTH_FILE: join(root, 'alive'),
        CLAWFLEET_OPENCLAW_NODE: install.node,
        CLAWFLEET_OPENCLAW_CLI: install.cli,
        CLAWFLEET_HEARTBEAT_SECONDS: '5',
        ...(ROOT ? { CLAWFLEET_OPENCLAW_UID: String(GATEWAY_USER.uid), CLAWFLEET_OPENCLAW_GID: String(GATEWAY_USER.gid) } : {}),
      }),
      // What ECS puts in every container's environment (the emulator's keys above sign the calls:
      // as in the SDK's own chain, keys in the environment come before the container's endpoint).
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: CREDENTIALS_URI,
    },
    // The image's Node 24 and the bundle, as the image runs them: Node 20 cannot re-execute itself without the URI.
    [install.node, '--enable-source-maps', join(process.cwd(), 'runtime-image', 'dist', 'main.mjs')],
  );
  // The health file appears long before the gateway is ready (~30 s).
  const health = join(root, 'alive');
  // Until it is there or the gateway is ready, however slowly a busy machine starts the runtime (10 s was once a guess).
  const ready = () => runtime.lines.some((l) => l.msg === 'ready');
  for (const deadline = Date.now() + 240_000; !existsSync(health) && !ready() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 50));
  if (existsSync(health) && !runtime.lines.some((l) => l.msg === 'ready')) healthBeforeReady = Number(readFileSync(health, 'utf8'));
  await runtime.waitFor((l) => l.msg === 'ready', 240_000);
}, 600_000);

afterAll(async () => {
  await runtime?.kill('SIGTERM');
  await model?.close();
});

describe('runtime.kind "openclaw" on the AWS connection (emulator queues), on OpenClaw ' + OPENCLAW_VERSION, () => {
  it('keeps the container health file fresh from before its gateway is ready', () => {
    expect(healthBeforeReady, 'the health file was written before the ready line').toBeDefined();
    expect(Date.now() - Number(readFileSync(join(root, 'alive'), 'utf8'))).toBeLessThan(15_000);
  });

  it('answers a message on its inbox queue with exactly one reply envelope on its outbox queue, announced as the openclaw kind', async () => {
    const id = 'ocaws.1';
    await sendToMainSession(sqs, fleet.queues.fran!.inbox, 'fran', id, 'hello over sqs');
    const seen = await drainOutbox((s) => s.some((e) => e.kind === 'reply' && e.inReplyTo === id), 180_000);
    const replies = seen.filter((e) => e.kind === 'reply');
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ agentId: 'fran', inReplyTo: id, id: `${id}.reply.0`, text: 'echo: hello over sqs' });
    expect(seen.find((e) => e.kind === 'heartbeat' && Array.isArray(e.capabilities))?.capabilities).toEqual(
      expect.arrayContaining(['runtime:openclaw', `openclaw-protocol:4`, expect.stringContaining(`openclaw:${OPENCLAW_VERSION}`)]),
    );
    // Through the gateway, with fran's own key from fran's own secret.
    const asked = model.requests().filter((r) => JSON.stringify(r.body).includes('hello over sqs'));
    expect(asked.length).toBeGreaterThan(0);
    for (const r of asked) expect(r.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it('writes the gateway’s token to no log line, and keeps OpenClaw’s state on the workspace', () => {
    const configPath = join(root, 'state', 'openclaw', 'openclaw.json');
    const token = (JSON.parse(readFileSync(configPath, 'utf8')) as { gateway: { auth: { token: string } } }).gateway.auth.token;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(runtime.output()).not.toContain(token);
    expect(runtime.output()).not.toContain(KEY);
    expect(existsSync(join(root, 'workspace', '.openclaw-state'))).toBe(true);
  });

  it.skipIf(!ROOT)(
    ROOT
      ? 'runs the gateway as a user of its own, which cannot read the runtime’s environment, which holds no credentials URI'
      : 'runs the gateway as a user of its own — SKIPPED: not running as root, which dropping to another user needs',
    () => {
      const runtimePid = runtime.child.pid!;
      const guard = processes().find((p) => p.ppid === runtimePid && p.command.includes('gateway'));
      const gateway = guard && processes().find((p) => p.ppid === guard.pid);
      expect(gateway, 'the gateway process under the runtime').toBeDefined();
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${gateway!.pid}/status`, 'utf8'))![1]);
      expect(uid).toBe(GATEWAY_USER.uid);
      // Its config (the keys, the token) is its own, 0600; the runtime's environ no longer holds the URI, and that user cannot read it anyway.
      const configPath = join(root, 'state', 'openclaw', 'openclaw.json');
      expect(statSync(configPath)).toMatchObject({ uid: GATEWAY_USER.uid });
      expect(statSync(configPath).mode & 0o777).toBe(0o600);
      const runtimeEnviron = readFileSync(`/proc/${runtimePid}/environ`, 'utf8');
      expect(runtimeEnviron).toContain('CLAWFLEET_AGENT_ID=fran');
      expect(runtimeEnviron).not.toContain(CREDENTIALS_URI);
      expect(readFileSync(`/proc/${gateway!.pid}/environ`, 'utf8')).not.toContain(CREDENTIALS_URI);
      const probe = spawnSync(process.execPath, ['-e', `process.stdout.write(require('fs').readFileSync('/proc/${runtimePid}/environ','utf8'))`], {
        uid: GATEWAY_USER.uid,
        gid: GATEWAY_USER.gid,
        encoding: 'utf8',
      });
      expect(probe.status).not.toBe(0);
      expect(probe.stderr).toMatch(/EACCES|permission denied/i);
      expect(probe.stdout).not.toContain(CREDENTIALS_URI);
    },
  );
});
