// Forum topics, status reactions and the users' reactions on the AWS path (#31), for real: the real
// λ telegram-webhook and λ outbox on the emulator's queues and tables (the status state and the
// bot's messages in DynamoDB, conditional writes included), fran's runtime a child process.
// A forum's topic 5 is grif's by a binding and topic 3 fran's: each message reaches its agent's
// queue. fran is SIGKILLed mid-turn while the reaction on the user's message shows "thinking";
// the redone turn answers once and the reaction ends at done once, nothing after it. A flood of
// reactions to fran's answer reaches fran's queue at most REACTION_RATE.max times, as notes the
// next turn reads, never as turns.
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REACTION_RATE } from '../../shared/control/reaction-updates.ts';
import type { ModelReply, ModelRequest } from '../support/fake-model.ts';
import { textUpdate } from '../support/fake-telegram.ts';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from './fault-fleet.ts';

const ANN = 7601;
const FORUM = -1007601000000;
const ANSWER = 'Two files, both notes.';

let f: FaultFleet;
const asked = new Map<string, number>();
const held = new Map<string, () => boolean>();
let respond: (req: ModelRequest, n: number) => ModelReply = () => ({ text: 'ok' });

beforeAll(async () => {
  f = await startFaultFleet({
    fleet: 'sigtopics',
    senders: [ANN],
    edit: (raw) => {
      raw.channels.telegram.streaming = 'off';
      raw.channels.telegram.statusReactions = { enabled: true };
      raw.channels.telegram.groups = { [String(FORUM)]: { requireMention: false, topics: { '3': { agentId: 'fran' } } } };
      raw.bindings.unshift({ agentId: 'grif', match: { channel: 'telegram', accountId: 'fran', peer: { kind: 'group', id: String(FORUM), topic: 5 } } });
    },
  });
  f.model.setResponder(async (req) => {
    const n = (asked.get(req.lastUserText) ?? 0) + 1;
    asked.set(req.lastUserText, n);
    const ready = held.get(`${req.lastUserText}#${n}`);
    if (ready) while (!ready()) await new Promise((r) => setTimeout(r, 20));
    return respond(req, n);
  });
}, 120_000);

afterAll(() => f?.close());

const inTopic = (updateId: number, text: string, topic: number) =>
  JSON.stringify(
    textUpdate({ updateId, messageId: updateId, chatId: FORUM, chatType: 'supergroup', forum: true, fromId: ANN, text, threadId: topic, topicMessage: true }),
  );

const reactionsOn = (messageId: number) =>
  f.tg
    .calls('setMessageReaction')
    .filter((c) => c.params.chat_id === FORUM && c.params.message_id === messageId)
    .map((c) => ((c.params.reaction as { emoji: string }[] | undefined) ?? [])[0]?.emoji ?? '');

