// Streamed replies end to end in one process: a runtime turn whose model writes slowly sends
// drafts, each goes through the outbox core as λ outbox would take it, and the control plane's
// Telegram bot shows it on the fake Bot API (sendMessageDraft in a private chat, a preview
// message edited in a group). Whatever the drafts do, the final reply arrives exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import { PROTOCOL_VERSION, type MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { assistantMessage, type ModelClient } from '../../runtime-image/src/model/model.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { type TurnDeps } from '../../runtime-image/src/turn/turn-deps.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { start, faults, type FakeTelegram } from '../support/fake-telegram.ts';
import { chatPlane, PLANE_BOT_TOKEN } from '../support/chat-plane.ts';

const ANSWER = 'Here is **the plan**:\n\n- pack the bags\n- water the plants\n- lock the door\n\nSafe travels!';
const PRIVATE = '4242';
const GROUP = '-1001234';

let tg: FakeTelegram;
beforeAll(async () => {
  tg = await start({ bots: [{ token: PLANE_BOT_TOKEN, username: 'fran_bot' }] });
});
afterAll(() => tg.close());

/**
 * A model that writes `text` a few words at a time. After each piece it waits until the
 * control plane has handled a draft (or the turn is stopped), so the stream is as slow as the
 * drafts' pace and the test waits on events, not on the clock.
 */
function slowModel(text: string, drafted: () => number, stopAfterPieces?: number): ModelClient {
  return {
    label: 'scripted/slow',
    contextWindow: 100_000,
    async complete(req) {
      const words = text.split(/(?<=\s)/);
      const pieces = Array.from({ length: Math.ceil(words.length / 3) }, (_, i) => words.slice(i * 3, i * 3 + 3).join(''));
      let sofar = '';
      for (const [i, piece] of pieces.entries()) {
        sofar += piece;
        const before = drafted();
        req.onText?.(sofar);
        if (stopAfterPieces !== undefined && i + 1 >= stopAfterPieces && !req.signal?.aborted)
          await new Promise((r) => req.signal?.addEventListener('abort', r, { once: true }));
        if (req.signal?.aborted) return { ok: false, error: 'aborted', retriable: false };
        // A piece no draft follows (none is due) lets the model go on after a while: generous, so a busy machine's late draft still counts.
        await until(() => drafted() > before || req.signal?.aborted === true, 10_000).catch(() => {});
      }
      return { ok: true, message: assistantMessage('scripted/slow', [{ type: 'text', text }]) };
    },
  };
}

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The chat plane (support/chat-plane.ts) for a turn in `chatId`: Ann asks Fran to plan her trip, streamed as `stream` says. */
function plane(chatId: string) {
  const p = chatPlane(tg, chatId);
  const admit = (n: number, stream: MessageEnvelope['stream'] = { mode: 'partial', minIntervalMs: 250 }, ack?: { messageId: number; emoji: string }) =>
    p.admit(
      n,
      { text: 'plan my trip', from: { channel: 'telegram', accountId: 'fran', peerId: '4242' }, ...(stream ? { stream } : {}) },
      ack ? { messageId: ack.messageId, ack: ack.emoji } : {},
    );
  const drafts = () => p.handled.filter((e) => e.kind === 'draft' || e.kind === 'block').length;
  const runtime = (model: ModelClient, secrets: string[] = []): TurnDeps => p.runtime(model, {}, secrets);
  /** λ outbox taking one record from `from`'s queue as it was written (forged, late or handed out again). */
  const take = (body: object, from = 'fran', messageId = 'm') =>
    processOutboxRecord({ source: `demo-outbox-${from}.fifo`, body: JSON.stringify(body), messageId }, p.deps);
  return { deps: p.deps, dlq: p.dlq, origins: p.origins, handled: p.handled, drafts, admit, runtime, take };
}

/** Fran's reply to tg.fran.<n> as the runtime writes it (`more`: its buttons, …), for the outbox to take as it is. */
const replyTo = (n: number, text: string, more: Record<string, unknown> = {}) => ({
  v: PROTOCOL_VERSION,
  kind: 'reply',
  id: `tg.fran.${n}.reply.0`,
  agentId: 'fran',
  sessionKey: 'agent:fran:main',
  inReplyTo: `tg.fran.${n}`,
  ts: 1,
  text,
  ...more,
});

