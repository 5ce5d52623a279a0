// Orchestration overhead of one turn: from the inbound message sent to the agent's SQS
// queue to its reply on the outbox (the reply's SentTimestamp), through the real runtime
// process and the AWS emulator, with an instant model — the offline model (in-process)
// and the fake OpenAI server on loopback (real HTTP, SSE and the provider adapter).
// Uses AWS_ENDPOINT_URL if set, else starts MiniStack from .cache/ministack-venv (run
// `npm test` once to install it). Then the same with SQS on ElasticMQ (bench/elasticmq.ts,
// installed on demand; rows skipped if it cannot be) and the rest on MiniStack: MiniStack
// re-checks a waiting long poll every 100 ms, ElasticMQ answers it when a message arrives.
//   npx tsx bench/runtime-turn.ts [turns]
import { emulator } from './emulator.ts';
import { elasticmq, ELASTICMQ_VERSION } from './elasticmq.ts';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateQueueCommand, ReceiveMessageCommand, DeleteMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { parseConfig } from '../shared/config/load.ts';
import { runtimeConfigFor } from '../shared/config/resolve.ts';
import { provisionFleet, type AgentQueueUrls } from '../test/support/provision.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { startRuntime } from '../test/support/runtime-process.ts';
import { start as startModel } from '../test/support/fake-model.ts';
import { InMemoryFifoQueue, InMemoryOutbox } from '../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryDeadLetters } from '../shared/adapters/memory/in-memory-state.ts';
import { memoryLogger } from '../shared/log.ts';
import { systemClock } from '../shared/ports.ts';
import { offlineModel } from '../runtime-image/src/model/offline-model.ts';
import { builtinTools } from '../runtime-image/src/kinds/native.ts';
import { readRuntimeEnv } from '../runtime-image/src/env.ts';
import { secretMasker } from '../runtime-image/src/secrets/secret-mask.ts';
import { TranscriptStore } from '../runtime-image/src/session/transcript-store.ts';
import { runTurn } from '../runtime-image/src/turn/turn.ts';
import { defaultTurnLimits } from '../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../runtime-image/src/turn/turn-request.ts';
import { Worker } from '../runtime-image/src/worker/worker.ts';
import { seedWorkspace } from '../runtime-image/src/workspace/bootstrap.ts';
import { PROTOCOL_VERSION } from '../shared/protocol/envelopes.ts';

/** The benchmark's `i`th message to fran, from the local channel, as the queue carries it. */
const turnMessage = (id: string, i: number, ts: number) =>
  JSON.stringify({
    v: PROTOCOL_VERSION,
    kind: 'message',
    id,
    agentId: 'fran',
    sessionKey: 'agent:fran:main',
    ts,
    text: `turn ${i}`,
    from: { channel: 'local' },
  });

const TURNS = Number(process.argv[2] ?? 40);
const WARMUP = 5;
const root = fileURLToPath(new URL('..', import.meta.url));