describe('forum topics on the AWS path', () => {
  it("queues a topic's message for the topic's agent (topic 5 grif's by a binding), in the topic's session", { timeout: 60_000 }, async () => {
    expect((await f.post(inTopic(1, 'for grif', 5))).statusCode).toBe(200);
    const { Messages = [] } = await f.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: f.queues.grif!.inbox, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 1 }),
    );
    expect(Messages.map((m) => JSON.parse(m.Body!))).toEqual([
      expect.objectContaining({ agentId: 'grif', sessionKey: `agent:grif:telegram:group:${FORUM}:topic:5`, text: 'for grif' }),
    ]);
    expect(await f.queueDepth(f.queues.fran!.inbox)).toBe(0);
  });

  it('answers once and ends the reaction at done once, although fran is SIGKILLed mid-turn', { timeout: 150_000 }, async () => {
    const ask = 'What is in the workspace?';
    // 1. (held until the message shows "thinking") a tool call; 2. held for good: the runtime is killed; 3. a tool call; 4. the answer.
    respond = (_req, n) => (n === 1 || n === 3 ? { toolCalls: [{ name: 'list', arguments: { path: '.' } }] } : { text: ANSWER });
    held.set(`${ask}#1`, () => reactionsOn(2).includes('🤔'));
    held.set(`${ask}#2`, () => false);
    const first = f.launch();
    await first.waitFor((l) => l.msg === 'ready', 30_000);
    expect((await f.post(inTopic(2, ask, 3))).statusCode).toBe(200);
    await expect.poll(() => asked.get(ask) ?? 0, { timeout: 60_000, interval: 20 }).toBe(2);
    expect(reactionsOn(2).slice(0, 2)).toEqual(['👀', '🤔']);
    await first.kill('SIGKILL');
    f.launch();
    await expect.poll(() => f.sent(ANSWER, FORUM), { timeout: 90_000, interval: 50 }).toBe(1);
    await f.settled();
    const seen = reactionsOn(2);
    expect(seen.at(-1)).toBe('👍');
    const order = ['👀', '🤔', '🔥', '👍'];
    expect(seen.map((e) => order.indexOf(e))).toEqual([...seen.map((e) => order.indexOf(e))].sort());
    expect(new Set(seen).size).toBe(seen.length);
    expect(f.tg.calls('sendMessage').find((c) => c.params.text === ANSWER)!.params.message_thread_id).toBe(3);
    expect(asked.get(ask)).toBe(4);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it(`lets at most ${REACTION_RATE.max} of a flood of reactions to fran's answer reach fran, as notes its next turn reads`, { timeout: 150_000 }, async () => {
    const answer = f.tg.messages(FORUM).find((m) => m.text === ANSWER)!;
    const emoji = ['👍', '🔥', '❤', '🎉', '👏'];
    const windowOf = (t: number) => Math.floor(t / REACTION_RATE.windowMs);
    const from = Date.now();
    const results = [];
    for (let i = 0; i < REACTION_RATE.max + 10; i++) {
      const body = JSON.stringify({
        update_id: 100 + i,
        message_reaction: {
          chat: { id: FORUM, type: 'supergroup', title: 'Forum', is_forum: true },
          message_id: answer.message_id,
          user: { id: ANN, is_bot: false, first_name: 'Ann' },
          date: Math.floor(Date.now() / 1000),
          old_reaction: [],
          new_reaction: [{ type: 'emoji', emoji: emoji[i % emoji.length] }],
        },
      });
      results.push(JSON.parse((await f.post(body)).body));
    }
    const sameWindow = windowOf(from) === windowOf(Date.now());
    const queued = results.filter((r) => r.envelopeId).length;
    // Within one window exactly the rate; a window that ended mid-flood lets a second rate's worth start.
    if (sameWindow) expect(queued).toBe(REACTION_RATE.max);
    else expect(queued).toBeLessThanOrEqual(2 * REACTION_RATE.max);
    expect(results.filter((r) => r.skipped === 'the chat is past its reaction rate')).toHaveLength(REACTION_RATE.max + 10 - queued);

    respond = (req) => ({ text: `read ${req.lastUserText.split('\n').filter((l) => l.startsWith('[Reaction')).length} reactions` });
    const before = f.model.requests().length;
    expect((await f.post(inTopic(200, 'anything new?', 3))).statusCode).toBe(200);
    await expect.poll(() => f.tg.calls('sendMessage').filter((c) => /^read \d+ reactions$/.test(String(c.params.text))).length, { timeout: 60_000 }).toBe(1);
    await f.settled();
    // One model request, for the message: the reactions were read as notes, each once.
    expect(f.model.requests().slice(before)).toHaveLength(1);
    const text = f.model.requests().at(-1)!.lastUserText;
    expect(text.split('\n').filter((l) => l.startsWith(`[Reaction `) && l.includes(`to your message ${answer.message_id} from "Ann"`))).toHaveLength(
      Math.min(queued, 20),
    );
    expect(text.endsWith('anything new?')).toBe(true);
    expect(await f.deadLetters(f.queues.fran!.inboxDlq)).toEqual([]);
    expect(await f.deadLetters(f.queues.fran!.outboxDlq)).toEqual([]);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'topics-reactions-sigkill'));
});