/** Where the fake Bot API's record stands now: calls after it are this test's (by order, not by clock: two calls can share a millisecond). */
const mark = () => tg.calls().length;
const callsTo = (chatId: string, from: number) =>
  tg
    .calls()
    .slice(from)
    .filter((c) => String(c.params.chat_id) === chatId);

describe('streamed replies', () => {
  it('shows a slow answer growing in a private chat, then sends it exactly once', async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(1);
    expect(await runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts)), new AbortController().signal)).toBe('replied');

    const calls = callsTo(PRIVATE, t0);
    const drafts = calls.filter((c) => c.method === 'sendMessageDraft');
    expect(drafts.length).toBeGreaterThanOrEqual(3);
    // One draft id for the whole answer (Telegram animates its changes), the text growing.
    expect(new Set(drafts.map((c) => c.params.draft_id)).size).toBe(1);
    const lengths = drafts.map((c) => String(c.params.text).length);
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    const finals = calls.filter((c) => c.method === 'sendMessage');
    expect(finals).toHaveLength(1);
    expect(finals[0]!.params).toMatchObject({ parse_mode: 'HTML', text: expect.stringContaining('<b>the plan</b>') });
    // Nothing of the drafts comes after the final message.
    expect(calls.at(-1)!.method).toBe('sendMessage');
    expect(p.dlq.letters).toEqual([]);
  });

  it('in a group, sends one preview message, edits it as the answer grows and turns it into the final reply', async () => {
    const t0 = mark();
    const p = plane(GROUP);
    const message = await p.admit(2);
    await runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts)), new AbortController().signal);

    const calls = callsTo(GROUP, t0);
    expect(calls.filter((c) => c.method === 'sendMessageDraft')).toEqual([]);
    const sends = calls.filter((c) => c.method === 'sendMessage');
    const edits = calls.filter((c) => c.method === 'editMessageText');
    // Exactly one message in the chat: the preview, which became the answer.
    expect(sends).toHaveLength(1);
    expect(new Set(edits.map((c) => c.params.message_id))).toEqual(new Set([(await p.origins.get('tg.fran.2'))!.preview!.messageId]));
    // The preview, then at least three drafts edited into it, each longer than the one before and none yet the whole answer…
    const draftEdits = edits.slice(0, -1);
    expect(draftEdits.length).toBeGreaterThanOrEqual(3);
    const lengths = [sends[0]!, ...draftEdits].map((c) => String(c.params.text).length);
    for (let i = 1; i < lengths.length; i++) expect(lengths[i]).toBeGreaterThan(lengths[i - 1]!);
    for (const c of [sends[0]!, ...draftEdits]) expect(c.params.text).not.toContain('Safe travels!');
    // …then exactly one final edit with the whole answer, the last call to the chat.
    expect(calls.filter((c) => String(c.params.text).includes('Safe travels!'))).toHaveLength(1);
    expect(calls.at(-1)).toBe(edits.at(-1));
    expect(edits.at(-1)!.params).toMatchObject({ parse_mode: 'HTML', text: expect.stringContaining('<b>the plan</b>') });
    expect(edits.at(-1)!.params.text).toContain('Safe travels!');
    expect((await p.origins.get('tg.fran.2'))!.preview!.final).toBe(true);
  });

  it.each([
    ['a private chat', PRIVATE],
    ['a group', GROUP],
  ])('still gives exactly one final message in %s when the runtime dies mid-stream and the turn is redone', { timeout: 90_000 }, async (_name, chatId) => {
    {
      const t0 = mark();
      const p = plane(chatId);
      const message = await p.admit(3);
      // First attempt: two drafts out, then the process is gone (nothing more leaves it).
      const killed = new AbortController();
      const first = runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts, 4)), killed.signal);
      await until(() => p.drafts() >= 2, 20_000);
      killed.abort();
      expect(await first).toBe('aborted');
      // The message is redelivered to the next runtime, which does the turn again.
      await runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts)), new AbortController().signal);

      const calls = callsTo(chatId, t0);
      // One message in the chat (in a group: the first attempt's preview, reused by the redone turn)…
      expect(calls.filter((c) => c.method === 'sendMessage')).toHaveLength(1);
      // …given the whole answer once.
      const finals = calls.filter((c) => c.method !== 'sendMessageDraft' && String(c.params.text).includes('Safe travels!'));
      expect(finals).toHaveLength(1);
    }
  });

  it('slows drafts down on a 429: none is shown while the chat says wait, and they resume after it', { timeout: 90_000 }, async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(8);
    tg.failNext('sendMessageDraft', faults.tooManyRequests(1));
    // Long enough to write for well over the second the chat asks for.
    const long = Array.from({ length: 45 }, (_, i) => `word${i}`).join(' ');
    await runTurn(turnRequestFor(message), p.runtime(slowModel(long, p.drafts)), new AbortController().signal);

    const drafts = callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessageDraft');
    const [refused, ...shown] = drafts;
    expect(shown.length).toBeGreaterThanOrEqual(1);
    // Not one draft reached the chat within the second after the 429; the first after it came once the wait was over.
    for (const c of shown) expect(c.at - refused!.at).toBeGreaterThanOrEqual(1_000);
    // The runtime kept writing drafts meanwhile: the ones due during the pause were dropped, not queued or sent late.
    const envelopes = p.handled.filter((e) => e.kind === 'draft');
    const duringPause = envelopes.filter((e) => e.ts > refused!.at && e.ts < refused!.at + 1_000);
    expect(duringPause.length).toBeGreaterThanOrEqual(2);
    expect(drafts.length).toBeLessThan(envelopes.length);
    expect(callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage')).toHaveLength(1);
  });

  it('does not delay the final reply when a 429 pauses the drafts', async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(4);
    tg.failNext('sendMessageDraft', faults.tooManyRequests(30));
    const model = slowModel(ANSWER, p.drafts);
    let written = 0;
    const timed: ModelClient = { ...model, complete: async (req) => model.complete(req).finally(() => (written = Date.now())) };
    await runTurn(turnRequestFor(message), p.runtime(timed), new AbortController().signal);
    const calls = callsTo(PRIVATE, t0);
    const [refused, ...more] = calls.filter((c) => c.method === 'sendMessageDraft');
    // The refused draft was the only one tried: the chat's drafts are paused for 30 s, every later one dropped…
    expect(more).toEqual([]);
    expect(p.handled.filter((e) => e.kind === 'draft' && e.ts > refused!.at).length).toBeGreaterThanOrEqual(2);
    // …while the reply went out as soon as the model was done, well inside the pause, not after it.
    const finals = calls.filter((c) => c.method === 'sendMessage');
    expect(finals).toHaveLength(1);
    // (A generous bound: half the pause tells "at once" from "after the pause" on however busy a machine.)
    expect(finals[0]!.at - written).toBeLessThan(15_000);
    expect(finals[0]!.at).toBeLessThan(refused!.at + 30_000);
  });

  it('never shows a secret of the agent, not even its first characters while it is being written', async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(5);
    const secret = 'sk-live-0123456789abcdef';
    await runTurn(
      turnRequestFor(message),
      p.runtime(slowModel(`The key is ${secret} and that is all there is to say about it.`, p.drafts), [secret]),
      new AbortController().signal,
    );
    const texts = callsTo(PRIVATE, t0).map((c) => String(c.params.text));
    expect(texts.length).toBeGreaterThanOrEqual(2);
    for (const text of texts) expect(text).not.toMatch(/sk-live|0123456789/);
  });

  it('drops a draft that arrives after its reply replaced the preview', async () => {
    const p = plane(GROUP);
    const message = await p.admit(7);
    await runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts)), new AbortController().signal);
    const t0 = mark();
    const late = {
      v: PROTOCOL_VERSION,
      kind: 'draft',
      id: 'tg.fran.7.draft.late',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      inReplyTo: 'tg.fran.7',
      seq: 99,
      ts: 1,
      text: 'Here is',
    };
    await p.take(late);
    expect(callsTo(GROUP, t0)).toEqual([]);
  });
});

