// Status reactions (#31): the reaction on the user's message follows the turn — queued → thinking →
// tool → done or error — set through the real Telegram sender against the fake Bot API (which
// takes only Telegram's reaction emoji, one at a time). Each state moves forward only, claimed on
// the origin before it is shown: a late or redelivered status never brings an earlier one back and
// a final one is set once; in-between states are paced per chat; a reaction that fails never
// holds up or doubles the reply. The emoji list is Telegram's, checked against grammY's types.
import { readFileSync, rmSync } from 'node:fs';
import type { ReactionTypeEmoji } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryInboundOrigins } from '../../shared/adapters/memory/in-memory-state.ts';
import { createBotApi } from '../../shared/adapters/telegram/bot-api.ts';
import { telegramSender } from '../../shared/adapters/telegram/telegram-sender.ts';
import { loadConfigFile, parseConfig } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { processOutboxRecord } from '../../shared/control/outbox.ts';
import { ReactionPacer } from '../../shared/control/status-reactions.ts';
import { handleTelegramWebhook } from '../../shared/control/telegram-webhook.ts';
import { ConfigError } from '../../shared/errors.ts';
import { memoryLogger } from '../../shared/log.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { TELEGRAM_REACTION_EMOJI } from '../../shared/telegram/reaction-emoji.ts';
import { assistantMessage, type ModelClient } from '../../runtime-image/src/model/model.ts';
import { defineTool } from '../../runtime-image/src/tools/tool.ts';
import { runTurn } from '../../runtime-image/src/turn/turn.ts';
import { turnRequestFor } from '../../runtime-image/src/turn/turn-request.ts';
import { faults, start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { franMessage, franTurnDeps } from '../support/fran-turn.ts';
import { memoryWebhook, WEBHOOK_SECRET } from '../support/memory-webhook.ts';
import { z } from 'zod';
import { memoryOutboxDeps } from '../support/outbox-deps.ts';

const TOKEN = '1000002:AAstatus-reactions-test-token-000';
const ANN = 4242;
const GROUP = -1004242000000;

// Compile time: our list and grammY's ReactionTypeEmoji union are the same set.
type Ours = (typeof TELEGRAM_REACTION_EMOJI)[number];
type Theirs = ReactionTypeEmoji['emoji'];
const sameSet: [Ours] extends [Theirs] ? ([Theirs] extends [Ours] ? true : false) : false = true;

function statusConfig(edit?: (raw: Record<string, any>) => void): FleetConfig {
  const raw = JSON.parse(JSON.stringify(loadConfigFile('clawfleet.json')));
  raw.channels.telegram.allowFrom = [String(ANN)];
  raw.channels.telegram.groups = { [String(GROUP)]: { requireMention: false } };
  raw.channels.telegram.statusReactions = { enabled: true };
  edit?.(raw);
  return parseConfig(raw);
}

let tg: FakeTelegram;
beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] });
});
afterAll(() => tg?.close());

/** The emoji the bot set on `messageId` in `chat`, in order ('' for cleared). */
const reactionsOn = (chat: number, messageId: number, from = 0) =>
  tg
    .calls('setMessageReaction')
    .slice(from)
    .filter((c) => c.params.chat_id === chat && c.params.message_id === messageId)
    .map((c) => ((c.params.reaction as { emoji: string }[] | undefined) ?? [])[0]?.emoji ?? '');

