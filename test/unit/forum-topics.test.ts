// An agent per forum topic (#31): bindings for a topic and `groups.<id>.topics.<topicId>` route a
// topic to its own agent, session and rules, and only a topic message names a topic. The hostile
// cases: a thread id without is_topic_message (a reply thread anyone can start), a reply thread
// in a plain group whose id is a bound topic's, a sender outside the topic's allowFrom, and the
// General topic (no thread id on the wire; topic 1 in config and session keys; never sent to as thread 1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBotApi } from '../../shared/adapters/telegram/bot-api.ts';
import { telegramSender } from '../../shared/adapters/telegram/telegram-sender.ts';
import { loadConfigFile, parseConfig } from '../../shared/config/load.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { handleTelegramWebhook } from '../../shared/control/telegram-webhook.ts';
import { ConfigError } from '../../shared/errors.ts';
import { route } from '../../shared/routing/route.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { memoryWebhook, WEBHOOK_SECRET } from '../support/memory-webhook.ts';

const FORUM = -1001234000000;
const PLAIN = -1009999000000;
const ANN = 4242;
const BOB = 5151;

/** fran's bot in a forum: topic 3 is grif's (Ann only, no mention needed), topic 5 jerry's by a binding, General (1) ray's. */
function forumConfig(edit?: (raw: Record<string, any>) => void): FleetConfig {
  const raw = JSON.parse(JSON.stringify(loadConfigFile('clawfleet.json')));
  raw.channels.telegram.groups = {
    [String(FORUM)]: {
      requireMention: true,
      allowFrom: [String(ANN), String(BOB)],
      topics: {
        '3': { agentId: 'grif', requireMention: false, allowFrom: [String(ANN)] },
        '1': { agentId: 'ray' },
        '*': { requireMention: false },
      },
    },
    [String(PLAIN)]: { requireMention: false },
  };
  raw.bindings.unshift(
    { agentId: 'jerry', match: { channel: 'telegram', accountId: 'fran', peer: { kind: 'group', id: String(FORUM), topic: 5 } } },
    { agentId: 'jerry', match: { channel: 'telegram', accountId: 'fran', peer: { kind: 'group', id: String(PLAIN), topic: 3 } } },
  );
  edit?.(raw);
  return parseConfig(raw);
}

const post = (deps: ReturnType<typeof memoryWebhook>['deps'], update: object) =>
  handleTelegramWebhook({ accountId: 'fran', secretToken: WEBHOOK_SECRET, body: JSON.stringify(update) }, deps);

/** A message in the forum: in topic `topic` (a topic message), or with only a thread id (`thread`), or in General (neither). */
const inForum = (updateId: number, from: number, text: string, where: { topic?: number; thread?: number } = {}) =>
  textUpdate({
    updateId,
    chatId: FORUM,
    chatType: 'supergroup',
    forum: true,
    fromId: from,
    text,
    ...(where.topic !== undefined ? { threadId: where.topic, topicMessage: true } : where.thread !== undefined ? { threadId: where.thread } : {}),
  });

/** Every agent's queued envelopes, by agent. */
const everything = (w: ReturnType<typeof memoryWebhook>) => Object.fromEntries(['jerry', 'fran', 'grif', 'ray'].map((a) => [a, w.queued(a)]));