describe('acknowledgement and threading on the Bot API', () => {
  it('clears the ack reaction once the reply is sent, and threads the reply to the user message where configured', async () => {
    const p = plane(PRIVATE);
    p.deps.config.channels.telegram!.replyToMode = 'first';
    await p.origins.put({
      id: 'tg.fran.20',
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: { channel: 'telegram', accountId: 'fran', chatId: PRIVATE },
      createdAt: 1,
      expiresAt: Date.now() + 60_000,
      messageId: 77,
      ack: '👀',
    });
    const t0 = mark();
    const reply = replyTo(20, `${'a'.repeat(4000)}\n\n${'b'.repeat(100)}`);
    await p.take(reply);
    const calls = callsTo(PRIVATE, t0);
    const sends = calls.filter((c) => c.method === 'sendMessage');
    expect(sends).toHaveLength(2);
    expect(sends[0]!.params.reply_parameters).toEqual({ message_id: 77, allow_sending_without_reply: true });
    expect(sends[1]!.params.reply_parameters).toBeUndefined();
    expect(calls.at(-1)).toMatchObject({ method: 'setMessageReaction', params: { message_id: 77, reaction: [] } });
  });
});

describe('replyToMode "all" on the Bot API', () => {
  const threaded = { message_id: 78, allow_sending_without_reply: true };

  it('threads every part of a multi-part reply to the user’s message, and the account’s own "off" overrides the channel’s "all"', async () => {
    const p = plane(PRIVATE);
    p.deps.config.channels.telegram!.replyToMode = 'all';
    const origin = {
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: { channel: 'telegram', accountId: 'fran', chatId: PRIVATE },
      createdAt: 1,
      expiresAt: Date.now() + 60_000,
      messageId: 78,
    } as const;
    // Three parts: Telegram takes 4096 characters a message.
    const reply = (n: number) => replyTo(n, `${'a'.repeat(4000)}\n\n${'b'.repeat(4000)}\n\n${'c'.repeat(100)}`);
    await p.origins.put({ ...origin, id: 'tg.fran.21' });
    const t0 = mark();
    await p.take(reply(21));
    const sends = callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage');
    expect(sends.map((c) => String(c.params.text)[0])).toEqual(['a', 'b', 'c']);
    expect(sends.map((c) => c.params.reply_parameters)).toEqual([threaded, threaded, threaded]);

    p.deps.config.channels.telegram!.accounts.fran!.replyToMode = 'off';
    await p.origins.put({ ...origin, id: 'tg.fran.22' });
    const t1 = mark();
    await p.take(reply(22));
    const unthreaded = callsTo(PRIVATE, t1).filter((c) => c.method === 'sendMessage');
    expect(unthreaded).toHaveLength(3);
    expect(unthreaded.map((c) => c.params.reply_parameters)).toEqual([undefined, undefined, undefined]);
  });

  it('threads every block of a block-streamed answer and the reply’s rest', async () => {
    const p = plane(PRIVATE);
    p.deps.config.channels.telegram!.replyToMode = 'all';
    const message = await p.admit(36, BLOCK_STREAM, { messageId: 78, emoji: '👀' });
    const blocks = () => p.handled.filter((e) => e.kind === 'block').length;
    const t0 = mark();
    await runTurn(turnRequestFor(message), p.runtime(paragraphModel(PARAGRAPHS, blocks)), new AbortController().signal);
    const sends = callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage');
    expect(sends).toHaveLength(4);
    expect(sends.map((c) => c.params.reply_parameters)).toEqual([threaded, threaded, threaded, threaded]);
  });
});

