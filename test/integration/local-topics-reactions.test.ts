// An agent per forum topic, status reactions and the users' reactions in local mode (#31), end to
// end: `npm start`'s fleet polls the fake Bot API; fran and grif run as real child processes. A
// forum's topic 3 is grif's, its General topic fran's; each answers in its own topic (General
// without a thread id, which Telegram refuses). The reaction on the user's message follows the
// turn to done — once, although grif's runtime is SIGKILLed mid-turn — and a user's reaction to
// grif's answer reaches grif as a note its next turn reads, never as a turn of its own.
import { rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tempDir } from '../support/temp-dirs.ts';
import { join } from 'node:path';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { heldAnswers } from '../support/held-answers.ts';
import { startFleet } from '../support/local-fleet.ts';

const TOKEN = '7000000032:AAlocal-topics-test-token-01234567';
const MODEL_KEY = 'sk-test-local-topics-model-0123456789';
const ANN = 42;
const FORUM = -1003200000000;
/** A second forum, for the SIGKILL: its reactions are paced apart from the first's (one in-between state per 3 s in a group). */
const FORUM2 = -1003200000002;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
let dir: string;
/** Each ask's model requests so far; an ask's answer may be held until the test lets it go. */
let answers: ReturnType<typeof heldAnswers>;
/** Which agent a request is from: its system prompt names it. */
const agentOf = (req: ModelRequest) => (JSON.stringify(req.body).includes('Grif') ? 'grif' : 'fran');