/** The webhook and the outbox over one set of in-memory state, sending through the fake Bot API; the clock is the test's. */
function plane(config: FleetConfig) {
  let now = 1_000;
  const clock = { now: () => now };
  const origins = new InMemoryInboundOrigins(clock.now);
  const sender = telegramSender(createBotApi({ apiRoot: tg.url, token: TOKEN }));
  const w = memoryWebhook(config, { origins, channel: async () => sender, clock });
  const log = memoryLogger();
  const { deps: outbox, dlq } = memoryOutboxDeps({
    config,
    origins,
    sessions: w.sessions,
    channel: async () => sender,
    reactionPacer: new ReactionPacer(),
    clock,
    log,
  });
  const source = 'arn:aws:sqs:us-east-1:000000000000:demo-outbox-fran.fifo';
  let n = 0;
  const out = (body: Record<string, unknown>) =>
    processOutboxRecord({ source, body: JSON.stringify({ v: PROTOCOL_VERSION, agentId: 'fran', ts: 1, ...body }), messageId: `m${++n}` }, outbox);
  const status = (inboundId: string, turn: string, more: Record<string, unknown> = {}) =>
    out({ kind: 'status', id: `${inboundId}.status.${turn}.${n}`, sessionKey: 'agent:fran:main', turn, inboundId, ...more });
  const reply = (inboundId: string, text: string, more: Record<string, unknown> = {}) =>
    out({ kind: 'reply', id: `${inboundId}.reply.0`, sessionKey: 'agent:fran:main', inReplyTo: inboundId, text, ...more });
  const post = (update: object) => handleTelegramWebhook({ accountId: 'fran', secretToken: WEBHOOK_SECRET, body: JSON.stringify(update) }, w.deps);
  return { w, origins, dlq, log, out, status, reply, post, advance: (ms: number) => void (now += ms) };
}

