// An external-mode OpenClaw agent on AWS, in the emulator: its runtime (a real process with
// the AWS connection) waits for the device key its secret lacks, naming it; `clawfleet
// openclaw device --aws` makes the key in Secrets Manager and prints the device id; the
// runtime then pairs as that device with a gateway on 127.0.0.1 (the fake, which checks the
// signature itself), answers one message into its outbox queue, and a second runtime start
// with the same secret is the same device, already approved. No key is ever in a log line.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentSecretName } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { type MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { OPENCLAW_DEVICE_KEY } from '../../shared/secrets/openclaw-device-key.ts';
import { awsTestEnv } from '../support/aws.ts';
import { startFakeGateway, type FakeGateway } from '../support/fake-openclaw-gateway.ts';
import { provisionFleet, type ProvisionedFleet, awsEnvVars, queueRuntimeEnv } from '../support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { captureIO } from '../unit/cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franMessage } from '../support/fran-turn.ts';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const TOKEN = 'gw-token-external-aws-0123456789abcdef';
const dir = tempDir('cf-ext-aws-');
let gw: FakeGateway;
let fleet: ProvisionedFleet;
let config: FleetConfig;
const runtimes: RuntimeProcess[] = [];
/** Every envelope taken from fran's outbox so far. */
const outbox: Record<string, unknown>[] = [];

const awsVars = awsEnvVars(aws);

function launch(workspace: string): RuntimeProcess {
  const r = startRuntime({
    ...queueRuntimeEnv(aws, fleet, { config, agentId: 'fran', workspace, visibilitySeconds: 6, drainSeconds: 5 }),
    CLAWFLEET_HEARTBEAT_SECONDS: '1',
  });
  runtimes.push(r);
  return r;
}

/** Reads fran's outbox until `want` holds for an envelope taken so far. */
async function outboxUntil(want: (e: Record<string, unknown>) => boolean, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const hit = outbox.find(want);
    if (hit) return hit;
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: fleet.queues.fran!.outbox, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    for (const m of Messages) {
      outbox.push(JSON.parse(m.Body!));
      await sqs.send(new DeleteMessageCommand({ QueueUrl: fleet.queues.fran!.outbox, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
  throw new Error(`timed out; outbox so far: ${JSON.stringify(outbox).slice(0, 2000)}`);
}

async function until(what: string, probe: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Ann's message `text` to fran, under the envelope id `id`. */
const message = (id: string, text: string): MessageEnvelope => ({ ...franMessage(0, text), id });

beforeAll(async () => {
  gw = await startFakeGateway({ token: TOKEN });
  const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  raw.fleet = 'ocx';
  const fran = raw.agents.list.find((a: { id: string }) => a.id === 'fran');
  fran.runtime = {
    kind: 'openclaw',
    cpus: 0.25,
    memoryMb: 512,
    openclaw: { mode: 'external', url: gw.url, tokenSecret: 'OPENCLAW_GATEWAY_TOKEN', agent: 'main' },
  };
  config = parseConfig(raw);
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(raw));
  // The token is there; the device key is not yet.
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: { OPENCLAW_GATEWAY_TOKEN: TOKEN } } });
});

afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.kill('SIGKILL')));
  await gw?.close();
});

describe('an external-mode OpenClaw agent on AWS', () => {
  it('waits for its device key, pairs as the device the CLI made, answers, and is the same device when it starts again', async () => {
    const workspace = tempDir('cf-ext-fran-');
    const first = launch(workspace);

    // Without the key it takes no work and says which value it waits for (never a value).
    const waiting = await outboxUntil((e) => e.kind === 'heartbeat' && JSON.stringify(e.warnings ?? []).includes(OPENCLAW_DEVICE_KEY));
    expect((waiting.warnings as string[]).join('\n')).toMatch(
      /waiting for secret "clawfleet\/ocx\/agents\/fran": it lacks OPENCLAW_DEVICE_KEY \(the agent's OpenClaw device key/,
    );
    expect(gw.devices).toEqual([]);

    // The CLI step: the key into the agent's secret in Secrets Manager, the device id printed.
    const io = captureIO({ cwd: dir, env: awsVars });
    expect(await runCli(['openclaw', 'device', '--agent', 'fran', '--aws', '--no-restart'], io)).toBe(0);
    const deviceId = /device ([0-9a-f]{64})/.exec(io.outText())?.[1];
    expect(deviceId).toBeDefined();
    const secret = JSON.parse(
      (await new SecretsManagerClient(aws).send(new GetSecretValueCommand({ SecretId: agentSecretName('ocx', 'fran') }))).SecretString!,
    ) as Record<string, string>;
    expect(secret.OPENCLAW_GATEWAY_TOKEN).toBe(TOKEN);
    const body = secret[OPENCLAW_DEVICE_KEY]!.split('\n').find((l) => l && !l.startsWith('-----'))!;
    expect(io.outText() + io.errText()).not.toContain(body);

    // The runtime re-reads its secret, then asks the gateway as that device: pairing pending.
    await until('a pairing request', () => gw.pending.length > 0);
    expect(gw.devices.every((d) => d === deviceId)).toBe(true);
    gw.paired.add(deviceId!);
    await first.waitFor((l) => l.msg === 'ready', 30_000);
    expect(first.lines.find((l) => l.msg === 'connected to the OpenClaw gateway')).toMatchObject({ deviceId });

    await sqs.send(
      new SendMessageCommand({
        QueueUrl: fleet.queues.fran!.inbox,
        MessageBody: JSON.stringify(message('ocx.1', 'hello gateway')),
        MessageGroupId: 'agent:fran:main',
        MessageDeduplicationId: 'ocx.1',
      }),
    );
    const reply = await outboxUntil((e) => e.kind === 'reply');
    expect(reply).toMatchObject({ inReplyTo: 'ocx.1', text: 'echo: hello gateway' });
    expect(outbox.filter((e) => e.kind === 'reply')).toHaveLength(1);
    expect(await first.kill('SIGTERM')).toBe(0);

    // A new task: a fresh workspace and runtime state, the same secret — the same device, already approved.
    const pendingBefore = gw.pending.length;
    const connectsBefore = gw.connects;
    const second = launch(tempDir('cf-ext-fran-2-'));
    await second.waitFor((l) => l.msg === 'ready', 30_000);
    expect(gw.connects).toBe(connectsBefore + 1);
    expect(gw.pending.length).toBe(pendingBefore);
    expect(new Set(gw.devices)).toEqual(new Set([deviceId]));
    expect(gw.badSignatures).toBe(0);
    await second.kill('SIGTERM');

    // The key is in no log line of either runtime.
    for (const r of [first, second]) expect(r.output()).not.toContain(body);
  });
});
