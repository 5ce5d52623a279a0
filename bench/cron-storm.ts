// Cron storm: N isolated cron jobs (default 1,000) over the example fleet's four agents, all
// due at the same minute, fired as EventBridge Scheduler fires them — λ cron-dispatch's
// handler (in-process, its environment set as on Lambda) invoked with each schedule's input,
// a bounded number in flight to model Lambda's concurrency — against MiniStack. Measures
// the time until every envelope is on its agent's SQS FIFO queue, then until every job's
// answer has reached its Telegram chat: the four real runtime processes (offline model,
// instant) answer, λ outbox (driven as its SQS event source would) delivers to the fake
// Bot API. Two runs on one fleet: agents asleep during the storm (the backlog is queued,
// then the runtimes start), and agents awake (runtimes consuming while the storm lands, the
// same jobs firing a day later). Then the same storm in local mode (SQLite scheduler, one
// cron tick). Uses AWS_ENDPOINT_URL if set, else starts MiniStack from .cache/ministack-venv
// (run `npm test` once to install it). Handler log lines go to a counting sink.
// CLAWFLEET_MAX_SESSIONS, if set, is passed to the runtimes (their session slots; default 4).
//   npx tsx bench/cron-storm.ts [jobs]
import { GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdtempSync, readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeConfigFor } from '../shared/config/resolve.ts';
import type { CronTrigger } from '../shared/cron/trigger.ts';
import { setHandlerEnv, type AwsTestEnv } from '../test/support/aws.ts';
import { start as startTelegram, type BotApiCall, type FakeTelegram } from '../test/support/fake-telegram.ts';
import { startOutboxPump } from '../test/support/outbox-pump.ts';
import { provisionFleet, type AgentQueueUrls } from '../test/support/provision.ts';
import { startRuntime, type RuntimeProcess } from '../test/support/runtime-process.ts';
import { firings, jobOfChat, jobsArg, quantile, stormConfig, utcMinute } from './cron-storm-fleet.ts';
import { localStorm } from './cron-storm-local.ts';
import { emulator } from './emulator.ts';

const JOBS = jobsArg(process.argv[2], 1_000);
/** Invocations in flight at once: Lambda's concurrency for the burst (an assumption, see docs/benchmarks.md). */
const DISPATCH_CONCURRENCY = 50;
/** Receivers per outbox queue: Lambda's SQS event source starts with five pollers. */
const OUTBOX_POLLERS = 5;
/** Scheduler retries a failed invocation; so does the bench, after this pause. */
const RETRY_MS = 1_000;
/** The runtimes' session slots: the runtime's default unless CLAWFLEET_MAX_SESSIONS is set for the bench. */
const SESSIONS = Number(process.env.CLAWFLEET_MAX_SESSIONS ?? 4);
if (!Number.isInteger(SESSIONS) || SESSIONS < 1 || SESSIONS > 64)
  throw new Error(`CLAWFLEET_MAX_SESSIONS must be a whole number from 1 to 64, got ${JSON.stringify(process.env.CLAWFLEET_MAX_SESSIONS)}`);
const ANSWER_TIMEOUT_MS = Math.max(180_000, JOBS * 600);
const ACCOUNT = '271828182845';
const TOKENS: Record<string, string> = {
  jerry: '4000001:AAstorm-jerry-token-0000000000000',
  fran: '4000002:AAstorm-fran-token-00000000000000',
  grif: '4000003:AAstorm-grif-token-00000000000000',
  ray: '4000004:AAstorm-ray-token-000000000000000',
};

