// The hostile case of a budget (#31) on AWS's wire protocols: four people write to fran at
// once (four sessions, four turns in flight in her real runtime process), eight messages each,
// while her budget runs out. The runtime holds each call's ceiling in its own ledger items of
// the emulator's DynamoDB table (conditional writes, racing), the real λ outbox counts each call
// from its usage report. The bound: the day's spend passes the cap by at most one model call.
// Every message gets exactly one answer: the model's, or the note saying the cap is reached.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../shared/adapters/aws/clients.ts';
import { DynamoSpendCounts, DynamoSpendLedger } from '../../shared/adapters/aws/dynamo-spend.ts';
import { periodsAt } from '../../shared/budget/periods.ts';
import { callCostMicros, DEFAULT_MODEL_PRICES } from '../../shared/budget/prices.ts';
import { tableNames } from '../../shared/config/names.ts';
import { writeFigures } from '../support/figures.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const FLEET = 'budgetrace';
const USERS = [7501, 7502, 7503, 7504];
const MESSAGES_EACH = 8;
/** A call: 2,000 tokens in (fewer than the request has bytes), 1,000 out: $0.0024. */
const USAGE = { input: 2_000, output: 1_000 };
const CALL = callCostMicros({ ...USAGE, cacheRead: 0, cacheWrite: 0 }, DEFAULT_MODEL_PRICES['openai/gpt-4.1-mini']!);
const CAP = 50_000;
const OPERATOR = 7599;

let f: FaultFleet;

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: FLEET,
    senders: USERS,
    edit: (raw) => {
      raw.agents.list.find((a: { id: string }) => a.id === 'fran').budget = { dailyUsd: CAP / 1_000_000 };
      // The operator hears of 80 % and 100 % in their own chat, through fran's bot.
      raw.operator = { telegram: { accountId: 'fran', chatId: OPERATOR } };
    },
    runtimeEnv: { CLAWFLEET_SPEND_TABLE: tableNames(FLEET).spend, CLAWFLEET_MAX_SESSIONS: '4' },
  });
  // Slow enough that the four sessions' calls overlap.
  f.model.setResponder((req) => ({ text: `answer: ${req.lastUserText}`, usage: USAGE, delayMs: 600 }));
}, 120_000);

afterAll(() => f?.close());

describe('four sessions racing one budget on AWS (a real runtime process, the emulator’s DynamoDB)', () => {
  it('pass the cap by at most one model call, and answer every message exactly once', { timeout: 180_000 }, async () => {
    const runtime = f.launch();
    await runtime.waitFor((l) => l.msg === 'ready', 30_000);
    let update = 0;
    await Promise.all(
      USERS.map(async (user) => {
        for (let i = 1; i <= MESSAGES_EACH; i++) expect((await f.post(f.update(++update * 10 + (user % 10), user, `m${i} from ${user}`))).statusCode).toBe(200);
      }),
    );
    const answersTo = (user: number) => f.tg.calls('sendMessage').filter((c) => c.params.chat_id === user);
    await expect.poll(() => USERS.reduce((n, u) => n + answersTo(u).length, 0), { timeout: 150_000, interval: 200 }).toBe(USERS.length * MESSAGES_EACH);
    await f.settled();

    const doc = dynamoDocumentClient(f.aws);
    const counted = (await new DynamoSpendCounts(doc, tableNames(FLEET).spend).totals('fran', Date.now())).dayMicros;
    const month = await new DynamoSpendLedger(doc, tableNames(FLEET).spend).month('fran', periodsAt(Date.now()).month);
    // The budget was spent, and passed by at most one call.
    expect(counted).toBeGreaterThanOrEqual(CAP);
    expect(counted - CAP).toBeLessThanOrEqual(CALL);
    // Each answered message was one call, counted once; the runtime's ledger agrees and holds nothing.
    const texts = USERS.flatMap((u) => answersTo(u).map((c) => String(c.params.text)));
    const answered = texts.filter((t) => t.startsWith('answer: ')).length;
    expect(answered * CALL).toBe(counted);
    expect(f.model.requests()).toHaveLength(answered);
    expect(month.spentMicros).toBe(counted);
    expect(month.holds).toEqual({});
    // The rest were told why, once each.
    expect(texts.filter((t) => t.startsWith('⛔ Fran has reached its daily budget'))).toHaveLength(texts.length - answered);
    expect(texts.length - answered).toBeGreaterThan(0);
    // Each person got one answer per message, the model's in the order asked.
    for (const u of USERS) {
      expect(answersTo(u)).toHaveLength(MESSAGES_EACH);
      const own = answersTo(u)
        .map((c) => String(c.params.text))
        .filter((t) => t.startsWith('answer: '));
      expect(own).toEqual(own.map((_, i) => `answer: m${i + 1} from ${u}`));
    }
    // The operator was told 80 % and 100 % once each, however many λ outbox records raced past them.
    const alerts = f.tg
      .calls('sendMessage')
      .filter((c) => c.params.chat_id === OPERATOR)
      .map((c) => String(c.params.text).split('\n')[0]);
    expect(alerts).toEqual(["💸 80 % of the budget spent: fran's daily budget", "💸 Over budget: fran's daily budget"]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    writeFigures('budget-race-aws', {
      sessions: USERS.length,
      messages: texts.length,
      answered,
      notes: texts.length - answered,
      capMicros: CAP,
      countedMicros: counted,
      overMicros: counted - CAP,
      callMicros: CALL,
    });
  });

  it('leaks no secret into logs, replies or responses', () => {
    expectNoSecretsIn(f.scan, 'budget-race-aws.test.ts');
  });
});
