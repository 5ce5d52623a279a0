// Budgets (#31) through a SIGKILL, on AWS's wire protocols: fran (a budget) is a real runtime
// child process behind the real λ telegram-webhook and λ outbox on the emulator's queues and
// spend table, the model a fake over HTTP that reports usage. Her turn's first model call is
// answered (a tool call), the second hangs; once the first call is counted, the runtime is
// SIGKILLed. The message comes back to a new runtime, which redoes the turn.
//
// What "redone" means for spend: every provider call whose answer a runtime received was a real
// call, billed, and is counted once — the dead attempt's first call and both calls of the redone
// attempt; the call cut off by the kill never reported usage and is not counted (nor is its
// hold, which lapses). A turn whose reply was already produced is not redone at all: handed out
// again, its recorded reply is re-sent, no model is asked, nothing more is counted; and a usage
// report delivered twice counts once.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../shared/adapters/aws/clients.ts';
import { DynamoSpendCounts, DynamoSpendLedger } from '../../shared/adapters/aws/dynamo-spend.ts';
import { periodsAt } from '../../shared/budget/periods.ts';
import { callCostMicros, DEFAULT_MODEL_PRICES } from '../../shared/budget/prices.ts';
import { tableNames } from '../../shared/config/names.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { route } from '../../shared/routing/route.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const FLEET = 'budgetkill';
const USER = 7401;
const PRICE = DEFAULT_MODEL_PRICES['openai/gpt-4.1-mini']!;
/** What the fake model reports: no more prompt tokens than the request has bytes, as a real provider. */
const TOOL_CALL = { input: 3_000, output: 100 };
const ANSWER = { input: 3_500, output: 400 };
const cost = (u: { input: number; output: number }) => callCostMicros({ ...u, cacheRead: 0, cacheWrite: 0 }, PRICE);

let f: FaultFleet;
let counts: DynamoSpendCounts;
let ledger: DynamoSpendLedger;
let killedAt = 0;

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: FLEET,
    senders: [USER],
    edit: (raw) => {
      raw.agents.list.find((a: { id: string }) => a.id === 'fran').budget = { dailyUsd: 5 };
    },
    runtimeEnv: { CLAWFLEET_SPEND_TABLE: tableNames(FLEET).spend },
  });
  const doc = dynamoDocumentClient(f.aws);
  counts = new DynamoSpendCounts(doc, tableNames(FLEET).spend);
  ledger = new DynamoSpendLedger(doc, tableNames(FLEET).spend);
  // The question's first call asks for a tool; its second answers — the first time it is asked, after a minute (the runtime is killed before then).
  let answers = 0;
  f.model.setResponder((req) => {
    const afterTool = (req.body as { messages: { role: string }[] }).messages.some((m) => m.role === 'tool');
    if (!afterTool) return { toolCalls: [{ name: 'list', arguments: { path: '.' } }], usage: TOOL_CALL };
    answers++;
    return { text: 'The folder is empty.', usage: ANSWER, delayMs: answers === 1 ? 60_000 : 0 };
  });
}, 120_000);

afterAll(() => f?.close());

const day = () => counts.totals('fran', Date.now());