describe('replyToMode with a streamed answer in a group', () => {
  it.each(['first', 'all'] as const)('threads the preview message under "%s": it becomes the answer, so the answer is threaded', async (mode) => {
    const p = plane(GROUP);
    p.deps.config.channels.telegram!.replyToMode = mode;
    const message = await p.admit(mode === 'first' ? 37 : 38, undefined, { messageId: 79, emoji: '👀' });
    const t0 = mark();
    await runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts)), new AbortController().signal);
    const calls = callsTo(GROUP, t0);
    const sends = calls.filter((c) => c.method === 'sendMessage');
    expect(sends).toHaveLength(1);
    expect(sends[0]!.params.reply_parameters).toEqual({ message_id: 79, allow_sending_without_reply: true });
    expect(calls.filter((c) => c.method === 'editMessageText').at(-1)!.params.text).toContain('Safe travels!');
  });

  it('leaves the preview unthreaded under "off"', async () => {
    const p = plane(GROUP);
    const message = await p.admit(39, undefined, { messageId: 80, emoji: '👀' });
    const t0 = mark();
    await runTurn(turnRequestFor(message), p.runtime(slowModel(ANSWER, p.drafts)), new AbortController().signal);
    const sends = callsTo(GROUP, t0).filter((c) => c.method === 'sendMessage');
    expect(sends).toHaveLength(1);
    expect(sends[0]!.params.reply_parameters).toBeUndefined();
  });
});

