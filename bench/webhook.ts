// λ telegram-webhook's acknowledge latency and throughput: from the handler being called
// with a Function URL event to its 200 (the update durably queued: secret check, dedupe
// read, origin write, session write, SQS send, dedupe write, activity write), against MiniStack, and the
// same core over in-memory adapters for the handler's own share. Also CPU time per request,
// which bounds requests per second on one core (Lambda gives a function at most that).
// Uses AWS_ENDPOINT_URL if set, else starts MiniStack from .cache/ministack-venv (run
// `npm test` once to install it). Handler log lines go to a counting sink, not the terminal.
//   npx tsx bench/webhook.ts [requests]
import { emulator } from './emulator.ts';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InMemoryAgentQueues } from '../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemoryPairingStore, InMemorySessionRegistry } from '../shared/adapters/memory/in-memory-state.ts';
import { parseConfig } from '../shared/config/load.ts';
import { handleTelegramWebhook } from '../shared/control/telegram-webhook.ts';
import { createLogger } from '../shared/log.ts';
import { webhookSecretFor } from '../shared/telegram/webhook-secret.ts';
import type { FunctionUrlEvent } from '../functions/function-url.ts';
import { start as startTelegram } from '../test/support/fake-telegram.ts';
import { textUpdate } from '../test/support/telegram-updates.ts';
import { provisionFleet } from '../test/support/provision.ts';

const REQUESTS = Number(process.argv[2] ?? 1_000);
const CONCURRENCY = 16;
const root = fileURLToPath(new URL('..', import.meta.url));
const TOKEN = '3000002:AAbench-fran-token-0000000000000000';
const SENDERS = Array.from({ length: 50 }, (_, i) => 9_000 + i);

type Call = (body: string) => Promise<number>;

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Sequential calls: the acknowledge latency of one update at a time. */
async function latency(call: Call, n: number, firstId: number): Promise<{ p50: number; p90: number; p99: number; max: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const from = SENDERS[i % SENDERS.length]!;
    const body = JSON.stringify(textUpdate({ updateId: firstId + i, chatId: from, fromId: from, text: `bench ${i}` }));
    const t = performance.now();
    const status = await call(body);
    samples.push(performance.now() - t);
    if (status !== 200) throw new Error(`update ${firstId + i}: status ${status}`);
  }
  samples.sort((a, b) => a - b);
  return { p50: quantile(samples, 0.5), p90: quantile(samples, 0.9), p99: quantile(samples, 0.99), max: samples.at(-1)! };
}

/** `concurrency` callers at once: requests per second, and this process's CPU time per request. */
async function throughput(call: Call, n: number, firstId: number, concurrency: number): Promise<{ rps: number; cpuMsPerRequest: number }> {
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const from = SENDERS[i % SENDERS.length]!;
        const status = await call(JSON.stringify(textUpdate({ updateId: firstId + i, chatId: from, fromId: from, text: `bench ${i}` })));
        if (status !== 200) throw new Error(`update ${firstId + i}: status ${status}`);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { rps: n / seconds, cpuMsPerRequest: (cpu.user + cpu.system) / 1000 / n };
}

const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;

