// A streamed answer whose runtime is SIGKILLed mid-stream, for real: the runtime is a child
// process (the container's entry point) behind the real λ telegram-webhook and λ outbox on the
// emulator's queues. Once the user has seen at least two drafts of the answer, the process is
// killed; the message comes back to a new runtime, which writes the answer again. The user
// gets exactly one final message, and no draft of either attempt shows after it. In a group the
// drafts are a preview message edited as the answer grows; the redone turn's reply turns that
// same preview into the answer, so the group still sees one message, finished once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textUpdate } from '../support/fake-telegram.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const USER = 7301;
const ANSWER = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
const GROUP = -1007301000000;
// A group gets a draft every 3 s: this one is written over ~18 s, so several edits show before the kill.
const GROUP_ANSWER = Array.from({ length: 120 }, (_, i) => `part${i}`).join(' ');
const GROUP_ASK = 'Tell the group a hundred and twenty words.';

let f: FaultFleet;

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: 'sigstream',
    senders: [USER],
    edit: (raw) => void (raw.channels.telegram.groups = { [String(GROUP)]: { requireMention: false } }),
  });
  // Each question's first attempt writes slowly (the drafts show it growing); the redone one quicker.
  const attempts = new Map<string, number>();
  f.model.setResponder((req) => {
    const n = (attempts.get(req.lastUserText ?? '') ?? 0) + 1;
    attempts.set(req.lastUserText ?? '', n);
    return { text: req.lastUserText === GROUP_ASK ? GROUP_ANSWER : ANSWER, frameDelayMs: n === 1 ? 150 : 20 };
  });
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

  it('gives a group exactly one message, its preview edited into the final answer once', { timeout: 150_000 }, async () => {
    const inGroup = () => f.tg.calls().filter((c) => c.params.chat_id === GROUP);
    const edits = () => inGroup().filter((c) => c.method === 'editMessageText');
    const [live] = f.runtimes.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    expect(live).toBeDefined();
    const body = JSON.stringify(textUpdate({ updateId: 2, chatId: GROUP, chatType: 'supergroup', fromId: USER, text: GROUP_ASK }));
    expect((await f.post(body)).statusCode).toBe(200);

    // The preview was sent and edited twice as the answer grew. Then kill -9, mid-answer.
    await expect.poll(() => edits().length, { timeout: 45_000, interval: 20 }).toBeGreaterThanOrEqual(2);
    expect(inGroup().some((c) => String(c.params.text) === GROUP_ANSWER)).toBe(false);
    await live!.kill('SIGKILL');
    const editsBeforeKill = edits().length;

    f.launch();
    await expect.poll(() => inGroup().filter((c) => String(c.params.text) === GROUP_ANSWER).length, { timeout: 60_000, interval: 50 }).toBe(1);
    await f.settled();

    const calls = inGroup();
    // One message in the group: the first attempt's preview, which the redone turn's reply edited into the answer.
    const sends = calls.filter((c) => c.method === 'sendMessage');
    expect(sends).toHaveLength(1);
    expect(calls.filter((c) => c.method === 'sendMessageDraft')).toEqual([]);
    const shown = calls.filter((c) => c.method === 'sendMessage' || c.method === 'editMessageText');
    // The whole answer shown once, by the last edit: no draft of either attempt edited it back after.
    expect(shown.filter((c) => String(c.params.text) === GROUP_ANSWER)).toHaveLength(1);
    expect(shown.at(-1)!.params.text).toBe(GROUP_ANSWER);
    expect(shown.at(-1)!.method).toBe('editMessageText');
    expect(editsBeforeKill).toBeGreaterThanOrEqual(2);
    // Every edit went to that one preview, and each draft was a start of the answer.
    const preview = sends[0]!;
    expect(new Set(edits().map((c) => c.params.message_id)).size).toBe(1);
    for (const c of shown.slice(0, -1)) expect(GROUP_ANSWER.startsWith(String(c.params.text))).toBe(true);
    expect(preview.params.text).not.toBe(GROUP_ANSWER);
    expect(f.model.requests().filter((q) => q.lastUserText === GROUP_ASK)).toHaveLength(2);
    // The ack reaction on the group message, set when it was queued, was cleared once the answer was there.
    expect(calls.filter((c) => c.method === 'setMessageReaction').map((c) => c.params.reaction)).toEqual([[{ type: 'emoji', emoji: '👀' }], []]);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'stream-sigkill'));
});
