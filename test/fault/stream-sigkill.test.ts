// A streamed answer whose runtime is SIGKILLed mid-stream, for real: the runtime is a child
// process (the container's entry point) behind the real λ telegram-webhook and λ outbox on the
// emulator's queues. Once the user has seen at least two drafts of the answer, the process is
// killed; the message comes back to a new runtime, which writes the answer again. The user
// gets exactly one final message, and no draft of either attempt shows after it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const USER = 7301;
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');

let f: FaultFleet;

beforeAll(async () => {
  f = await startFaultFleet({ fleet: 'sigstream', senders: [USER] });
  // The first attempt writes slowly (a draft a second shows it growing); the redone one quicker.
  let attempts = 0;
  f.model.setResponder(() => ({ text: ANSWER, frameDelayMs: ++attempts === 1 ? 150 : 20 }));
}, 120_000);

afterAll(() => f?.close());

describe('a runtime SIGKILLed mid-stream (a real child process)', () => {
  it('gives exactly one final message, and no stale draft after it', { timeout: 120_000 }, async () => {
    const drafts = () => f.tg.calls('sendMessageDraft').filter((c) => c.params.chat_id === USER);
    const first = f.launch();
    await first.waitFor((l) => l.msg === 'ready', 30_000);
    const res = await f.post(f.update(1, USER, 'Tell me sixty words.'));
    expect(res.statusCode).toBe(200);

    // Two drafts reached the user: the answer is visibly streaming. Then kill -9, mid-answer.
    await expect.poll(() => drafts().length, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(2);
    expect(f.sent(ANSWER, USER)).toBe(0);
    await first.kill('SIGKILL');
    const draftsBeforeKill = drafts().length;

    // The message is handed out again (visibility 3 s) to the next runtime, which answers it.
    f.launch();
    await expect.poll(() => f.sent(ANSWER, USER), { timeout: 60_000, interval: 50 }).toBe(1);
    await f.settled();

    const calls = f.tg.calls().filter((c) => c.params.chat_id === USER);
    const finals = calls.filter((c) => c.method === 'sendMessage');
    expect(finals).toHaveLength(1);
    expect(finals[0]!.params.text).toBe(ANSWER);
    // The answer was written twice (the killed attempt never finished), and delivered once.
    expect(f.model.requests().filter((q) => q.lastUserText === 'Tell me sixty words.')).toHaveLength(2);
    // Nothing of either attempt's drafts came after the final message (a draft would bring the bubble back).
    expect(calls.filter((c) => c.method === 'sendMessage' || c.method === 'sendMessageDraft').at(-1)!.method).toBe('sendMessage');
    // And the ack reaction, put on the message when it was queued, was cleared once the answer was there.
    expect(calls.filter((c) => c.method === 'setMessageReaction').map((c) => c.params.reaction)).toEqual([[{ type: 'emoji', emoji: '👀' }], []]);
    expect(draftsBeforeKill).toBeGreaterThanOrEqual(2);
    // The killed attempt's drafts only ever showed the start of the answer.
    for (const d of drafts()) expect(ANSWER.startsWith(String(d.params.text))).toBe(true);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'stream-sigkill'));
});
