// A compromised runtime writing hostile envelopes onto its own outbox (the only queue IAM
// lets it send to): claiming another agent, replying to another agent's inbound or one it
// never received or into another session, oversized, of an unknown kind or version, or not JSON at all. Each
// is refused by λ outbox into the sender's outbox DLQ with the reason attached, logged
// with a metric name, and nothing reaches Telegram. A well-formed reply still goes out.
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSecretsIn, startFaultFleet, type FaultFleet } from '../fault/fault-fleet.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

let f: FaultFleet;
const base = { v: PROTOCOL_VERSION, agentId: 'fran', ts: 1_764_000_000_000 };

// At most 10: the fleet's deadLetters() sees one receive of 10 messages from the FIFO DLQ.
const HOSTILE: Array<{ name: string; body: string; code: RegExp }> = [
  {
    name: 'an envelope claiming to be another agent',
    body: JSON.stringify({ ...base, agentId: 'grif', kind: 'reply', id: 'h.1', sessionKey: 'agent:grif:dm:7602', inReplyTo: 'x', text: 'I am grif' }),
    code: /^AGENT_MISMATCH: /,
  },
  {
    name: 'a reply to another agent’s inbound, in its session',
    body: JSON.stringify({
      ...base,
      kind: 'reply',
      id: 'h.2',
      sessionKey: 'agent:grif:dm:7602',
      inReplyTo: 'tg.grif.8001',
      text: 'hello from fran in grif’s chat',
    }),
    code: /^ORIGIN_NOT_OWNED: /,
  },
  {
    name: 'a reply to an inbound it never received',
    body: JSON.stringify({ ...base, kind: 'reply', id: 'h.3', sessionKey: 'agent:fran:dm:99999', inReplyTo: 'tg.fran.99999', text: 'to nobody' }),
    code: /^ORIGIN_UNKNOWN: /,
  },
  {
    name: 'a reply to its own inbound, into another session',
    body: JSON.stringify({ ...base, kind: 'reply', id: 'h.10', sessionKey: 'agent:fran:telegram:group:-1', inReplyTo: 'tg.fran.8000', text: 'into a group' }),
    code: /^ORIGIN_NOT_OWNED: /,
  },
  {
    name: 'an oversized reply',
    body: JSON.stringify({ ...base, kind: 'reply', id: 'h.4', sessionKey: 'agent:fran:dm:7601', inReplyTo: 'x', text: 'x'.repeat(200_001) }),
    code: /^ENVELOPE_INVALID: .*text/,
  },
  { name: 'an unknown kind', body: JSON.stringify({ ...base, kind: 'read_secrets', id: 'h.5', target: 'grif' }), code: /^ENVELOPE_INVALID: / },
  {
    name: 'an unknown protocol version',
    body: JSON.stringify({ ...base, v: 99, kind: 'reply', id: 'h.6', sessionKey: 'agent:fran:dm:7601', inReplyTo: 'x', text: 'v2' }),
    code: /^ENVELOPE_VERSION: /,
  },
  { name: 'garbage', body: '<not json>{"v":1 \u00ff\ufffd', code: /^ENVELOPE_INVALID: .*not JSON/ },
  {
    name: 'extra fields smuggled into a reply',
    body: JSON.stringify({ ...base, kind: 'reply', id: 'h.8', sessionKey: 'agent:fran:dm:7601', inReplyTo: 'x', text: 'hi', chatId: 7602 }),
    code: /^ENVELOPE_INVALID: /,
  },
  {
    name: 'a message to an agent it may not talk to',
    body: JSON.stringify({
      ...base,
      kind: 'agent_send',
      id: 'h.9',
      sessionKey: 'agent:fran:dm:7601',
      inboundId: 'tg.fran.8000',
      toAgentId: 'grif',
      text: 'psst',
    }),
    code: /^RELAY_NOT_ALLOWED: /,
  },
];

async function allDeadLetters(url: string, n: number): Promise<Map<string, string | undefined>> {
  const seen = new Map<string, string | undefined>();
  await expect
    .poll(
      async () => {
        for (const d of await f.deadLetters(url)) seen.set(d.body, d.reason);
        return seen.size;
      },
      { timeout: 30_000, interval: 300 },
    )
    .toBeGreaterThanOrEqual(n);
  return seen;
}

beforeAll(async () => {
  f = await startFaultFleet({ fleet: 'hostile', senders: [7601, 7602] });
  // Sessions exist the way they come to exist: a user writes to each bot.
  expect((await f.post(f.update(8_000, 7601, 'hi fran'))).statusCode).toBe(200);
  expect((await f.post(f.update(8_001, 7602, 'hi grif'), { accountId: 'grif' })).statusCode).toBe(200);
});

afterAll(() => f?.close());

describe('hostile envelopes on an agent’s outbox', () => {
  it('are each refused into the sender’s outbox DLQ with the reason, logged, and never reach a chat', async () => {
    for (const [i, h] of HOSTILE.entries()) {
      await f.sqs.send(
        new SendMessageCommand({
          QueueUrl: f.queues.fran!.outbox,
          MessageBody: h.body,
          MessageGroupId: `hostile-${i}`,
          MessageDeduplicationId: `hostile-${i}`,
        }),
      );
    }
    const parked = await allDeadLetters(f.queues.fran!.outboxDlq, HOSTILE.length);
    for (const h of HOSTILE) {
      expect(parked.has(h.body), h.name).toBe(true);
      expect(parked.get(h.body), h.name).toMatch(h.code);
    }
    const logged = f.scan
      .read('test process stdout (handler logs)')
      .split('\n')
      .filter((l) => l.includes('"outbox envelope rejected"'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(logged.length).toBeGreaterThanOrEqual(HOSTILE.length);
    expect(logged.every((l) => l.agentId === 'fran' && l.metric === 'OutboxRejected' && typeof l.code === 'string')).toBe(true);
    // The log names what was wrong, never the body.
    expect(logged.some((l) => JSON.stringify(l).includes('x'.repeat(1_000)))).toBe(false);
    expect(f.tg.calls('sendMessage')).toEqual([]);
    expect(await f.deadLetters(f.queues.grif!.outboxDlq)).toEqual([]);
  });

  it('do not block the agent’s own well-formed reply', async () => {
    const reply = { ...base, kind: 'reply', id: 'tg.fran.8000.reply.0', sessionKey: 'agent:fran:dm:7601', inReplyTo: 'tg.fran.8000', text: 'a proper answer' };
    await f.sqs.send(
      new SendMessageCommand({
        QueueUrl: f.queues.fran!.outbox,
        MessageBody: JSON.stringify(reply),
        MessageGroupId: reply.sessionKey,
        MessageDeduplicationId: reply.id,
      }),
    );
    await expect.poll(() => f.sent('a proper answer', 7601), { timeout: 20_000 }).toBe(1);
    expect(f.tg.calls('sendMessage').every((c) => c.params.chat_id === 7601)).toBe(true);
  });

  it('wrote no secret value to any log line, response or message', () => expectNoSecretsIn(f.scan, 'hostile-outbox'));
});
