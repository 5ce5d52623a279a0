// Progress streaming end to end in one process (#31, OpenClaw's `streaming: "progress"`): while
// the agent works with tools, one status shows what it is doing — a draft bubble in a private chat,
// one status message edited in a group — and the answer then comes as a message of its own, the
// group's status removed once it is out. Whatever the status does, the answer arrives exactly once,
// also when the runtime dies mid-turn; a plain text answer shows no status at all; the status shows
// tool names and the model's own words, never arguments or secrets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROTOCOL_VERSION, type MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { defineTool, type AgentTool } from '../../runtime-image/src/tools/tool.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { toolLine } from '../../runtime-image/src/stream/progress-stream.ts';
import { chatPlane, PLANE_BOT_TOKEN, scriptedModel, type ModelStep } from '../support/chat-plane.ts';
import { start, type FakeTelegram } from '../support/fake-telegram.ts';
import { z } from 'zod';

const PRIVATE = '4242';
const GROUP = '-1001234';
const PROGRESS = { mode: 'progress' as const, minIntervalMs: 250 };
const ANSWER = 'The tests pass: **42** of them.';

let tg: FakeTelegram;
beforeAll(async () => {
  tg = await start({ bots: [{ token: PLANE_BOT_TOKEN, username: 'fran_bot' }] });
});
afterAll(() => tg.close());

const mark = () => tg.calls().length;
const callsTo = (chatId: string, from: number) =>
  tg
    .calls()
    .slice(from)
    .filter((c) => String(c.params.chat_id) === chatId);