/** The runtime's own share: the same worker and turn code over in-memory queues (no queue service). */
async function inMemory(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'cf-bench-mem-'));
  seedWorkspace(workspace);
  const cfg = runtimeConfigFor(parseConfig(JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'))), 'fran');
  // The token and secrets come on a pipe; here the "pipe" is a function that returns them.
  const env = await readRuntimeEnv(
    {
      CLAWFLEET_AGENT_ID: 'fran',
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(cfg),
      CLAWFLEET_CONTROL_URL: 'http://127.0.0.1:1',
      CLAWFLEET_SECRETS_FD: '3',
      CLAWFLEET_WORKSPACE: workspace,
    },
    async () => JSON.stringify({ token: 'x'.repeat(16), secrets: {} }),
  );
  const inbox = new InMemoryFifoQueue();
  const replies = new Map<string, number>();
  const outbox = new InMemoryOutbox();
  const tools = builtinTools(env, systemClock);
  const deps = {
    agentId: 'fran',
    agentName: 'Fran',
    workspace,
    transcripts: new TranscriptStore(workspace),
    model: offlineModel('bench'),
    outbox: {
      send: async (e: Parameters<InMemoryOutbox['send']>[0]) => {
        if (e.kind === 'reply') replies.set(e.inReplyTo, performance.now());
        await outbox.send(e);
      },
    },
    clock: systemClock,
    log: memoryLogger(),
    tools: () => tools,
    masker: secretMasker([]),
    limits: defaultTurnLimits,
  };
  const w = new Worker({
    agentId: 'fran',
    inbox,
    outbox: deps.outbox,
    deadLetters: new InMemoryDeadLetters(),
    clock: systemClock,
    log: deps.log,
    visibilitySeconds: 60,
    waitSeconds: 1,
    handle: (e, signal) => runTurn(turnRequestFor(e), deps, signal),
    control: async () => {},
  });
  w.start();
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + TURNS; i++) {
    const id = `mem.${i}`;
    const sent = performance.now();
    inbox.push(turnMessage(id, i, Date.now()), 'agent:fran:main', id);
    while (!replies.has(id)) await new Promise((r) => setImmediate(r));
    if (i >= WARMUP) samples.push(replies.get(id)! - sent);
    while (inbox.depth > 0) await new Promise((r) => setTimeout(r, 1));
  }
  await w.stop(1000);
  samples.sort((a, b) => a - b);
  console.log(
    `${'runtime code only (in-memory queues, offline)'.padEnd(44)} median ${samples[samples.length >> 1]!.toFixed(1)} ms   p90 ${samples[Math.floor(samples.length * 0.9)]!.toFixed(1)} ms   (${TURNS} turns, the session growing)`,
  );
}

await inMemory();
const emu = await emulator();
const aws = { endpoint: emu.endpoint, region: 'us-east-1', credentials: { accessKeyId: '123456789012', secretAccessKey: 'test' }, accountId: '123456789012' };
const sqs = new SQSClient(aws);
const model = await startModel({ apiKey: 'sk-bench-0123456789abcdef' });
const example = JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'));
example.fleet = 'bench';
example.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
const config = parseConfig(example);
const secrets = { telegram: {}, agents: { fran: { OPENAI_API_KEY: 'sk-bench-0123456789abcdef' } } };
const fleet = await provisionFleet(aws, config, secrets);

/** Where a row's queues live: the SQS client the bench sends and reads with, and the fleet whose queues they are. */
interface SqsTarget {
  sqs: SQSClient;
  config: FleetConfig;
  q: AgentQueueUrls;
}
const ministack: SqsTarget = { sqs, config, q: fleet.queues.fran! };

