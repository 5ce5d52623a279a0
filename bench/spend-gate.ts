// What a budget adds to each model call (#31): the runtime's hold before the call and its
// settle after, through each place a ledger lives — the local runtime channel (the local
// server and its SQLite file, in process) and DynamoDB (the emulator, MiniStack) — alone and
// with four sessions racing the same agent's ledger. Prints the median and p90 per call.
//   npx tsx bench/spend-gate.ts [--calls 200]
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LocalControlPlane } from '../local/sqlite-control-plane.ts';
import { createLocalServer } from '../local/server.ts';
import { StorageWatch } from '../local/storage-watch.ts';
import { dynamoDocumentClient } from '../shared/adapters/aws/clients.ts';
import { DynamoSpendLedger } from '../shared/adapters/aws/dynamo-spend.ts';
import { HttpRuntimeChannel } from '../shared/adapters/local/http-runtime-channel.ts';
import { InMemorySecretStore } from '../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../shared/config/load.ts';
import { memoryLogger } from '../shared/log.ts';
import { systemClock, type SpendLedger } from '../shared/ports.ts';
import { emulator } from './emulator.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '200' } } });
const CALLS = Number(values.calls);
const caps = { dayMicros: 1e12 };

/** `calls` holds and settles, `sessions` at a time; the time of each pair, in ms. */
async function measure(ledger: SpendLedger, sessions: number, tag: string): Promise<number[]> {
  const times: number[] = [];
  let n = 0;
  await Promise.all(
    Array.from({ length: sessions }, async () => {
      while (n < CALLS) {
        const callId = `${tag}.${++n}`;
        const t = performance.now();
        const held = await ledger.reserve('bench', { callId, micros: 20_000, at: Date.now(), caps, holdMs: 600_000 });
        if (held.kind !== 'held') throw new Error(`not held: ${held.kind}`);
        await ledger.settle('bench', { callId, month: held.month, micros: 2_400, at: Date.now() });
        times.push(performance.now() - t);
      }
    }),
  );
  return times.sort((a, b) => a - b);
}

const at = (xs: number[], q: number) => xs[Math.min(xs.length - 1, Math.floor(q * xs.length))]!.toFixed(1);
const row = (where: string, sessions: number, xs: number[]) =>
  console.log(`${where.padEnd(34)} ${String(sessions).padStart(8)} ${at(xs, 0.5).padStart(8)} ${at(xs, 0.9).padStart(8)}`);

async function main(): Promise<void> {
  console.log(`spend gate: ${CALLS} model calls' hold + settle per row; load average ${loadavg()[0]!.toFixed(1)}`);
  console.log(`${'ledger'.padEnd(34)} ${'sessions'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)}`);

  // Local: the runtime's own channel to the local control plane, whose SQLite file keeps the ledger.
  const config = parseConfig({
    fleet: 'bench',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'bench', budget: { dailyUsd: 1e6 } }] },
    models: { providers: { openai: { api: 'openai-completions' } } },
  });
  const log = memoryLogger();
  const cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new InMemorySecretStore(), systemClock, log);
  const token = 't'.repeat(48);
  const server = createLocalServer({
    cp,
    log,
    storage: new StorageWatch(log, systemClock),
    adminToken: 'a'.repeat(64),
    dashboardToken: 'd'.repeat(64),
    agentOfToken: (t) => (t === token ? 'bench' : undefined),
    agents: () => [],
    status: () => ({ fleet: 'bench', where: 'bench', agents: [] }),
    act: async () => 'running',
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const channel = new HttpRuntimeChannel(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, token);
  for (const sessions of [1, 4]) row('local (runtime channel → SQLite)', sessions, await measure(channel, sessions, `local${sessions}`));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));

  // AWS: the runtime's own items of the spend table, a write conditional on the version read.
  const emu = await emulator();
  try {
    const aws = { endpoint: emu.endpoint, region: 'us-east-1', credentials: { accessKeyId: '123456789012', secretAccessKey: 'test' } };
    await new DynamoDBClient(aws).send(
      new CreateTableCommand({
        TableName: 'bench-spend',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
    const dynamo = new DynamoSpendLedger(dynamoDocumentClient(aws), 'bench-spend');
    for (const sessions of [1, 4]) row('DynamoDB (MiniStack)', sessions, await measure(dynamo, sessions, `aws${sessions}`));
  } finally {
    if (emu.proc?.pid) process.kill(-emu.proc.pid);
  }
}

await main();
