// SIGTERM mid-turn (what ECS sends on a deployment, scale-in or Spot interruption): the
// runtime stops taking work, finishes the turn in flight if it can within its drain time,
// and otherwise releases the message for the next runtime. No loss, no duplicate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFigures } from '../support/figures.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const SENDERS = [7101, 7102, 7103];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let f: FaultFleet;
let updateId = 2_000;

async function say(from: number, text: string) {
  const res = await f.post(f.update(updateId++, from, text));
  expect(res.statusCode).toBe(200);
}

beforeAll(async () => {
  f = await startFaultFleet({ fleet: 'term', senders: SENDERS });
});

afterAll(() => f?.close());

describe('a runtime sent SIGTERM mid-turn', () => {
  it('finishes a turn that fits in its drain time, answers once, and exits 0', async () => {
    const r = f.launch({ CLAWFLEET_DRAIN_SECONDS: '10' });
    await r.waitFor((l) => l.msg === 'ready', 30_000);
    f.model.script({ text: 'finished while draining', delayMs: 2_000 });
    const before = f.model.requests().length;
    await say(7101, 'take your time');
    await f.model.waitForRequests(before + 1, 15_000);

    expect(await r.kill('SIGTERM')).toBe(0);
    // The answer was on the outbox before the process exited; delivery follows.
    await expect.poll(() => f.sent('finished while draining', 7101), { timeout: 20_000 }).toBe(1);
    // The next runtime finds nothing left to redo.
    const next = f.launch();
    await next.waitFor((l) => l.msg === 'ready', 30_000);
    await f.settled();
    expect(f.sent('finished while draining', 7101)).toBe(1);
    expect(f.model.requests().filter((q) => q.lastUserText === 'take your time')).toHaveLength(1);
    await next.kill('SIGTERM');
  });

  it('releases a turn longer than its drain time, and the next runtime answers it once', async () => {
    const r = f.launch({ CLAWFLEET_DRAIN_SECONDS: '1' });
    await r.waitFor((l) => l.msg === 'ready', 30_000);
    // The model would take a minute: a runtime that waited for it instead of its 1 s drain would take that long to stop.
    f.model.script({ text: 'too late to be sent', delayMs: 60_000 });
    const before = f.model.requests().length;
    await say(7102, 'a long one');
    await f.model.waitForRequests(before + 1, 15_000);

    const stopping = Date.now();
    expect(await r.kill('SIGTERM')).toBe(0);
    // Only an upper bound makes sense here, and a generous one: a busy machine is slow to stop a process, never a minute slow.
    expect(Date.now() - stopping).toBeLessThan(30_000);
    expect(r.lines.some((l) => l.msg === 'turn aborted by shutdown; message released')).toBe(true);

    f.launch();
    await expect.poll(() => f.sent('echo: a long one', 7102), { timeout: 30_000, interval: 200 }).toBe(1);
    await f.settled();
    expect(f.sent('echo: a long one', 7102)).toBe(1);
    expect(f.tg.calls('sendMessage').some((c) => c.params.text === 'too late to be sent')).toBe(false);
  });

  it('loses and doubles nothing when stopped and replaced during a burst across sessions', async () => {
    const live = f.runtimes.at(-1)!;
    await live.waitFor((l) => l.msg === 'ready', 30_000);
    f.model.setResponder((q) => ({ text: `echo: ${q.lastUserText}`, delayMs: 400 }));
    const texts = SENDERS.flatMap((from) => [1, 2, 3].map((n) => ({ from, text: `burst ${n} from ${from}` })));
    await Promise.all(texts.map(({ from, text }) => say(from, text)));
    await sleep(600);
    expect(await live.kill('SIGTERM')).toBe(0);
    f.launch();
    await expect.poll(() => texts.filter(({ from, text }) => f.sent(`echo: ${text}`, from) !== 1).length, { timeout: 60_000, interval: 250 }).toBe(0);
    await f.settled();
    const duplicates = texts.filter(({ from, text }) => f.sent(`echo: ${text}`, from) > 1).length;
    expect(duplicates).toBe(0);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    writeFigures('runtime-sigterm', {
      command: 'npx vitest run test/fault/runtime-sigterm.test.ts',
      scenarios: 3,
      messages: texts.length + 2,
      duplicates,
      lost: 0,
    });
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'runtime-sigterm'));
});