describe("Telegram's reaction emoji", () => {
  it("are exactly the Bot API's ReactionTypeEmoji list, as grammY's types give it", () => {
    expect(sameSet).toBe(true);
    const types = readFileSync('node_modules/@grammyjs/types/message.d.ts', 'utf8');
    const union = /export interface ReactionTypeEmoji \{[\s\S]*?emoji: ([^;]+);/.exec(types)![1]!;
    expect([...TELEGRAM_REACTION_EMOJI]).toEqual([...union.matchAll(/"([^"]+)"/g)].map((m) => m[1]));
    expect(TELEGRAM_REACTION_EMOJI).toHaveLength(73);
  });

  it('refuse in config an emoji Telegram would refuse, and take a keyboard\'s "❤️" as "❤"', () => {
    const problems = (edit: (raw: Record<string, any>) => void) => {
      try {
        statusConfig(edit);
        return [];
      } catch (err) {
        return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message.slice(0, 80)}`);
      }
    };
    expect(problems((raw) => (raw.channels.telegram.statusReactions.emojis = { done: '✅', thinking: '🧠' })).sort()).toEqual([
      expect.stringMatching(/^channels\.telegram\.statusReactions\.emojis\.done: must be one of the emoji Telegram takes as a reaction: 👍 👎 ❤ /),
      expect.stringMatching(/^channels\.telegram\.statusReactions\.emojis\.thinking: must be one of the emoji Telegram takes as a reaction: /),
    ]);
    expect(problems((raw) => (raw.channels.telegram.accounts.fran.ackReaction = '✅'))).toEqual([
      expect.stringMatching(/^channels\.telegram\.accounts\.fran\.ackReaction: must be one of the emoji Telegram takes/),
    ]);
    expect(problems((raw) => (raw.channels.telegram.statusReactions = { enabled: true, emojis: { done: '❤️', tool: '👨‍💻' }, stallSoft: '🥱' }))).toEqual([
      'channels.telegram.statusReactions.stallSoft: unknown key; the keys here are enabled, emojis',
    ]);
    expect(problems((raw) => (raw.channels.telegram.statusReactions.emojis = { done: '❤️', tool: '👨‍💻' }))).toEqual([]);
    expect(problems((raw) => (raw.channels.telegram.ackReaction = ''))).toEqual([]);
  });
});

describe('status reactions on the user’s message', () => {
  it('go queued → thinking → tool → done, one emoji at a time, and a late or redelivered status changes nothing', async () => {
    const p = plane(statusConfig());
    const from = tg.calls('setMessageReaction').length;
    const update = textUpdate({ updateId: 11, chatId: ANN, fromId: ANN, text: 'find it', messageId: 11 });
    expect((await p.post(update)).status).toBe(200);
    expect(p.w.queued()[0]).toMatchObject({ id: 'tg.fran.11', reportTools: true });
    expect(await p.origins.get('tg.fran.11')).toMatchObject({ statusReactions: true, messageId: 11 });
    expect(await p.origins.get('tg.fran.11')).not.toHaveProperty('ack');
    p.advance(2_000);
    await p.status('tg.fran.11', 'started');
    p.advance(2_000);
    await p.status('tg.fran.11', 'tool', { tool: 'read' });
    await p.reply('tg.fran.11', 'found it');
    // The started status that was on its way when the answer went, a redelivered reply, an ended status.
    await p.status('tg.fran.11', 'started');
    await p.status('tg.fran.11', 'tool');
    await p.reply('tg.fran.11', 'found it');
    await p.status('tg.fran.11', 'ended');
    expect(reactionsOn(ANN, 11, from)).toEqual(['👀', '🤔', '🔥', '👍']);
    expect(tg.calls('sendMessage').filter((c) => c.params.text === 'found it')).toHaveLength(1);
    // A retried update (its 200 lost) does not put "queued" back.
    await p.w.deps.dedupe.remember('unrelated', 0);
    p.w.deps.dedupe = { seen: async () => false, remember: async () => {} };
    expect((await p.post(update)).status).toBe(200);
    expect(reactionsOn(ANN, 11, from)).toEqual(['👀', '🤔', '🔥', '👍']);
    expect(p.dlq.letters).toEqual([]);
  });

  it('show error for a failed turn, done for one ended without a reply, and the configured emoji', async () => {
    const p = plane(statusConfig((raw) => (raw.channels.telegram.accounts.fran.statusReactions = { emojis: { done: '💯', queued: '👌' } })));
    const from = tg.calls('setMessageReaction').length;
    await p.post(textUpdate({ updateId: 12, chatId: ANN, fromId: ANN, text: 'a', messageId: 12 }));
    await p.post(textUpdate({ updateId: 13, chatId: ANN, fromId: ANN, text: 'b', messageId: 13 }));
    await p.reply('tg.fran.12', '⚠️ I could not answer that message (boom). Please try again in a moment.', { failed: true });
    await p.status('tg.fran.12', 'failed', { error: 'boom' });
    p.advance(2_000);
    await p.status('tg.fran.13', 'ended', { replied: false });
    expect(reactionsOn(ANN, 12, from)).toEqual(['👌', '😱']);
    expect(reactionsOn(ANN, 13, from)).toEqual(['👌', '💯']);
  });

  it('pace in-between states per chat (one a second here), and never hold back a final one', async () => {
    const p = plane(statusConfig());
    const from = tg.calls('setMessageReaction').length;
    await p.post(textUpdate({ updateId: 14, chatId: ANN, fromId: ANN, text: 'quick', messageId: 14 }));
    await p.status('tg.fran.14', 'started');
    p.advance(400);
    await p.status('tg.fran.14', 'tool');
    await p.reply('tg.fran.14', 'quick answer');
    expect(reactionsOn(ANN, 14, from)).toEqual(['👀', '🤔', '👍']);
    expect(p.log.lines.some((l) => String(l.msg).startsWith('status reaction skipped'))).toBe(true);
  });

  it('never holds up or doubles the reply when Telegram refuses a reaction, and pause after a 429', async () => {
    const p = plane(statusConfig());
    const from = tg.calls('setMessageReaction').length;
    await p.post(textUpdate({ updateId: 15, chatId: ANN, fromId: ANN, text: 'busy', messageId: 15 }));
    p.advance(2_000);
    tg.failNext('setMessageReaction', faults.tooManyRequests(30));
    await p.status('tg.fran.15', 'started');
    p.advance(2_000);
    // Paused for 30 s: "tool" is not even tried; the reply goes, and its "done" is tried once.
    await p.status('tg.fran.15', 'tool');
    tg.failNext('setMessageReaction', { error_code: 400, description: 'Bad Request: message to react not found' });
    await p.reply('tg.fran.15', 'still answered');
    await p.reply('tg.fran.15', 'still answered');
    expect(tg.calls('sendMessage').filter((c) => c.params.text === 'still answered')).toHaveLength(1);
    expect(reactionsOn(ANN, 15, from)).toEqual(['👀', '🤔', '👍']);
    expect(p.dlq.letters).toEqual([]);
    expect(p.log.lines.filter((l) => l.msg === 'status reaction not set')).toHaveLength(2);
  });

  it("never moves a reaction on another agent's message, nor one admitted without status reactions", async () => {
    const p = plane(statusConfig((raw) => (raw.channels.telegram.accounts.grif.statusReactions = { enabled: false })));
    const from = tg.calls('setMessageReaction').length;
    await p.post(textUpdate({ updateId: 16, chatId: ANN, fromId: ANN, text: 'mine', messageId: 16 }));
    await p.origins.put({ ...(await p.origins.get('tg.fran.16'))!, id: 'tg.grif.16', agentId: 'grif', sessionKey: 'agent:grif:main' });
    p.advance(2_000);
    await p.status('tg.grif.16', 'started');
    await p.reply('tg.grif.16', 'not yours');
    expect(reactionsOn(ANN, 16, from)).toEqual(['👀']);
    // With status reactions off the ack is as ever: set, then removed with the reply.
    const off = plane(statusConfig((raw) => (raw.channels.telegram.statusReactions = { enabled: false })));
    await off.post(textUpdate({ updateId: 17, chatId: ANN, fromId: ANN, text: 'plain', messageId: 17 }));
    expect(off.w.queued()[0]).not.toHaveProperty('reportTools');
    await off.status('tg.fran.17', 'started');
    await off.reply('tg.fran.17', 'plain answer');
    expect(reactionsOn(ANN, 17, from)).toEqual(['👀', '']);
  });
});

describe('the runtime’s side of status reactions', () => {
  /** A model that calls `calls` tools, one round each, then answers. */
  const model = (calls: number, fail = false): ModelClient => {
    let n = 0;
    return {
      label: 'scripted/test',
      contextWindow: 100_000,
      async complete() {
        n += 1;
        if (fail) return { ok: false, error: 'the provider is down', retriable: false };
        if (n <= calls) return { ok: true, message: assistantMessage('scripted/test', [{ type: 'toolCall', id: `c${n}`, name: 'look', arguments: {} }]) };
        return { ok: true, message: assistantMessage('scripted/test', [{ type: 'text', text: 'done looking' }]) };
      },
    };
  };
  const look = defineTool({ name: 'look', description: 'looks', schema: z.object({}), run: async () => ({ text: 'seen' }) });

  it('sends one tool status per attempt where the message asks, and marks a failure reply', async () => {
    const { deps, outbox } = franTurnDeps(model(3), { tools: () => [look] });
    const { deps: failing, outbox: failOut } = franTurnDeps(model(0, true));
    const { deps: plain, outbox: plainOut } = franTurnDeps(model(2), { tools: () => [look] });
    try {
      await runTurn(turnRequestFor(franMessage(1, 'look around', { reportTools: true })), deps, new AbortController().signal);
      const sent = outbox.queue.bodies().map((b) => JSON.parse(b));
      expect(sent.filter((e) => e.kind === 'status' && e.turn === 'tool')).toEqual([
        expect.objectContaining({ id: 'tg.fran.1.status.tool', inboundId: 'tg.fran.1', tool: 'look' }),
      ]);
      expect(sent.find((e) => e.kind === 'reply')).not.toHaveProperty('failed');
      await runTurn(turnRequestFor(franMessage(2, 'no tools')), plain, new AbortController().signal);
      expect(
        plainOut.queue
          .bodies()
          .map((b) => JSON.parse(b))
          .filter((e) => e.turn === 'tool'),
      ).toEqual([]);
      await runTurn(turnRequestFor(franMessage(3, 'fail', { reportTools: true })), failing, new AbortController().signal);
      expect(
        failOut.queue
          .bodies()
          .map((b) => JSON.parse(b))
          .find((e) => e.kind === 'reply'),
      ).toMatchObject({ failed: true });
    } finally {
      for (const d of [deps, failing, plain]) rmSync(d.workspace, { recursive: true, force: true });
    }
  });
});