beforeAll(async () => {
  [tg, model] = await Promise.all([startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] }), startModel({ apiKey: MODEL_KEY })]);
  answers = heldAnswers(model);
  dir = tempDir('cf-topics-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list = [
    { id: 'fran', name: 'Fran', default: true },
    { id: 'grif', name: 'Grif' },
  ];
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  config.bindings = [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }];
  config.channels.telegram = {
    apiRoot: tg.url,
    dmPolicy: 'allowlist',
    allowFrom: [String(ANN)],
    groups: {
      [String(FORUM)]: { requireMention: false, topics: { '3': { agentId: 'grif' } } },
      [String(FORUM2)]: { requireMention: false, topics: { '3': { agentId: 'grif' } } },
    },
    streaming: 'off',
    statusReactions: { enabled: true },
    accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: TOKEN },
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY },
      'clawfleet/demo/agents/grif': { OPENAI_API_KEY: MODEL_KEY },
    }),
  );
  fleet = await startFleet({ dir, running: ['fran', 'grif'] });
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
  await Promise.all([tg?.close(), model?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A message from Ann in the forum: in topic `topic`, or in General. */
const inForum = (updateId: number, text: string, topic?: number, chatId = FORUM) =>
  textUpdate({
    updateId,
    messageId: updateId,
    chatId,
    chatType: 'supergroup',
    forum: true,
    fromId: ANN,
    text,
    ...(topic !== undefined ? { threadId: topic, topicMessage: true } : {}),
  });

/** The emoji the bot set on the user's message `messageId` in the forum, in order. */
const reactionsOn = (messageId: number, chatId = FORUM) =>
  tg
    .calls('setMessageReaction')
    .filter((c) => c.params.chat_id === chatId && c.params.message_id === messageId)
    .map((c) => ((c.params.reaction as { emoji: string }[] | undefined) ?? [])[0]?.emoji ?? '');

const answersIn = (text: string, chatId = FORUM) => tg.calls('sendMessage').filter((c) => c.params.chat_id === chatId && c.params.text === text);

describe('an agent per forum topic, in local mode', () => {
  it("answers topic 3 as grif, in topic 3, and General as fran, without a thread id; each user's message ends at done", { timeout: 90_000 }, async () => {
    answers.respond((req) => ({ text: `${agentOf(req)} here` }));
    tg.pushUpdate(TOKEN, inForum(301, 'who answers topic 3?', 3));
    await expect.poll(() => answersIn('grif here').length, { timeout: 45_000, interval: 50 }).toBe(1);
    expect(answersIn('grif here')[0]!.params.message_thread_id).toBe(3);
    tg.pushUpdate(TOKEN, inForum(302, 'who answers General?'));
    await expect.poll(() => answersIn('fran here').length, { timeout: 45_000, interval: 50 }).toBe(1);
    expect(answersIn('fran here')[0]!.params).not.toHaveProperty('message_thread_id');
    for (const id of [301, 302]) {
      await expect.poll(() => reactionsOn(id).at(-1), { timeout: 15_000, interval: 50 }).toBe('👍');
      expect(reactionsOn(id)[0]).toBe('👀');
      expect(reactionsOn(id).filter((e) => e === '👍')).toHaveLength(1);
    }
  });

  it('moves the reaction to done once, the reply once, although grif is SIGKILLed mid-turn; the redone turn\'s "thinking" does not come back', {
    timeout: 120_000,
  }, async () => {
    const ask = 'List the workspace, grif.';
    // 1. (held until the message shows "thinking") a tool call; 2. (first attempt) held for good: the runtime is killed;
    // 3. a tool call again; 4. the answer.
    answers.respond((_req, n) => (n === 1 || n === 3 ? { toolCalls: [{ name: 'list', arguments: { path: '.' } }] } : { text: 'Nothing much.' }));
    answers.hold(ask, 1, () => reactionsOn(303, FORUM2).includes('🤔'));
    answers.hold(ask, 2, () => false);
    const pid = fleet.supervisor.pid('grif')!;
    tg.pushUpdate(TOKEN, inForum(303, ask, 3, FORUM2));
    // Thinking shown, the tool called, the model asked again: kill -9.
    await expect.poll(() => answers.asked(ask), { timeout: 45_000, interval: 20 }).toBe(2);
    expect(reactionsOn(303, FORUM2).slice(0, 2)).toEqual(['👀', '🤔']);
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => answersIn('Nothing much.', FORUM2).length, { timeout: 90_000, interval: 50 }).toBe(1);
    await expect.poll(() => reactionsOn(303, FORUM2).at(-1), { timeout: 15_000, interval: 50 }).toBe('👍');
    expect(fleet.supervisor.pid('grif')).not.toBe(pid);
    const seen = reactionsOn(303, FORUM2);
    // Forward only, each state at most once (the redone turn's "thinking" was dropped), done once and last.
    const order = ['👀', '🤔', '🔥', '👍'];
    expect(seen.map((e) => order.indexOf(e))).toEqual([...seen.map((e) => order.indexOf(e))].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(answers.asked(ask)).toBe(4);
    expect(answersIn('Nothing much.', FORUM2)[0]!.params.message_thread_id).toBe(3);
  });

  it("brings Ann's reaction to grif's answer to grif as a note its next turn reads, without a turn of its own", { timeout: 90_000 }, async () => {
    answers.respond((req) => ({ text: `${agentOf(req)} saw: ${req.lastUserText.split('\n')[0]}` }));
    const answer = tg.messages(FORUM).find((m) => m.text === 'grif here')!;
    const before = model.requests().length;
    const reaction: Update = {
      update_id: 304,
      message_reaction: {
        chat: { id: FORUM, type: 'supergroup', title: 'Forum', is_forum: true },
        message_id: answer.message_id,
        user: { id: ANN, is_bot: false, first_name: 'Ann' },
        date: Math.floor(Date.now() / 1000),
        old_reaction: [],
        new_reaction: [{ type: 'emoji', emoji: '❤' }],
      },
    };
    tg.pushUpdate(TOKEN, reaction);
    tg.pushUpdate(TOKEN, inForum(305, 'anything new?', 3));
    const saw = `grif saw: [Reaction ❤ to your message ${answer.message_id} from "Ann"]`;
    await expect.poll(() => answersIn(saw).length, { timeout: 45_000, interval: 50 }).toBe(1);
    // One model request (the message's), none for the reaction; nothing answered to the reaction.
    expect(model.requests().slice(before)).toHaveLength(1);
    expect(model.requests().at(-1)!.lastUserText).toBe(`[Reaction ❤ to your message ${answer.message_id} from "Ann"]\nanything new?`);
    expect(tg.calls('getUpdates').at(-1)!.params.allowed_updates).toContain('message_reaction');
  });
});