describe('inline buttons on the Bot API', () => {
  it('puts the buttons under the last part of the reply, as callback buttons', async () => {
    const p = plane(PRIVATE);
    await p.admit(50);
    const t0 = mark();
    const reply = replyTo(50, `${'a'.repeat(4090)}\n\nWhich day?`, { buttons: [[{ text: 'Saturday', data: 'day:sat' }]] });
    await p.take(reply);
    const sends = callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage');
    expect(sends).toHaveLength(2);
    expect(sends[0]!.params.reply_markup).toBeUndefined();
    expect(sends[1]!.params.reply_markup).toEqual({ inline_keyboard: [[{ text: 'Saturday', callback_data: 'day:sat' }]] });
  });

  it('refuses buttons Telegram would refuse (data over 64 bytes) into the DLQ, sending nothing', async () => {
    const p = plane(PRIVATE);
    await p.admit(51);
    const t0 = mark();
    const reply = replyTo(51, 'pick', { buttons: [[{ text: 'x', data: 'd'.repeat(65) }]] });
    await p.take(reply);
    expect(p.dlq.letters[0]?.reason).toMatch(/^ENVELOPE_INVALID: .*buttons/);
    expect(callsTo(PRIVATE, t0)).toEqual([]);
  });
});

/**
 * A model that writes `paragraphs` one at a time, joined by blank lines. Once the first of a
 * paragraph is out, the one before it is a completed block: it waits until the control plane
 * has handled that block (or the turn is stopped), so the test waits on events, not the clock.
 */
function paragraphModel(paragraphs: string[], blocks: () => number, stopAfter?: number): ModelClient {
  return {
    label: 'scripted/paragraphs',
    contextWindow: 100_000,
    async complete(req) {
      for (let i = 0; i < paragraphs.length; i++) {
        req.onText?.(paragraphs.slice(0, i + 1).join('\n\n'));
        if (stopAfter !== undefined && i + 1 >= stopAfter && !req.signal?.aborted)
          await new Promise((r) => req.signal?.addEventListener('abort', r, { once: true }));
        if (req.signal?.aborted) return { ok: false, error: 'aborted', retriable: false };
        if (i > 0) await until(() => blocks() >= i || req.signal?.aborted === true, 20_000);
      }
      return { ok: true, message: assistantMessage('scripted/paragraphs', [{ type: 'text', text: paragraphs.join('\n\n') }]) };
    },
  };
}

const PARAGRAPHS = [
  'Here is the plan for the trip.',
  // A blank line inside a code block, and inside a list item: neither is a place to cut.
  '```sh\npack --bags\n\nwater --plants\n```',
  '- lock the door\n\n  twice, to be sure\n- leave the key',
  'Safe travels!',
];
const BLOCK_STREAM = { mode: 'block', minIntervalMs: 1_000, block: { minChars: 10, maxChars: 800 } } as const;