describe('a budget through a runtime SIGKILLed mid-turn (a real child process)', () => {
  it('counts each answered provider call once — the dead attempt’s too — and the cut-off call not at all', { timeout: 150_000 }, async () => {
    const first = f.launch();
    await first.waitFor((l) => l.msg === 'ready', 30_000);
    expect((await f.post(f.update(1, USER, 'What is in my folder?'))).statusCode).toBe(200);
    // The first call is answered and counted; the second is on its way when the runtime dies.
    await expect.poll(async () => (await day()).dayMicros, { timeout: 30_000, interval: 100 }).toBe(cost(TOOL_CALL));
    await expect.poll(() => f.model.requests().length, { timeout: 30_000, interval: 50 }).toBe(2);
    await first.kill('SIGKILL');
    killedAt = Date.now();

    f.launch();
    await expect.poll(() => f.sent('The folder is empty.', USER), { timeout: 60_000, interval: 50 }).toBe(1);
    await f.settled();
    expect(f.model.requests()).toHaveLength(4);
    expect((await day()).dayMicros).toBe(2 * cost(TOOL_CALL) + cost(ANSWER));
    // The runtime's own ledger settled the same three calls; the killed call's hold is left to lapse.
    const month = await ledger.month('fran', periodsAt(Date.now()).month);
    expect(month.spentMicros).toBe(2 * cost(TOOL_CALL) + cost(ANSWER));
    expect(Object.values(month.holds)).toEqual([expect.objectContaining({ until: expect.any(Number) })]);
    expect(Object.values(month.holds)[0]!.until).toBeGreaterThan(killedAt);
    expect(f.sent('The folder is empty.', USER)).toBe(1);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('counts nothing more for a turn whose reply was produced, handed out again, nor for a usage report delivered twice', { timeout: 90_000 }, async () => {
    const before = (await day()).dayMicros;
    const asked = f.model.requests().length;
    // The same message handed out again (as SQS does when a runtime dies before deleting it).
    const { sessionKey } = route(f.config, { channel: 'telegram', accountId: 'fran', kind: 'direct', id: String(USER) });
    await f.sqs.send(
      new SendMessageCommand({
        QueueUrl: f.queues.fran!.inbox,
        MessageGroupId: sessionKey,
        MessageDeduplicationId: 'redelivered-tg.fran.1',
        MessageBody: JSON.stringify({
          v: PROTOCOL_VERSION,
          kind: 'message',
          id: 'tg.fran.1',
          agentId: 'fran',
          sessionKey,
          ts: 1,
          text: 'What is in my folder?',
          from: { channel: 'telegram', accountId: 'fran', peerId: String(USER) },
        }),
      }),
    );
    // Every usage report counted so far, delivered to the outbox again.
    const { Items = [] } = await dynamoDocumentClient(f.aws).send(
      new ScanCommand({ TableName: tableNames(FLEET).spend, FilterExpression: 'begins_with(pk, :p)', ExpressionAttributeValues: { ':p': 'usage:fran#' } }),
    );
    expect(Items).toHaveLength(3);
    for (const item of Items) {
      const id = String(item.pk).slice('usage:fran#'.length);
      await f.sqs.send(
        new SendMessageCommand({
          QueueUrl: f.queues.fran!.outbox,
          MessageGroupId: sessionKey,
          MessageDeduplicationId: `again-${id}`.slice(0, 128),
          MessageBody: JSON.stringify({
            v: PROTOCOL_VERSION,
            kind: 'usage',
            id,
            agentId: 'fran',
            sessionKey,
            inboundId: 'tg.fran.1',
            ts: Date.now(),
            model: 'openai/gpt-4.1-mini',
            tokens: { ...TOOL_CALL, cacheRead: 0, cacheWrite: 0 },
          }),
        }),
      );
    }
    // The live runtime found the turn recorded and re-sent its answer, asking no model.
    await f.runtimes.at(-1)!.waitFor((l) => l.msg === 'turn already done; answer re-sent' && l.envelopeId === 'tg.fran.1', 30_000);
    await f.settled();
    // λ outbox took each report again, and counted none of them a second time.
    const again = f.scan
      .read('test process stdout (handler logs)')
      .split('\n')
      .filter((l) => l.includes('"model call counted before"'));
    expect(again).toHaveLength(3);
    expect(f.model.requests().length).toBe(asked);
    expect((await day()).dayMicros).toBe(before);
    expect(f.sent('The folder is empty.', USER)).toBe(1);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('leaks no secret into logs, replies or responses', () => {
    expectNoSecretsIn(f.scan, 'budget-sigkill.test.ts');
  });
});
