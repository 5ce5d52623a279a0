// The model API failing: 500s and 429s are retried with backoff (honouring retry-after);
// a model that keeps failing ends the turn with a plain failure note to the user, once,
// and the message is done with — not redelivered, not parked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

let f: FaultFleet;
let updateId = 3_000;

async function ask(from: number, text: string) {
  const res = await f.post(f.update(updateId++, from, text));
  expect(res.statusCode).toBe(200);
}
const requestsFor = (text: string) => f.model.requests().filter((q) => q.lastUserText === text);
const failureNotes = (chat: number) =>
  f.tg.calls('sendMessage').filter((c) => c.params.chat_id === chat && String(c.params.text).startsWith('⚠️ I could not answer that message'));

beforeAll(async () => {
  f = await startFaultFleet({ fleet: 'model', senders: [7201, 7202, 7203, 7204, 7205] });
  await f.launch().waitFor((l) => l.msg === 'ready', 30_000);
});

afterAll(() => f?.close());

describe('a model API that fails', () => {
  it.each([
    ['500s', 7201, 'after two 500s', [{ status: 500 }, { status: 500 }]],
    ['a 429', 7202, 'after a 429', [{ status: 429, headers: { 'retry-after': '1' } }]],
  ] as const)('is retried after %s, and the user gets the answer once', async (_failing, chat, text, errors) => {
    f.model.script(...errors.map((error) => ({ error })));
    await ask(chat, text);
    await expect.poll(() => f.sent(`echo: ${text}`, chat), { timeout: 20_000 }).toBe(1);
    // Each failed request, and the one answered.
    expect(requestsFor(text)).toHaveLength(errors.length + 1);
    expect(failureNotes(chat)).toHaveLength(0);
  });

  it('waits at least the Retry-After header of a 429 before asking again', async () => {
    // 3 s: longer than the first backoff (at most 1 s), so only the header can explain the wait.
    f.model.script({ error: { status: 429, headers: { 'retry-after': '3' } } });
    await ask(7205, 'after a 429 asking for 3 s');
    await expect.poll(() => f.sent('echo: after a 429 asking for 3 s', 7205), { timeout: 20_000 }).toBe(1);
    const [first, second] = requestsFor('after a 429 asking for 3 s');
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_990);
  });

  it('that keeps answering 500 ends the turn with one clear failure note to the user', async () => {
    f.model.script(...Array.from({ length: 3 }, () => ({ error: { status: 500 } })));
    await ask(7203, 'never answered (500)');
    await expect.poll(() => failureNotes(7203).length, { timeout: 20_000 }).toBe(1);
    const note = String(failureNotes(7203)[0]!.params.text);
    expect(note).toMatch(/500/);
    expect(note).toMatch(/try again/);
    expect(requestsFor('never answered (500)')).toHaveLength(3);
    // Done with: not redelivered (visibility is 3 s) and not parked.
    await f.settled();
    expect(failureNotes(7203)).toHaveLength(1);
    expect(requestsFor('never answered (500)')).toHaveLength(3);
    expect(await f.queueDepth(f.queues.fran!.inbox)).toBe(0);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
  });

  it('that keeps answering 429 ends the turn with one clear failure note to the user', async () => {
    f.model.script(...Array.from({ length: 3 }, () => ({ error: { status: 429, headers: { 'retry-after': '1' } } })));
    await ask(7204, 'never answered (429)');
    await expect.poll(() => failureNotes(7204).length, { timeout: 30_000 }).toBe(1);
    expect(String(failureNotes(7204)[0]!.params.text)).toMatch(/429/);
    expect(requestsFor('never answered (429)')).toHaveLength(3);
    // The next message in that session is answered normally.
    await ask(7204, 'and now?');
    await expect.poll(() => f.sent('echo: and now?', 7204), { timeout: 20_000 }).toBe(1);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'model-errors'));
});