async function main(): Promise<void> {
  const emu = await emulator();
  const tg = await startTelegram({ bots: [{ token: TOKEN }] });
  const raw = JSON.parse(readFileSync(join(root, 'clawfleet.json'), 'utf8'));
  raw.fleet = 'benchwh';
  raw.channels.telegram.apiRoot = tg.url;
  raw.channels.telegram.allowFrom = SENDERS.map(String);
  raw.session = { dmScope: 'per-peer' };
  const config = parseConfig(raw);
  const aws = { endpoint: emu.endpoint, region: 'us-east-1', credentials: { accessKeyId: '210987654321', secretAccessKey: 'test' }, accountId: '210987654321' };
  await provisionFleet(
    aws,
    config,
    { telegram: { FRAN_BOT_TOKEN: TOKEN, JERRY_BOT_TOKEN: TOKEN, GRIF_BOT_TOKEN: TOKEN, RAY_BOT_TOKEN: TOKEN }, agents: {} },
    { ecs: true },
  );

  // Log lines are written as on Lambda, but to a sink: the figures are the handler's, not the terminal's.
  let logLines = 0;
  const realWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: unknown) => (logLines++, true)) as typeof process.stdout.write;
  const print = (s: string) => realWrite(`${s}\n`);

  Object.assign(process.env, {
    CLAWFLEET_CONFIG: JSON.stringify(config),
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_REGION: aws.region,
    AWS_ENDPOINT_URL: emu.endpoint,
  });
  const { handler } = await import('../functions/telegram-webhook.ts');
  const secret = webhookSecretFor(TOKEN);
  const viaLambda: Call = async (body) => {
    const event: FunctionUrlEvent = {
      rawPath: '/telegram/fran',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
      body,
      requestContext: { http: { method: 'POST' } },
    };
    return (await handler(event)).statusCode;
  };

  const memDeps = {
    config,
    webhookSecret: async () => secret,
    queues: new InMemoryAgentQueues(),
    dedupe: new InMemoryInboundDedupe(Date.now),
    sessions: new InMemorySessionRegistry(),
    origins: new InMemoryInboundOrigins(Date.now),
    pairings: new InMemoryPairingStore(),
    botIdentity: async () => ({ id: 3000002, username: 'fran_bot' }),
    channel: async () => ({ maxTextLength: 4096, sendText: async () => {}, sendTyping: async () => {} }),
    newPairingCode: () => 'CODE',
    clock: { now: Date.now },
    log: createLogger({ component: 'telegram-webhook' }),
  };
  const inMemory: Call = async (body) => (await handleTelegramWebhook({ accountId: 'fran', secretToken: secret, body }, memDeps)).status;

  // Warm-up: module init, SDK connections, the secret cache, the agent woken once.
  await latency(viaLambda, 50, 1);
  await latency(inMemory, 200, 1);

  const rows: string[] = [];
  const mLat = await latency(inMemory, REQUESTS, 100_000);
  const mTp = await throughput(inMemory, REQUESTS * 5, 200_000, CONCURRENCY);
  const eLat = await latency(viaLambda, REQUESTS, 300_000);
  const eTp1 = await throughput(viaLambda, REQUESTS, 400_000, 1);
  const eTp = await throughput(viaLambda, REQUESTS, 500_000, CONCURRENCY);
  rows.push(
    `| core, in-memory adapters | ${fmt(mLat.p50)} | ${fmt(mLat.p90)} | ${fmt(mLat.p99)} | — | ${Math.round(mTp.rps)} | ${mTp.cpuMsPerRequest.toFixed(3)} ms |`,
  );
  rows.push(
    `| λ handler, MiniStack (SQS, DynamoDB, Secrets Manager cached) | ${fmt(eLat.p50)} | ${fmt(eLat.p90)} | ${fmt(eLat.p99)} | ${Math.round(eTp1.rps)} | ${Math.round(eTp.rps)} | ${eTp.cpuMsPerRequest.toFixed(2)} ms |`,
  );

  print(
    `\nλ telegram-webhook, ${REQUESTS} updates per measurement (${REQUESTS * 5} for in-memory throughput), ${SENDERS.length} senders, ${cpus().length} × ${cpus()[0]?.model}, Node ${process.version}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}, ${new Date().toISOString().slice(0, 10)}\n`,
  );
  print(`| Path | ack p50 | p90 | p99 | req/s, 1 at a time | req/s, ${CONCURRENCY} in flight | handler CPU per request |`);
  print('| --- | --- | --- | --- | --- | --- | --- |');
  for (const row of rows) print(row);
  print(
    `\nOne core's ceiling for the handler (1000 / CPU ms per request): ${Math.round(1000 / eTp.cpuMsPerRequest)} req/s with the emulator's wire calls, ${Math.round(1000 / mTp.cpuMsPerRequest)} req/s for the core alone. Log lines written: ${logLines}.`,
  );

  process.stdout.write = realWrite as typeof process.stdout.write;
  await tg.close();
  if (emu.proc) process.kill(-emu.proc.pid!, 'SIGTERM');
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