async function measure(label: string, extraEnv: Record<string, string>, { sqs, config, q }: SqsTarget = ministack): Promise<void> {
  const runtime = startRuntime({
    CLAWFLEET_AGENT_ID: 'fran',
    CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(config, 'fran')),
    CLAWFLEET_INBOX_URL: q.inbox,
    CLAWFLEET_OUTBOX_URL: q.outbox,
    CLAWFLEET_DLQ_URL: q.inboxDlq,
    CLAWFLEET_WORKSPACE: mkdtempSync(join(tmpdir(), 'cf-bench-ws-')),
    CLAWFLEET_HEARTBEAT_SECONDS: '0',
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    ...extraEnv,
  });
  await runtime.waitFor((l) => l.msg === 'ready');
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + TURNS; i++) {
    // A pause between turns, as between a person's messages: the previous turn's
    // bookkeeping (status, delete) is done before the next message arrives.
    await new Promise((r) => setTimeout(r, 150));
    const id = `bench.${label.length}.${i}`;
    const sent = Date.now();
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: q.inbox,
        MessageGroupId: 'agent:fran:main',
        MessageDeduplicationId: id,
        MessageBody: turnMessage(id, i, sent),
      }),
    );
    const deadline = Date.now() + 30_000;
    for (let found = false; !found; ) {
      if (Date.now() > deadline) throw new Error(`no reply to ${id} within 30 s; the runtime said:\n${runtime.output().slice(-3000)}`);
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: q.outbox, MaxNumberOfMessages: 10, WaitTimeSeconds: 5, MessageSystemAttributeNames: ['SentTimestamp'] }),
      );
      for (const m of Messages) {
        const e = JSON.parse(m.Body!) as { kind: string; inReplyTo?: string };
        if (e.kind === 'reply' && e.inReplyTo === id) {
          found = true;
          if (i >= WARMUP) samples.push(Number(m.Attributes!.SentTimestamp) - sent);
        }
        await sqs.send(new DeleteMessageCommand({ QueueUrl: q.outbox, ReceiptHandle: m.ReceiptHandle! }));
      }
    }
  }
  await runtime.kill('SIGTERM');
  samples.sort((a, b) => a - b);
  const pct = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  const received = runtime.lines.filter((l) => l.msg === 'turn answered').length;
  void received;
  console.log(`${label.padEnd(44)} median ${pct(0.5)} ms   p90 ${pct(0.9)} ms   min ${samples[0]} ms   max ${samples.at(-1)} ms   (${TURNS} turns)`);
}

console.log(`Inbound message → reply on the outbox, one session, sequential turns, MiniStack at ${aws.endpoint}, Node ${process.version}`);
await measure('offline model (in-process, instant)', { CLAWFLEET_OFFLINE_MODEL: 'bench' });
await measure('fake OpenAI server on loopback (streamed)', {});
await measure('offline model, runtime short-polling', { CLAWFLEET_OFFLINE_MODEL: 'bench', CLAWFLEET_WAIT_SECONDS: '0' });

/** JIT-compiles ElasticMQ's request path first, so its rows measure a warm JVM (MiniStack is CPython: nothing to warm). */
async function warmUp(client: SQSClient): Promise<void> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: 'bench-warmup.fifo', Attributes: { FifoQueue: 'true' } }));
  for (let i = 0; i < 300; i++) {
    await client.send(new SendMessageCommand({ QueueUrl, MessageGroupId: 'g', MessageDeduplicationId: `w${i}`, MessageBody: 'warm-up' }));
    const { Messages = [] } = await client.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    for (const m of Messages) await client.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle! }));
  }
}

const emq = await elasticmq({ region: aws.region, accountId: aws.accountId }).catch((e: Error) => {
  console.log(`ElasticMQ rows skipped: ${e.message}`);
  return undefined;
});
if (emq) {
  // A fleet of its own name: its secret and tables go to MiniStack beside the first one's, its queues to ElasticMQ.
  const emqConfig = parseConfig({ ...example, fleet: 'bench-emq' });
  const emqFleet = await provisionFleet(aws, emqConfig, secrets, { sqsEndpoint: emq.endpoint });
  const target: SqsTarget = { sqs: new SQSClient({ ...aws, endpoint: emq.endpoint }), config: emqConfig, q: emqFleet.queues.fran! };
  await warmUp(target.sqs);
  console.log(`SQS on ElasticMQ ${ELASTICMQ_VERSION} at ${emq.endpoint} (AWS_ENDPOINT_URL_SQS), Secrets Manager on MiniStack`);
  const onElasticmq = { CLAWFLEET_OFFLINE_MODEL: 'bench', AWS_ENDPOINT_URL_SQS: emq.endpoint };
  await measure('ElasticMQ for SQS, runtime long-polling (20 s), offline model', onElasticmq, target);
  await measure('ElasticMQ for SQS, short-polling', { ...onElasticmq, CLAWFLEET_WAIT_SECONDS: '0' }, target);
  emq.stop();
}
await model.close();
if (emu.proc) process.kill(-emu.proc.pid!, 'SIGTERM');