describe('block streaming', () => {
  it('sends each completed block as its own message while the model writes, and the reply only what no block said', async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(30, BLOCK_STREAM);
    const blocks = () => p.handled.filter((e) => e.kind === 'block').length;
    expect(await runTurn(turnRequestFor(message), p.runtime(paragraphModel(PARAGRAPHS, blocks)), new AbortController().signal)).toBe('replied');

    const calls = callsTo(PRIVATE, t0);
    expect(calls.filter((c) => c.method === 'sendMessageDraft')).toEqual([]);
    const texts = calls.filter((c) => c.method === 'sendMessage').map((c) => String(c.params.text));
    expect(texts).toHaveLength(4);
    expect(texts[0]).toBe('Here is the plan for the trip.');
    // The code block whole, its blank line kept; the list item with its second paragraph.
    expect(texts[1]).toMatch(/^<pre><code[^>]*>pack --bags\n\nwater --plants\n?<\/code><\/pre>$/);
    expect(texts[2]).toContain('lock the door');
    expect(texts[2]).toContain('twice, to be sure');
    expect(texts[2]).toContain('leave the key');
    expect(texts[3]).toBe('Safe travels!');
    // Blocks went out while the model wrote (each before the next paragraph was written), then the reply.
    const kinds = p.handled.filter((e) => e.kind === 'block' || e.kind === 'reply');
    expect(kinds.map((e) => e.kind)).toEqual(['block', 'block', 'block', 'reply']);
    expect(kinds.at(-1)).toMatchObject({ kind: 'reply', text: 'Safe travels!', afterBlocks: 3 });
    expect(p.dlq.letters).toEqual([]);
  });

  it('sends nothing again when the finished turn is redelivered: the reply is re-sent byte-identical and every id was delivered once', async () => {
    const p = plane(PRIVATE);
    const message = await p.admit(31, BLOCK_STREAM);
    const blocks = () => p.handled.filter((e) => e.kind === 'block').length;
    const runtime = p.runtime(paragraphModel(PARAGRAPHS, blocks));
    await runTurn(turnRequestFor(message), runtime, new AbortController().signal);
    const first = p.handled.find((e) => e.kind === 'reply');
    const t0 = mark();
    // The runtime died before deleting the message: the turn comes again, and SQS hands every record out again.
    expect(await runTurn(turnRequestFor(message), runtime, new AbortController().signal)).toBe('resent');
    expect(p.handled.filter((e) => e.kind === 'reply').at(-1)).toEqual(first);
    for (const e of [...p.handled]) await p.take(e, 'fran', `again.${e.id}`);
    expect(callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage')).toEqual([]);
  });

  it('when the runtime dies after block 2 of 4, the redone turn sends its own blocks under new ids and one final reply; no id is delivered twice', async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(32, BLOCK_STREAM);
    const blocks = () => p.handled.filter((e) => e.kind === 'block').length;
    const killed = new AbortController();
    const first = runTurn(turnRequestFor(message), p.runtime(paragraphModel(PARAGRAPHS, blocks, 3)), killed.signal);
    await until(() => blocks() >= 2, 20_000);
    killed.abort();
    expect(await first).toBe('aborted');
    const dead = p.handled.filter((e) => e.kind === 'block').map((e) => e.id);
    expect(dead).toHaveLength(2);

    await runTurn(turnRequestFor(message), p.runtime(paragraphModel(PARAGRAPHS, () => blocks() - 2)), new AbortController().signal);
    const redone = p.handled
      .filter((e) => e.kind === 'block')
      .map((e) => e.id)
      .slice(2);
    expect(redone).toHaveLength(3);
    expect(redone.filter((id) => dead.includes(id))).toEqual([]);
    // The user sees the first two blocks twice (the model wrote them again), as with OpenClaw; the answer's end once.
    const texts = callsTo(PRIVATE, t0)
      .filter((c) => c.method === 'sendMessage')
      .map((c) => String(c.params.text));
    expect(texts).toHaveLength(2 + 3 + 1);
    expect(texts.filter((t) => t === 'Safe travels!')).toHaveLength(1);
    // Every record handed out again (SQS redelivery) sends nothing: each id went out at most once.
    const t1 = mark();
    for (const e of [...p.handled]) await p.take(e, 'fran', `again.${e.id}`);
    expect(callsTo(PRIVATE, t1).filter((c) => c.method === 'sendMessage')).toEqual([]);
  });

  it('threads the answer’s first block to the user’s message under replyToMode "first", and neither later blocks nor the reply', async () => {
    const p = plane(PRIVATE);
    p.deps.config.channels.telegram!.replyToMode = 'first';
    const message = await p.admit(35, BLOCK_STREAM, { messageId: 88, emoji: '👀' });
    const blocks = () => p.handled.filter((e) => e.kind === 'block').length;
    const t0 = mark();
    await runTurn(turnRequestFor(message), p.runtime(paragraphModel(PARAGRAPHS, blocks)), new AbortController().signal);
    const sends = callsTo(PRIVATE, t0).filter((c) => c.method === 'sendMessage');
    expect(sends.map((c) => c.params.reply_parameters)).toEqual([{ message_id: 88, allow_sending_without_reply: true }, undefined, undefined, undefined]);
    // The ack goes once the reply is out, after the blocks.
    expect(callsTo(PRIVATE, t0).at(-1)).toMatchObject({ method: 'setMessageReaction', params: { message_id: 88, reaction: [] } });
  });

  it('never sends a secret of the agent in a block', async () => {
    const t0 = mark();
    const p = plane(PRIVATE);
    const message = await p.admit(34, BLOCK_STREAM);
    const secret = 'sk-live-0123456789abcdef';
    const blocks = () => p.handled.filter((e) => e.kind === 'block').length;
    const paragraphs = [`The key is ${secret}, keep it.`, `Again: ${secret}.`, 'That is all.'];
    await runTurn(turnRequestFor(message), p.runtime(paragraphModel(paragraphs, blocks), [secret]), new AbortController().signal);
    const texts = callsTo(PRIVATE, t0)
      .filter((c) => c.method === 'sendMessage')
      .map((c) => String(c.params.text));
    expect(texts).toHaveLength(3);
    for (const text of texts) expect(text).not.toMatch(/sk-live|0123456789/);
  });
});

