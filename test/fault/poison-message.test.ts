// A poison message: one that kills the runtime every time it is worked on (here the model
// has the agent run `kill -9 $PPID` — any message that crashes the process behaves the
// same; exec runs unsandboxed here, `tools.exec.sandbox: "off"`, because in its sandbox a
// command can no longer reach the runtime at all). Each crash returns it to the queue; the
// runtime, restarted each time as ECS would, counts the attempts that died with it and runs
// a suspect alone, so after 2 deaths it tells the user and parks the message in its DLQ with
// the reason — well before the queue's maxReceiveCount, which the bystanders in flight with
// it (also handed out at each crash) are left to be answered in. Other sessions' messages
// are answered exactly once meanwhile.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseInbound } from '../../shared/protocol/envelopes.ts';
import { writeFigures } from '../support/figures.ts';
import type { RuntimeProcess } from '../support/runtime-process.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const MAX_RECEIVE_COUNT = 5; // the CDK app's default
const DEATHS = 2; // MAX_TURN_ATTEMPTS in runtime-image/src/worker/worker.ts
const POISONED = 7401;
const OTHERS = [7402, 7403, 7404];
let f: FaultFleet;
let supervising = true;
let crashes = 0;

/** Restarts the runtime whenever it dies, as ECS replaces a stopped task. */
function supervise(): void {
  const run = (r: RuntimeProcess) =>
    void r.exited.then(() => {
      if (!supervising) return;
      crashes++;
      run(f.launch());
    });
  run(f.launch());
}

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: 'poison',
    senders: [POISONED, ...OTHERS],
    maxReceiveCount: MAX_RECEIVE_COUNT,
    edit: (raw) => (raw.agents.list.find((a: { id: string }) => a.id === 'fran').tools = { exec: { sandbox: 'off' } }),
  });
  f.model.setResponder((q) =>
    q.lastUserText === 'please run the cleanup'
      ? { toolCalls: [{ name: 'exec', arguments: { command: 'kill -9 $PPID' } }], delayMs: 1_000 }
      : { text: `echo: ${q.lastUserText}` },
  );
  supervise();
  await f.runtimes[0]!.waitFor((l) => l.msg === 'ready', 30_000);
});

afterAll(async () => {
  supervising = false;
  await f?.close();
});

describe('a message that crashes the runtime every time', () => {
  it(`ends in the agent’s DLQ after ${DEATHS} deaths, the user told, while other sessions are answered exactly once`, async () => {
    expect((await f.post(f.update(5_000, POISONED, 'please run the cleanup'))).statusCode).toBe(200);
    const others = OTHERS.flatMap((from) => [1, 2].map((n) => ({ from, text: `innocent ${n} from ${from}` })));
    let updateId = 5_001;
    for (const { from, text } of others) {
      expect((await f.post(f.update(updateId++, from, text))).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 700));
    }

    await expect.poll(async () => (await f.deadLetters(f.queues.fran!.inboxDlq)).length, { timeout: 60_000, interval: 500 }).toBe(1);
    const [parked] = await f.deadLetters(f.queues.fran!.inboxDlq);
    expect(parseInbound(parked!.body)).toMatchObject({ id: 'tg.fran.5000', kind: 'message', text: 'please run the cleanup' });
    expect(parked!.reason).toMatch(/^GAVE_UP: 2 attempts died with the runtime \(received 3 times\)/);
    // Worked on (and crashed) twice; the third receive is spent telling the user.
    expect(crashes).toBe(DEATHS);
    expect(f.model.requests().filter((q) => q.lastUserText === 'please run the cleanup')).toHaveLength(DEATHS);
    await expect
      .poll(
        () =>
          f.tg
            .calls('sendMessage')
            .filter(
              (c) => c.params.chat_id === POISONED && /could not answer that message \(working on it stopped this agent 2 times/.test(String(c.params.text)),
            ).length,
        { timeout: 20_000 },
      )
      .toBe(1);

    await expect.poll(() => others.filter(({ from, text }) => f.sent(`echo: ${text}`, from) === 0).length, { timeout: 30_000 }).toBe(0);
    await f.settled();
    expect(others.filter(({ from, text }) => f.sent(`echo: ${text}`, from) !== 1)).toEqual([]);
    // The runtime is up and takes new work once the poison is parked.
    expect(crashes).toBe(DEATHS);
    expect((await f.post(f.update(5_100, POISONED, 'are you back?'))).statusCode).toBe(200);
    await expect.poll(() => f.sent('echo: are you back?', POISONED), { timeout: 20_000 }).toBe(1);

    writeFigures('poison-message', {
      command: 'npx vitest run test/fault/poison-message.test.ts',
      maxReceiveCount: MAX_RECEIVE_COUNT,
      runtimeCrashes: crashes,
      dlqReason: parked!.reason,
      parkedInDlq: 1,
      otherMessages: others.length,
      otherDuplicates: 0,
      otherLost: 0,
      toldUser: f.tg.calls('sendMessage').filter((c) => c.params.chat_id === POISONED && c.params.text !== 'echo: are you back?').length > 0,
    });
  }, 120_000);

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'poison-message'));
});