// Handler log lines are written as on Lambda, but to a sink: the figures are the handlers', not the terminal's.
const realWrite = process.stdout.write.bind(process.stdout);
let handlerLogLines = 0;
process.stdout.write = (() => (handlerLogLines++, true)) as typeof process.stdout.write;
const print = (s = '') => realWrite(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

/** CPU seconds a process has used so far (Linux /proc), or NaN if it is not ours to read. */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  if (pid === process.pid) {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  }
  try {
    // Fields after the parenthesised command: utime and stime are the 12th and 13th, in ticks of 1/100 s.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface StormResult {
  wallMs: number;
  latencies: number[];
  errors: number;
}

/** Invokes the handler once per trigger, `concurrency` at a time; a thrown invocation is retried as Scheduler would. */
async function storm(
  handler: (e: unknown) => Promise<{ queued?: string; skipped?: string }>,
  triggers: CronTrigger[],
  concurrency: number,
): Promise<StormResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, triggers.length) }, async () => {
      while (next < triggers.length) {
        const trigger = triggers[next++]!;
        for (let attempt = 1; ; attempt++) {
          const t = performance.now();
          try {
            const outcome = await handler(trigger);
            if (!outcome.queued) throw new Error(`job ${trigger.kind === 'job' ? trigger.jobId : '?'} not queued: ${outcome.skipped}`);
            latencies.push(performance.now() - t);
            break;
          } catch (err) {
            errors++;
            if (attempt >= 3) throw err;
            await sleep(RETRY_MS);
          }
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { wallMs: performance.now() - t0, latencies, errors };
}

type Depth = { visible: number; inFlight: number };

async function depth(sqs: SQSClient, url: string): Promise<Depth> {
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return {
    visible: Number(Attributes.ApproximateNumberOfMessages ?? 0) + Number(Attributes.ApproximateNumberOfMessagesDelayed ?? 0),
    inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
  };
}

async function depths(sqs: SQSClient, urls: string[]): Promise<Depth[]> {
  return Promise.all(urls.map((u) => depth(sqs, u)));
}
const total = (ds: Depth[]) => ds.reduce((n, d) => n + d.visible + d.inFlight, 0);

/** The answers the fake Bot API received since call index `from`: per job chat, the calls to it. */
function answersSince(tg: FakeTelegram, from: number): { byJob: Map<number, BotApiCall[]>; strangers: number } {
  const byJob = new Map<number, BotApiCall[]>();
  let strangers = 0;
  for (const call of tg.calls('sendMessage').slice(from)) {
    const job = jobOfChat(Number(call.params.chat_id));
    if (!(job >= 0 && job < JOBS)) {
      strangers++;
      continue;
    }
    byJob.set(job, [...(byJob.get(job) ?? []), call]);
  }
  return { byJob, strangers };
}

/**
 * Waits until every job has an answer (or the timeout), sampling per agent on the way the
 * runtime's in-flight messages (received, not yet deleted: the worker's busy slots) and
 * the outbox backlog (envelopes λ outbox has not taken yet).
 */
async function awaitAnswers(
  tg: FakeTelegram,
  from: number,
  sqs: SQSClient,
  queues: AgentQueueUrls[],
  stormDone: () => boolean,
): Promise<{ allAt: number | undefined; firstAt: number | undefined; inboxesEmptyAt: number | undefined; meanInFlight: number[]; meanOutboxBacklog: number }> {
  const deadline = Date.now() + ANSWER_TIMEOUT_MS;
  let inboxesEmptyAt: number | undefined;
  const inFlight = queues.map(() => 0);
  let backlog = 0;
  let samples = 0;
  let lastSample = 0;
  const means = () => ({ meanInFlight: inFlight.map((s) => s / Math.max(1, samples)), meanOutboxBacklog: backlog / Math.max(1, samples) });
  for (;;) {
    const { byJob } = answersSince(tg, from);
    const firsts = [...byJob.values()].map((calls) => calls[0]!.at);
    const firstAt = firsts.length ? Math.min(...firsts) : undefined;
    if (byJob.size >= JOBS) return { allAt: Math.max(...firsts), firstAt, inboxesEmptyAt, ...means() };
    if (Date.now() > deadline) return { allAt: undefined, firstAt, inboxesEmptyAt, ...means() };
    if (Date.now() - lastSample >= 500) {
      lastSample = Date.now();
      const [ins, outs] = await Promise.all([
        depths(
          sqs,
          queues.map((q) => q.inbox),
        ),
        depths(
          sqs,
          queues.map((q) => q.outbox),
        ),
      ]);
      ins.forEach((d, i) => (inFlight[i]! += d.inFlight));
      // The runtimes have taken (and finished) every job once the storm is queued and their queues are empty.
      if (inboxesEmptyAt === undefined && stormDone() && total(ins) === 0) inboxesEmptyAt = Date.now();
      backlog += outs.reduce((n, d) => n + d.visible, 0);
      samples++;
    }
    await sleep(50);
  }
}

/** Waits until nothing is queued or in flight anywhere (answers may still be on their way), then a little longer. */
async function quiesce(sqs: SQSClient, urls: string[], timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let left = total(await depths(sqs, urls));
  while (left > 0 && Date.now() < deadline) {
    await sleep(500);
    left = total(await depths(sqs, urls));
  }
  await sleep(3_000);
  return total(await depths(sqs, urls));
}

function reportAnswers(
  tg: FakeTelegram,
  from: number,
  agentOfJob: (i: number) => string,
): { answered: number; duplicates: number; lost: number; wrongBot: number; strangers: number } {
  const { byJob, strangers } = answersSince(tg, from);
  let duplicates = 0;
  let wrongBot = 0;
  for (const [job, calls] of byJob) {
    duplicates += calls.length - 1;
    wrongBot += calls.filter((c) => c.token !== TOKENS[agentOfJob(job)] || !String(c.params.text).includes(`Storm job ${job}:`)).length;
  }
  return { answered: byJob.size, duplicates, lost: JOBS - byJob.size, wrongBot, strangers };
}

function printStorm(label: string, r: StormResult): void {
  const l = r.latencies;
  print(
    `  ${label}: ${secs(r.wallMs)} for ${JOBS} invocations, ${(JOBS / (r.wallMs / 1000)).toFixed(0)} /s; handler latency p50 ${quantile(l, 0.5).toFixed(1)} ms, p99 ${quantile(l, 0.99).toFixed(1)} ms, max ${l.at(-1)!.toFixed(1)} ms; handler errors (retried) ${r.errors}`,
  );
}

async function main(): Promise<void> {
  const loadStart = load();
  const emu = await emulator();
  const tg = await startTelegram({ bots: Object.values(TOKENS).map((token) => ({ token })) });
  const aws: AwsTestEnv = { endpoint: emu.endpoint, region: 'us-east-1', credentials: { accessKeyId: ACCOUNT, secretAccessKey: 'test' }, accountId: ACCOUNT };
  const sqs = new SQSClient(aws);

  // The jobs' minute: the coming one. Day one's firing is run 1, day two's run 2.
  const due = Math.ceil(Date.now() / 60_000) * 60_000;
  const config = stormConfig({ fleet: 'storm', jobs: JOBS, minute: utcMinute(due), apiRoot: tg.url });
  const agents = config.agents.list.map((a) => a.id);
  const agentOfJob = (i: number) => agents[i % agents.length]!;
  const telegramSecret = Object.fromEntries(Object.entries(TOKENS).map(([id, token]) => [`${id.toUpperCase()}_BOT_TOKEN`, token]));
  const fleet = await provisionFleet(aws, config, { telegram: telegramSecret, agents: Object.fromEntries(agents.map((id) => [id, {}])) }, { ecs: true });
  const queues = agents.map((id) => fleet.queues[id]!);
  const inboxes = queues.map((q) => q.inbox);
  const everyQueue = queues.flatMap((q: AgentQueueUrls) => [q.inbox, q.outbox]);
  const deadLetterQueues = queues.flatMap((q) => [q.inboxDlq, q.outboxDlq]);

  setHandlerEnv(aws, config);
  const cronDispatch = (await import('../functions/cron-dispatch.ts')).handler;
  const outboxHandler = (await import('../functions/outbox.ts')).handler;
  // Counted, to tell the pollers' receive and delete time from the handler's own.
  const outboxStats = { batches: 0, records: 0, busyMs: 0 };
  const outbox: typeof outboxHandler = async (event) => {
    const t = performance.now();
    try {
      return await outboxHandler(event);
    } finally {
      outboxStats.batches++;
      outboxStats.records += event.Records.length;
      outboxStats.busyMs += performance.now() - t;
    }
  };
  const outboxLine = (since: typeof outboxStats, wallMs: number) => {
    const [b, r, ms] = [outboxStats.batches - since.batches, outboxStats.records - since.records, outboxStats.busyMs - since.busyMs];
    return `λ outbox: ${r} envelopes in ${b} batches (${(r / Math.max(1, b)).toFixed(1)} a batch), ${(r / (wallMs / 1000)).toFixed(0)} envelopes/s, handler ${(ms / Math.max(1, r)).toFixed(1)} ms an envelope; its ${OUTBOX_POLLERS * agents.length} pollers spent ${((100 * ms) / (OUTBOX_POLLERS * agents.length * wallMs)).toFixed(0)} % of their time in it`;
  };

  print(`Cron storm: ${JOBS} isolated cron jobs over ${agents.length} agents (${agents.join(', ')}), all due at ${utcMinute(due)} UTC daily`);
  print(`MiniStack at ${aws.endpoint}; Node ${process.version}; load average at start ${loadStart}`);
  print(
    `λ cron-dispatch in-process, ${DISPATCH_CONCURRENCY} invocations in flight; λ outbox with ${OUTBOX_POLLERS} pollers per outbox queue (batches of 10); runtimes: offline model, ${SESSIONS} sessions each (CLAWFLEET_MAX_SESSIONS), long polling 20 s`,
  );

  const cpu = () => ({
    bench: cpuSeconds(process.pid),
    ministack: cpuSeconds(emu.proc?.pid),
    runtimes: runtimes.reduce((s, r) => s + cpuSeconds(r.child.pid), 0),
  });
  const cpuLine = (a: ReturnType<typeof cpu>, b: ReturnType<typeof cpu>) =>
    `CPU used: this process (handlers, pump, fake Bot API) ${(b.bench - a.bench).toFixed(1)} s, MiniStack ${(b.ministack - a.ministack).toFixed(1)} s, runtimes ${(b.runtimes - a.runtimes).toFixed(1)} s`;
  let runtimes: RuntimeProcess[] = [];
  /** How every run ends: the outbox, the runtimes' slots, CPU, then every answer counted at the fake Bot API. */
  const printRunTail = async (r: {
    answers: Awaited<ReturnType<typeof awaitAnswers>>;
    outbox: typeof outboxStats;
    elapsedMs: number;
    cpu0: ReturnType<typeof cpu>;
    callsBefore: number;
    slots: string;
  }) => {
    print(`  ${outboxLine(r.outbox, r.elapsedMs)}`);
    print(
      `  runtimes' ${r.slots} (mean of inbox in-flight samples, of ${SESSIONS}): ${agents.map((id, i) => `${id} ${r.answers.meanInFlight[i]!.toFixed(2)}`).join(', ')}; outbox backlog (all four, mean) ${r.answers.meanOutboxBacklog.toFixed(1)}`,
    );
    print(`  ${cpuLine(r.cpu0, cpu())}`);
    const left = await quiesce(sqs, everyQueue);
    const a = reportAnswers(tg, r.callsBefore, agentOfJob);
    print(
      `  answers: ${a.answered} distinct of ${JOBS}, duplicates ${a.duplicates}, lost ${a.lost}, wrong bot or text ${a.wrongBot}, to other chats ${a.strangers}; left on queues ${left}, dead letters ${total(await depths(sqs, deadLetterQueues))}`,
    );
    return a;
  };

  // Run 1: agents asleep. The whole storm queues; then the runtimes start and drain it.
  print('\nRun 1 — agents asleep during the storm: queue everything, then start the four runtimes');
  let cpu0 = cpu();
  const run1 = await storm(cronDispatch, firings(config, new Date(due).toISOString()), DISPATCH_CONCURRENCY);
  printStorm('time to queues (all handler calls returned)', run1);
  const t1 = Date.now();
  let perAgent = await depths(sqs, inboxes);
  while (total(perAgent) < JOBS && Date.now() - t1 < 60_000) {
    await sleep(200);
    perAgent = await depths(sqs, inboxes);
  }
  print(
    `  queue depths (ApproximateNumberOfMessages): ${agents.map((id, i) => `${id} ${perAgent[i]!.visible}`).join(', ')} = ${total(perAgent)} of ${JOBS}${total(perAgent) === JOBS ? '' : ' — MISMATCH'} (${Date.now() - t1} ms after the last call)`,
  );
  print(`  ${cpuLine(cpu0, cpu())}`);

  cpu0 = cpu();
  const outbox1 = { ...outboxStats };
  const callsBefore1 = tg.calls('sendMessage').length;
  const startedAt = Date.now();
  const pumps = Array.from({ length: OUTBOX_POLLERS }, () =>
    startOutboxPump(
      aws,
      queues.map((q) => ({ url: q.outbox, arn: q.outboxArn })),
      outbox,
    ),
  );
  runtimes = agents.map((id, i) =>
    startRuntime({
      CLAWFLEET_AGENT_ID: id,
      CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(config, id)),
      CLAWFLEET_INBOX_URL: queues[i]!.inbox,
      CLAWFLEET_OUTBOX_URL: queues[i]!.outbox,
      CLAWFLEET_DLQ_URL: queues[i]!.inboxDlq,
      CLAWFLEET_WORKSPACE: mkdtempSync(join(tmpdir(), `cf-storm-${id}-`)),
      CLAWFLEET_OFFLINE_MODEL: 'cron storm bench',
      CLAWFLEET_MAX_SESSIONS: String(SESSIONS),
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_REGION: aws.region,
      AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    }),
  );
  await Promise.all(runtimes.map((r) => r.waitFor((l) => l.msg === 'ready', 120_000)));
  const readyAt = Date.now();
  const a1 = await awaitAnswers(tg, callsBefore1, sqs, queues, () => true);
  const end1 = a1.allAt ?? Date.now();
  print(
    `  from starting the runtimes: all ready ${secs(readyAt - startedAt)}, first answer ${a1.firstAt ? secs(a1.firstAt - startedAt) : '—'}, runtimes' queues empty ${a1.inboxesEmptyAt ? secs(a1.inboxesEmptyAt - startedAt) : 'not by then'}`,
  );
  print(
    `  all answered: ${a1.allAt ? `${secs(end1 - startedAt)} after starting the runtimes (${secs(end1 - readyAt)} after all were ready: ${(JOBS / ((end1 - readyAt) / 1000)).toFixed(1)} answers/s)` : `NOT within ${secs(ANSWER_TIMEOUT_MS)}`}`,
  );
  const r1 = await printRunTail({
    answers: a1,
    outbox: outbox1,
    elapsedMs: end1 - startedAt,
    cpu0,
    callsBefore: callsBefore1,
    slots: 'slots in use while draining',
  });

  // Run 2: agents awake. The same jobs fire a day later, onto queues the runtimes are polling.
  print('\nRun 2 — agents awake: the runtimes consume while the storm lands (the same jobs, the next day)');
  cpu0 = cpu();
  const outbox2 = { ...outboxStats };
  const callsBefore2 = tg.calls('sendMessage').length;
  const storm2Start = Date.now();
  let storm2Done = false;
  const run2Promise = storm(cronDispatch, firings(config, new Date(due + 86_400_000).toISOString()), DISPATCH_CONCURRENCY).finally(() => (storm2Done = true));
  const answers2Promise = awaitAnswers(tg, callsBefore2, sqs, queues, () => storm2Done);
  const run2 = await run2Promise;
  printStorm('time to queues (all handler calls returned)', run2);
  const a2 = await answers2Promise;
  const end2 = a2.allAt ?? Date.now();
  print(
    `  from the first invocation: first answer ${a2.firstAt ? secs(a2.firstAt - storm2Start) : '—'}, runtimes' queues empty ${a2.inboxesEmptyAt ? secs(a2.inboxesEmptyAt - storm2Start) : 'not by then'}`,
  );
  print(
    `  all answered: ${a2.allAt ? `${secs(end2 - storm2Start)} after the first invocation, ${(JOBS / ((end2 - storm2Start) / 1000)).toFixed(1)} answers/s` : `NOT within ${secs(ANSWER_TIMEOUT_MS)}`}`,
  );
  const r2 = await printRunTail({ answers: a2, outbox: outbox2, elapsedMs: end2 - storm2Start, cpu0, callsBefore: callsBefore2, slots: 'slots in use' });

  await Promise.all(runtimes.map((r) => r.kill('SIGTERM')));
  await Promise.all(pumps.map((p) => p.stop()));
  await tg.close();
  if (emu.proc) process.kill(-emu.proc.pid!, 'SIGTERM');

  print('\nLocal mode — the same storm on the SQLite scheduler: one cron tick fires every due job');
  const local = await localStorm(JOBS);
  print(
    `  one tick, ${JOBS} firings dispatched one after another: ${secs(local.tickMs)}, ${(JOBS / (local.tickMs / 1000)).toFixed(0)} /s; queued ${local.queued} of ${JOBS}${local.queued === JOBS ? '' : ' — MISMATCH'}`,
  );

  print(`\nhandler log lines written (to a sink): ${handlerLogLines}; load average at end ${load()}`);
  if (r1.lost || r2.lost || r1.duplicates || r2.duplicates || local.queued !== JOBS) process.exitCode = 1;
}

await main();