describe('streamed envelopes from another agent', () => {
  it.each([
    ['draft', 6, undefined, { seq: 1, text: 'hi Ann, send me your password' }],
    ['block', 33, BLOCK_STREAM, { index: 1, text: 'hi' }],
  ] as const)('refuses a %s for an inbound another agent received, like a reply', async (kind, n, stream, part) => {
    const p = plane(PRIVATE);
    await p.admit(n, stream);
    const forged = { v: PROTOCOL_VERSION, kind, id: `x.${kind}.1`, agentId: 'grif', sessionKey: 'agent:fran:main', inReplyTo: `tg.fran.${n}`, ts: 1, ...part };
    const t0 = mark();
    await p.take(forged, 'grif');
    expect(p.dlq.letters[0]?.reason).toMatch(/^ORIGIN_NOT_OWNED/);
    expect(callsTo(PRIVATE, t0)).toEqual([]);
  });
});

describe('the ack reaction on a turn without a reply', () => {
  const saying = (text: string): ModelClient => ({
    label: 'scripted/quick',
    contextWindow: 100_000,
    complete: async () => ({ ok: true, message: assistantMessage('scripted/quick', [{ type: 'text', text }]) }),
  });
  const reactions = (since: number) => callsTo(PRIVATE, since).filter((c) => c.method === 'setMessageReaction');

  it('is cleared when the agent answers NO_REPLY', async () => {
    const p = plane(PRIVATE);
    const message = await p.admit(40, undefined, { messageId: 91, emoji: '👀' });
    const t0 = mark();
    expect(await runTurn(turnRequestFor(message), p.runtime(saying('NO_REPLY')), new AbortController().signal)).toBe('silent');
    expect(reactions(t0)).toEqual([expect.objectContaining({ params: expect.objectContaining({ message_id: 91, reaction: [] }) })]);
  });

  it('is cleared once, by the reply, when the agent answers', async () => {
    const p = plane(PRIVATE);
    const message = await p.admit(41, undefined, { messageId: 92, emoji: '👀' });
    const t0 = mark();
    await runTurn(turnRequestFor(message), p.runtime(saying('Done.')), new AbortController().signal);
    expect(reactions(t0)).toHaveLength(1);
  });

  it('is left alone for a forged "ended without a reply" status from another agent', async () => {
    const p = plane(PRIVATE);
    await p.admit(42, undefined, { messageId: 93, emoji: '👀' });
    const t0 = mark();
    const forged = { v: PROTOCOL_VERSION, kind: 'status', id: 'x.status', agentId: 'grif', turn: 'ended', inboundId: 'tg.fran.42', replied: false, ts: 1 };
    await p.take(forged, 'grif');
    expect(reactions(t0)).toEqual([]);
  });
});