describe('routing a forum topic', () => {
  const peer = (topicId?: number, id = String(FORUM)) => ({ channel: 'telegram' as const, accountId: 'fran', kind: 'group' as const, id, topicId });

  it("a topic binding wins over the topic's agentId, which wins over the group's and the account's", () => {
    const config = forumConfig((raw) => {
      raw.bindings.unshift({ agentId: 'fran', match: { channel: 'telegram', peer: { kind: 'group', id: String(FORUM) } } });
    });
    expect(route(config, peer(5))).toEqual({ agentId: 'jerry', matchedBy: 'topic', sessionKey: `agent:jerry:telegram:group:${FORUM}:topic:5` });
    expect(route(config, peer(3))).toEqual({ agentId: 'grif', matchedBy: 'topic', sessionKey: `agent:grif:telegram:group:${FORUM}:topic:3` });
    expect(route(config, peer(1))).toMatchObject({ agentId: 'ray', matchedBy: 'topic' });
    // A topic with no agent of its own: the group's binding, in a session of the topic's own.
    expect(route(config, peer(7))).toEqual({ agentId: 'fran', matchedBy: 'peer', sessionKey: `agent:fran:telegram:group:${FORUM}:topic:7` });
    expect(route(config, peer(undefined))).toMatchObject({ agentId: 'fran', matchedBy: 'peer' });
  });

  it('a topic binding matches that topic only, never the group as a whole or another topic', () => {
    const config = forumConfig();
    expect(route(config, peer(undefined, String(PLAIN)))).toMatchObject({ agentId: 'fran', matchedBy: 'account' });
    expect(route(config, peer(4, String(PLAIN)))).toMatchObject({ agentId: 'fran', matchedBy: 'account' });
    expect(route(config, peer(3, String(PLAIN)))).toMatchObject({ agentId: 'jerry', matchedBy: 'topic' });
  });

  it('refuses a topic on a direct peer, a topic key that is not an id, an unknown agent, and a topic given two agents', () => {
    const problems = (edit: (raw: Record<string, any>) => void) => {
      try {
        forumConfig(edit);
        return [];
      } catch (err) {
        return (err as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
      }
    };
    expect(problems((raw) => raw.bindings.push({ agentId: 'fran', match: { channel: 'telegram', peer: { kind: 'direct', id: '42', topic: 3 } } }))).toEqual([
      expect.stringMatching(/^bindings\[6\]\.match\.peer\.topic: a topic belongs to a group/),
    ]);
    expect(problems((raw) => (raw.channels.telegram.groups[String(FORUM)].topics.General = { agentId: 'ray' }))).toEqual([
      expect.stringContaining('must be a topic id (a positive number; 1 is General) or "*"'),
    ]);
    expect(problems((raw) => (raw.channels.telegram.groups[String(FORUM)].topics['9'] = { agentId: 'nobody' }))).toEqual([
      `channels.telegram.groups.${FORUM}.topics.9.agentId: no agent "nobody"`,
    ]);
    expect(problems((raw) => (raw.channels.telegram.groups[String(FORUM)].topics['5'] = { agentId: 'grif' }))).toEqual([
      expect.stringContaining(`topic 5 is bound to agent "jerry" by bindings[0], which wins over "grif" here`),
    ]);
    expect(problems((raw) => raw.bindings.push({ agentId: 'fran', match: { channel: 'telegram', peer: { kind: 'group', id: '-1', topic: 0 } } }))).toEqual([
      expect.stringMatching(/^bindings\[6\]\.match\.peer\.topic: /),
    ]);
  });
});

describe('admitting a message in a forum topic', () => {
  it("queues a topic message for the topic's agent, in the topic's session, answered in the topic", async () => {
    const w = memoryWebhook(forumConfig());
    expect((await post(w.deps, inForum(1, ANN, 'what is new in 3?', { topic: 3 }))).status).toBe(200);
    const [envelope] = w.queued('grif');
    expect(envelope).toMatchObject({ agentId: 'grif', sessionKey: `agent:grif:telegram:group:${FORUM}:topic:3`, text: 'what is new in 3?' });
    expect(await w.deps.origins.get('tg.fran.1')).toMatchObject({ agentId: 'grif', target: { chatId: String(FORUM), threadId: 3 } });
    expect(w.queued('fran')).toEqual([]);
  });

  it("ignores a sender the group admits but the topic's allowFrom does not: nothing is queued for anyone", async () => {
    const w = memoryWebhook(forumConfig());
    const res = await post(w.deps, inForum(2, BOB, 'let me into 3', { topic: 3 }));
    expect(res).toEqual({ status: 200, body: { ok: true, ignored: 'sender not in the group (or topic) allowFrom' } });
    expect(everything(w)).toEqual({ jerry: [], fran: [], grif: [], ray: [] });
    // Elsewhere in the forum Bob is admitted, as the group says (topic 7 needs no mention).
    expect((await post(w.deps, inForum(3, BOB, 'hello in 7', { topic: 7 }))).status).toBe(200);
    expect(w.queued('fran')).toEqual([expect.objectContaining({ sessionKey: `agent:fran:telegram:group:${FORUM}:topic:7` })]);
  });

  it("a thread id without is_topic_message names no topic: a forum's reply thread stays in General", async () => {
    const w = memoryWebhook(forumConfig());
    // Bob cannot reach topic 3's agent by giving his message 3's thread id without Telegram's topic mark.
    expect((await post(w.deps, inForum(4, BOB, 'forged into 3', { thread: 3 }))).status).toBe(200);
    expect(w.queued('grif')).toEqual([]);
    expect(w.queued('ray')).toEqual([expect.objectContaining({ sessionKey: `agent:ray:telegram:group:${FORUM}:topic:1`, text: 'forged into 3' })]);
    expect(await w.deps.origins.get('tg.fran.4')).toMatchObject({ target: { threadId: 1 } });
  });

  it("a reply thread in a plain group, whose id is a bound topic's, reaches the group's agent, not the topic's", async () => {
    const w = memoryWebhook(forumConfig());
    const reply = textUpdate({ updateId: 5, chatId: PLAIN, chatType: 'supergroup', fromId: ANN, text: 'replying', threadId: 3 });
    expect((await post(w.deps, reply)).status).toBe(200);
    expect(w.queued('jerry')).toEqual([]);
    expect(w.queued('fran')).toEqual([expect.objectContaining({ sessionKey: `agent:fran:telegram:group:${PLAIN}` })]);
    expect(await w.deps.origins.get('tg.fran.5')).toMatchObject({ target: { chatId: String(PLAIN) } });
    expect((await w.deps.origins.get('tg.fran.5'))!.target).not.toHaveProperty('threadId', 3);
  });

  it("takes the General topic as topic 1: its agent, its session, and its rules merged over the group's", async () => {
    const w = memoryWebhook(forumConfig());
    expect((await post(w.deps, inForum(6, ANN, 'hi general'))).status).toBe(200);
    expect(w.queued('ray')).toEqual([expect.objectContaining({ sessionKey: `agent:ray:telegram:group:${FORUM}:topic:1` })]);
    // Without topics."*" General would need a mention, as the group does.
    const strict = memoryWebhook(forumConfig((raw) => delete raw.channels.telegram.groups[String(FORUM)].topics['*']));
    expect(await post(strict.deps, inForum(7, ANN, 'hi general'))).toEqual({ status: 200, body: { ok: true, ignored: 'bot not mentioned' } });
    const mentioning = inForum(8, ANN, '@fran_bot hi general');
    mentioning.message!.entities = [{ type: 'mention', offset: 0, length: '@fran_bot'.length }];
    expect((await post(strict.deps, mentioning)).status).toBe(200);
    expect(strict.queued('ray')).toHaveLength(1);
  });

  it("answers /status in a topic with the topic's agent", async () => {
    const w = memoryWebhook(forumConfig(), {
      statusView: () => ({
        registry: { get: async () => undefined } as never,
        depths: { depth: async () => 0 },
        offlineReason: undefined,
      }),
    });
    expect((await post(w.deps, inForum(9, ANN, '/status', { topic: 3 }))).status).toBe(200);
    expect(w.sent).toHaveLength(1);
    expect(w.sent[0]!.target).toMatchObject({ chatId: String(FORUM), threadId: 3 });
    expect(w.sent[0]!.text).toMatch(/^🤖 Grif \(grif\)/);
    expect(w.sent[0]!.text).toContain(`agent:grif:telegram:group:${FORUM}:topic:3`);
    expect(everything(w)).toEqual({ jerry: [], fran: [], grif: [], ray: [] });
  });
});

describe("sending into a forum's topics (the fake Bot API refuses thread 1 as Telegram does)", () => {
  const TOKEN = '1000002:AAforum-topics-test-token-0000000';
  let tg: FakeTelegram;
  beforeAll(async () => {
    tg = await startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] });
    // The fake learns the chat is a forum from an update, as the real one knows its chats.
    tg.pushUpdate(TOKEN, inForum(1, ANN, 'hi'));
  });
  afterAll(() => tg?.close());

  it('sends to a topic with its thread id, and to General without one; "typing…" in General names thread 1', async () => {
    const sender = telegramSender(createBotApi({ apiRoot: tg.url, token: TOKEN }));
    const chat = { channel: 'telegram' as const, accountId: 'fran', chatId: String(FORUM) };
    await sender.sendText({ ...chat, threadId: 3 }, 'in three');
    await sender.sendText({ ...chat, threadId: 1 }, 'in general');
    await sender.sendTyping({ ...chat, threadId: 1 });
    const sends = tg.calls('sendMessage');
    expect(sends.map((c) => [c.params.text, c.params.message_thread_id])).toEqual([
      ['in three', 3],
      ['in general', undefined],
    ]);
    expect(tg.calls('sendChatAction')[0]!.params).toMatchObject({ chat_id: FORUM, message_thread_id: 1 });
    // What the sender avoids: the Bot API's refusal of a send that names General's thread.
    const direct = await fetch(`${tg.url}/bot${TOKEN}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ chat_id: FORUM, message_thread_id: 1, text: 'x' }),
    });
    expect(await direct.json()).toEqual({ ok: false, error_code: 400, description: 'Bad Request: message thread not found' });
  });
});
