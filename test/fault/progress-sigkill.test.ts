// Progress streaming (#31, `streaming: "progress"`) whose runtime is SIGKILLed mid-work, for real:
// the real λ telegram-webhook and λ outbox on the emulator's queues, fran's runtime a child process
// running real tools (`list`) while the fake model answers. Once the user has seen the status of the
// work, the process is killed while it waits for the model; the message comes back to a new
// runtime, which does the work again. The user gets exactly one answer, as a message of its own,
// and no status after it: in a private chat the status is a draft bubble; in a group it is one
// status message, which the redone turn's statuses edit and which is deleted once the answer is out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelReply, ModelRequest } from '../support/fake-model.ts';
import { textUpdate } from '../support/fake-telegram.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const USER = 7501;
const GROUP = -1007501000000;
const ANSWER = 'Three files, all of them notes.';
const STATUS = 'Looking through the workspace first.';

let f: FaultFleet;
/** Each ask's requests so far, and what the test lets the model do when. */
const asked = new Map<string, number>();
let hold: { ask: string; release: Promise<void>; resolve(): void } | undefined;

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: 'sigprogress',
    senders: [USER],
    edit: (raw) => {
      raw.channels.telegram.streaming = 'progress';
      raw.channels.telegram.groups = { [String(GROUP)]: { requireMention: false } };
    },
  });
  // Per ask: 1. some words and a tool call; 2. (first attempt) held until the runtime is killed;
  // 3. (the redone attempt) a tool call again; 4. the answer, once the test lets it go.
  f.model.setResponder(async (req: ModelRequest): Promise<ModelReply> => {
    const n = (asked.get(req.lastUserText) ?? 0) + 1;
    asked.set(req.lastUserText, n);
    if (n === 1 || n === 3) return { text: STATUS, toolCalls: [{ name: 'list', arguments: { path: '.' } }] };
    if (n === 2) return { text: 'never said', delayMs: 120_000 };
    if (hold?.ask === req.lastUserText) await hold.release;
    return { text: ANSWER };
  });
}, 120_000);

afterAll(() => f?.close());

/** Lets the redone attempt's answer out once `ready` holds (checked as calls arrive). */
function holdAnswer(ask: string, ready: () => boolean): void {
  let resolve!: () => void;
  const release = new Promise<void>((r) => (resolve = r));
  hold = { ask, release, resolve };
  const check = setInterval(() => {
    if (ready()) {
      clearInterval(check);
      resolve();
    }
  }, 20);
}

describe('a runtime SIGKILLed mid-work under progress streaming (a real child process)', () => {
  it('gives a private chat exactly one answer, and no status after it', { timeout: 120_000 }, async () => {
    const ask = 'What is in my workspace?';
    const toUser = () => f.tg.calls().filter((c) => c.params.chat_id === USER);
    const statuses = () => toUser().filter((c) => c.method === 'sendMessageDraft');
    const first = f.launch();
    await first.waitFor((l) => l.msg === 'ready', 30_000);
    expect((await f.post(f.update(1, USER, ask))).statusCode).toBe(200);

    // The status reached the user while the model was asked the second time; then kill -9.
    await expect.poll(() => statuses().length, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(1);
    await expect.poll(() => asked.get(ask) ?? 0, { timeout: 30_000, interval: 20 }).toBe(2);
    await first.kill('SIGKILL');
    const before = statuses().length;
    // The redone attempt answers once it too has shown its status.
    holdAnswer(ask, () => statuses().length > before);

    f.launch();
    await expect.poll(() => f.sent(ANSWER, USER), { timeout: 60_000, interval: 50 }).toBe(1);
    await f.settled();

    const calls = toUser();
    expect(calls.filter((c) => c.method === 'sendMessage')).toHaveLength(1);
    // Every status was the work's (the model's words and the tool), never the answer; none came after it.
    for (const s of statuses()) expect(s.params.text).toBe(`${STATUS}\n📂 <code>list</code>`);
    expect(calls.filter((c) => c.method === 'sendMessage' || c.method === 'sendMessageDraft').at(-1)!.method).toBe('sendMessage');
    expect(asked.get(ask)).toBe(4);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('gives a group exactly one answer and removes its one status message once', { timeout: 150_000 }, async () => {
    const ask = 'What is in the shared workspace?';
    const inGroup = () => f.tg.calls().filter((c) => c.params.chat_id === GROUP);
    const [live] = f.runtimes.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    expect(live).toBeDefined();
    const body = JSON.stringify(textUpdate({ updateId: 2, chatId: GROUP, chatType: 'supergroup', fromId: USER, text: ask }));
    expect((await f.post(body)).statusCode).toBe(200);

    // The status message went out while the model was asked the second time; then kill -9.
    await expect.poll(() => inGroup().filter((c) => c.method === 'sendMessage').length, { timeout: 45_000, interval: 20 }).toBe(1);
    await expect.poll(() => asked.get(ask) ?? 0, { timeout: 30_000, interval: 20 }).toBe(2);
    await live!.kill('SIGKILL');
    const status = inGroup().find((c) => c.method === 'sendMessage')!;
    // The redone attempt answers once its own status has edited that message.
    holdAnswer(ask, () => inGroup().some((c) => c.method === 'editMessageText' || (c.method === 'sendMessage' && c !== status)));

    f.launch();
    await expect.poll(() => f.sent(ANSWER, GROUP), { timeout: 60_000, interval: 50 }).toBe(1);
    await expect.poll(() => inGroup().filter((c) => c.method === 'deleteMessage').length, { timeout: 30_000, interval: 50 }).toBe(1);
    await f.settled();

    const calls = inGroup();
    const sends = calls.filter((c) => c.method === 'sendMessage');
    // Two messages were ever sent to the group: the status, and the answer. The status is gone.
    expect(sends.map((c) => c.params.text)).toEqual([`${STATUS}\n📂 <code>list</code>`, ANSWER]);
    const edits = calls.filter((c) => c.method === 'editMessageText');
    const deletes = calls.filter((c) => c.method === 'deleteMessage');
    expect(edits.length).toBeGreaterThanOrEqual(1);
    expect(new Set([...edits, ...deletes].map((c) => c.params.message_id)).size).toBe(1);
    for (const e of edits) expect(String(e.params.text)).not.toContain(ANSWER);
    // The status was removed after the answer went out, the last change to the group's messages (the ack reaction's removal aside).
    expect(calls.indexOf(deletes[0]!)).toBeGreaterThan(calls.indexOf(sends[1]!));
    expect(calls.filter((c) => c.method !== 'setMessageReaction' && c.method !== 'sendChatAction').at(-1)!.method).toBe('deleteMessage');
    expect(asked.get(ask)).toBe(4);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'progress-sigkill'));
});