async function until(done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A plane whose tools each wait, once called, until a new status has been handled (or the turn is stopped): work slower than the status's pace. */
function progressPlane(chatId: string, secrets: string[] = []) {
  const p = chatPlane(tg, chatId);
  const statuses = () => p.handled.filter((e) => e.kind === 'draft' && e.progress).length;
  const slow = (name: string): AgentTool =>
    defineTool({
      name,
      description: `a slow ${name}`,
      schema: z.object({ what: z.string().optional() }),
      async run(_args, ctx) {
        const before = statuses();
        await until(() => statuses() > before || ctx.signal.aborted, 10_000).catch(() => {});
        return `${name} done`;
      },
    });
  const tools = [slow('exec'), slow('web_search'), slow('graph__list_events')];
  const turn = (message: MessageEnvelope, signal: AbortSignal, ...script: ModelStep[]) =>
    runTurn(turnRequestFor(message), p.runtime(scriptedModel(...script), { tools: () => tools }, secrets), signal);
  return { ...p, statuses, turn };
}

const work: ModelStep[] = [
  { text: 'Running the tests, then checking the results.', calls: [{ name: 'exec', args: { what: 'npm test' } }] },
  { calls: [{ name: 'web_search', args: { what: 'flaky test' } }] },
  { calls: [{ name: 'web_search', args: { what: 'flaky test again' } }] },
  { text: ANSWER },
];

describe('progress streaming', () => {
  it('shows a status of the work in a private chat’s draft bubble, then sends the answer once as a message', async () => {
    const t0 = mark();
    const p = progressPlane(PRIVATE);
    const message = await p.admit(1, { stream: PROGRESS });
    expect(await p.turn(message, new AbortController().signal, ...work)).toBe('replied');

    const calls = callsTo(PRIVATE, t0);
    const drafts = calls.filter((c) => c.method === 'sendMessageDraft');
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    // The status: the model's words before its tools, then a line per run of calls, never the answer.
    expect(drafts[0]!.params.text).toBe('Running the tests, then checking the results.\n🛠️ <code>exec</code>');
    expect(drafts.at(-1)!.params.text).toMatch(/^Running the tests, then checking the results\.\n🛠️ <code>exec<\/code>\n🔎 <code>web_search<\/code>( ×2)?$/);
    for (const d of drafts) expect(String(d.params.text)).not.toContain('42');
    // One draft id for the status (Telegram animates its changes); the answer once, after it.
    expect(new Set(drafts.map((c) => c.params.draft_id)).size).toBe(1);
    const finals = calls.filter((c) => c.method === 'sendMessage');
    expect(finals.map((c) => c.params.text)).toEqual(['The tests pass: <b>42</b> of them.']);
    expect(calls.at(-1)!.method).toBe('sendMessage');
    expect(p.dlq.letters).toEqual([]);
  });

  it('in a group, sends one status message, edits it as the work goes on, sends the answer as a new message and then removes the status', async () => {
    const t0 = mark();
    const p = progressPlane(GROUP);
    const message = await p.admit(2, { stream: PROGRESS });
    await p.turn(message, new AbortController().signal, ...work);

    const calls = callsTo(GROUP, t0);
    expect(calls.filter((c) => c.method === 'sendMessageDraft')).toEqual([]);
    const status = (await p.origins.get(message.id))!.preview!;
    expect(status).toMatchObject({ progress: true, final: true });
    const [first, answer, ...more] = calls.filter((c) => c.method === 'sendMessage');
    expect(more).toEqual([]);
    expect(first!.params.text).toBe('Running the tests, then checking the results.\n🛠️ <code>exec</code>');
    expect(answer!.params.text).toBe('The tests pass: <b>42</b> of them.');
    // Every edit went to the status message; the answer was never edited into it.
    const edits = calls.filter((c) => c.method === 'editMessageText');
    expect(edits.length).toBeGreaterThanOrEqual(1);
    for (const e of edits) expect(e.params).toMatchObject({ message_id: status.messageId, text: expect.not.stringContaining('42') });
    // Removed once the answer was out: the last call to the chat.
    expect(calls.at(-1)).toMatchObject({ method: 'deleteMessage', params: { chat_id: Number(GROUP), message_id: status.messageId } });
    expect(calls.indexOf(calls.find((c) => c === answer)!)).toBeLessThan(calls.length - 1);
  });

  it('removes a group’s status when the turn ends without an answer (NO_REPLY)', async () => {
    const t0 = mark();
    const p = progressPlane(GROUP);
    const message = await p.admit(7, { stream: PROGRESS });
    expect(await p.turn(message, new AbortController().signal, work[0]!, work[1]!, { text: 'NO_REPLY' })).toBe('silent');
    const calls = callsTo(GROUP, t0);
    const status = (await p.origins.get(message.id))!.preview!;
    expect(status).toMatchObject({ progress: true, final: true });
    expect(calls.filter((c) => c.method === 'sendMessage').map((c) => c.params.text)).toEqual([
      'Running the tests, then checking the results.\n🛠️ <code>exec</code>',
    ]);
    expect(calls.at(-1)).toMatchObject({ method: 'deleteMessage', params: { message_id: status.messageId } });
  });

  it('shows no status for an answer without tool calls', async () => {
    const t0 = mark();
    const p = progressPlane(GROUP);
    await p.turn(await p.admit(3, { stream: PROGRESS }), new AbortController().signal, { text: 'Just words.', delayMs: 600 });
    expect(callsTo(GROUP, t0).map((c) => c.method)).toEqual(['sendMessage']);
    expect(p.handled.filter((e) => e.kind === 'draft')).toEqual([]);
  });

  it.each([
    ['a private chat', PRIVATE],
    ['a group', GROUP],
  ])('gives exactly one answer in %s when the runtime dies mid-work and the turn is redone', { timeout: 20_000 }, async (_name, chatId) => {
    const t0 = mark();
    const p = progressPlane(chatId);
    const message = await p.admit(4, { stream: PROGRESS });
    // First attempt: a status out, then the process is gone (nothing more leaves it) while its tool runs.
    const killed = new AbortController();
    const first = p.turn(message, killed.signal, { text: 'Looking.', calls: [{ name: 'exec' }] }, { calls: [{ name: 'exec' }] }, { text: 'never said' });
    await until(() => p.statuses() >= 1);
    killed.abort();
    expect(await first).toBe('aborted');
    // The message comes back to the next runtime, which does the work again.
    await p.turn(message, new AbortController().signal, ...work);

    const calls = callsTo(chatId, t0);
    expect(calls.filter((c) => String(c.params.text).includes('42'))).toHaveLength(1);
    expect(calls.some((c) => String(c.params.text).includes('never said'))).toBe(false);
    if (chatId === GROUP) {
      // One status message, reused by the redone turn, and removed once: the chat keeps only the answer.
      const sends = calls.filter((c) => c.method === 'sendMessage');
      expect(sends).toHaveLength(2);
      const status = (await p.origins.get(message.id))!.preview!.messageId;
      expect(new Set(calls.filter((c) => c.method === 'editMessageText').map((c) => c.params.message_id))).toEqual(new Set([status]));
      expect(calls.filter((c) => c.method === 'deleteMessage').map((c) => c.params.message_id)).toEqual([status]);
    }
    expect(calls.at(-1)!.method).toBe(chatId === GROUP ? 'deleteMessage' : 'sendMessage');
  });

  it('removes the status once when the reply is redelivered, and drops a status that arrives after the answer', async () => {
    const p = progressPlane(GROUP);
    const message = await p.admit(5, { stream: PROGRESS });
    await p.turn(message, new AbortController().signal, ...work);
    const t0 = mark();
    await p.deliver(p.handled.find((e) => e.kind === 'reply')!);
    await p.deliver({
      v: PROTOCOL_VERSION,
      kind: 'draft',
      id: `${message.id}.draft.late.9`,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      inReplyTo: message.id,
      seq: 9,
      ts: 1,
      text: 'Working…',
      progress: true,
    });
    expect(callsTo(GROUP, t0)).toEqual([]);
  });

  it('shows tool names and the model’s words only: never arguments, never a secret, never markup a tool name smuggles in', async () => {
    const secret = 'sk-live-0123456789abcdef';
    const t0 = mark();
    const p = progressPlane(PRIVATE, [secret]);
    await p.turn(
      await p.admit(6, { stream: PROGRESS }),
      new AbortController().signal,
      { text: `Using the key ${secret} to look.`, calls: [{ name: 'exec', args: { what: `curl -H "Authorization: ${secret}" https://x.example` } }] },
      { calls: [{ name: 'graph__list_events', args: { what: 'my calendar' } }] },
      { text: 'Done.' },
    );
    const texts = callsTo(PRIVATE, t0)
      .filter((c) => c.method === 'sendMessageDraft')
      .map((c) => String(c.params.text));
    expect(texts.length).toBeGreaterThanOrEqual(1);
    for (const t of texts) {
      expect(t).not.toMatch(/sk-live|0123456789|curl|Authorization|calendar/);
      expect(t).toMatch(/^Using the key \[redacted\] to look\./);
    }
    expect(texts.at(-1)).toContain('🔌 <code>graph: list_events</code>');
    // A name is cut to a tool name's characters: no markup, no link, no second line.
    expect(toolLine('x</code><a href="https://evil.example">y\n**z**')).toBe('🛠️ `xcodeahrefhttpsevil.exampleyz`');
  });
});
