// Delivery through λ outbox over real SQS and DynamoDB: long replies split in order to the
// origin of the inbound they answer, Telegram's 429 honoured, a reply to another agent's
// inbound refused, and agent-to-agent messages relayed or refused by agentToAgent.allow.
import { readFileSync } from 'node:fs';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoInboundOrigins } from '../../shared/adapters/aws/dynamo-inbound-origins.ts';
import { DynamoSessionRegistry } from '../../shared/adapters/aws/dynamo-tables.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { tableNames } from '../../shared/config/names.ts';
import { mainSessionKey } from '../../shared/routing/session-key.ts';
import { awsTestEnv, setHandlerEnv } from '../support/aws.ts';
import { faults, start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';
import { startOutboxPump } from '../support/outbox-pump.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const aws = awsTestEnv();
const FRAN = '3000002:AAfran-delivery-token-0000000000000';
const sqs = new SQSClient(aws);
let tg: FakeTelegram;
let fleet: ProvisionedFleet;
let pump: { stop(): Promise<void> };

function reply(agent: string, id: string, sessionKey: string, text: string) {
  return sqs.send(
    new SendMessageCommand({
      QueueUrl: fleet.queues[agent]!.outbox,
      MessageBody: JSON.stringify({
        v: PROTOCOL_VERSION,
        kind: 'reply',
        id,
        agentId: agent,
        sessionKey,
        inReplyTo: id.replace(/\.reply\.0$/, ''),
        ts: 1,
        text,
      }),
      MessageGroupId: sessionKey,
      MessageDeduplicationId: id,
    }),
  );
}

beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: FRAN }] });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'deliv';
  example.channels.telegram.apiRoot = tg.url;
  example.agentToAgent = { allow: [{ from: 'fran', to: 'grif' }] };
  const config = parseConfig(example);
  fleet = await provisionFleet(aws, config, { telegram: { FRAN_BOT_TOKEN: FRAN }, agents: {} });
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
  const sessions = new DynamoSessionRegistry(doc, tableNames('deliv').sessions);
  const chat = { channel: 'telegram' as const, accountId: 'fran', chatId: '8001' };
  await sessions.put({ sessionKey: 'agent:fran:main', agentId: 'fran', target: chat, updatedAt: 1 });
  // The inbounds the replies below answer, as the webhook records them before queueing.
  const origins = new DynamoInboundOrigins(doc, tableNames('deliv').origins);
  for (const n of [1, 2, 3])
    await origins.put({
      id: `tg.fran.${n}`,
      agentId: 'fran',
      sessionKey: 'agent:fran:main',
      target: chat,
      createdAt: Date.now(),
      expiresAt: Date.now() + 3600_000,
    });
  setHandlerEnv(aws, config);
  const outbox = (await import('../../functions/outbox.ts')).handler;
  pump = startOutboxPump(
    aws,
    Object.values(fleet.queues).map((q) => ({ url: q.outbox, arn: q.outboxArn })),
    outbox,
  );
});

afterAll(async () => {
  await pump?.stop();
  await tg?.close();
});

describe('delivery', () => {
  it('delivers a 5,000-character reply as two messages, in order', async () => {
    const text = `${'first part. '.repeat(300)}\n\n${'second part. '.repeat(100)}`;
    await reply('fran', 'tg.fran.1.reply.0', 'agent:fran:main', text);
    const calls = await tg.waitForCalls('sendMessage', 2, 15_000);
    expect(calls.map((c) => String(c.params.text).slice(0, 12))).toEqual(['first part. ', 'second part.']);
    expect(calls.every((c) => String(c.params.text).length <= 4096)).toBe(true);
  });

  it('retries a reply after Telegram’s retry_after, and delivers it once', async () => {
    tg.failNext('sendMessage', faults.tooManyRequests(2));
    const before = tg.calls('sendMessage').length;
    await reply('fran', 'tg.fran.2.reply.0', 'agent:fran:main', 'after the rate limit');
    const calls = (await tg.waitForCalls('sendMessage', before + 2, 20_000)).slice(before);
    expect(calls.map((c) => c.params.text)).toEqual(['after the rate limit', 'after the rate limit']);
    // The first was refused with 429; the retry came no sooner than 2 s later.
    expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(2_000);
    // Until the record has left the outbox (nothing waiting or in flight could send it again).
    const outboxDepth = async () => {
      const { Attributes } = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: fleet.queues.fran!.outbox,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      return Number(Attributes?.ApproximateNumberOfMessages) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible);
    };
    await expect.poll(outboxDepth, { timeout: 20_000, interval: 100 }).toBe(0);
    expect(tg.calls('sendMessage').filter((c) => c.params.text === 'after the rate limit')).toHaveLength(2);
  });

  it('refuses a runtime replying to another agent’s inbound, into its outbox DLQ with the reason', async () => {
    const before = tg.calls('sendMessage').length;
    await reply('grif', 'tg.fran.3.reply.0', 'agent:fran:main', 'not my session');
    let reason: string | undefined;
    for (let i = 0; i < 20 && !reason; i++) {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: fleet.queues.grif!.outboxDlq, WaitTimeSeconds: 1, MessageAttributeNames: ['All'] }),
      );
      reason = Messages?.[0]?.MessageAttributes?.reason?.StringValue;
    }
    expect(reason).toMatch(/^ORIGIN_NOT_OWNED: inbound "tg\.fran\.3" was queued for another agent/);
    expect(tg.calls('sendMessage')).toHaveLength(before);
  });
});

describe('agent-to-agent relay through λ outbox', () => {
  function send(from: string, body: Record<string, unknown>) {
    const sessionKey = mainSessionKey(from);
    return sqs.send(
      new SendMessageCommand({
        QueueUrl: fleet.queues[from]!.outbox,
        MessageBody: JSON.stringify({ v: PROTOCOL_VERSION, kind: 'agent_send', agentId: from, sessionKey, ts: 1, ...body }),
        MessageGroupId: sessionKey,
        MessageDeduplicationId: String(body.id),
      }),
    );
  }

  async function next(url: string, attributes = false) {
    for (let i = 0; i < 20; i++) {
      const { Messages } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1, MessageAttributeNames: attributes ? ['All'] : undefined }),
      );
      if (Messages?.[0]) return Messages[0];
    }
    return undefined;
  }

  it('relays a permitted message into the target’s queue, and refuses a forbidden one with its reason', async () => {
    // The example fleet allows fran → grif (see beforeAll) and nothing else; fran asks from its turn on tg.fran.1.
    await send('fran', { id: 'ask.1', inboundId: 'tg.fran.1', toAgentId: 'grif', text: 'what is on the calendar?' });
    const relayed = await next(fleet.queues.grif!.inbox);
    expect(JSON.parse(relayed!.Body!)).toMatchObject({
      kind: 'agent_message',
      id: 'am.fran.ask.1',
      agentId: 'grif',
      fromAgentId: 'fran',
      replyTo: { sessionKey: 'agent:fran:main' },
      hops: 1,
    });

    await send('grif', { id: 'ask.2', inboundId: 'am.fran.ask.1', toAgentId: 'ray', text: 'psst' });
    const refused = await next(fleet.queues.grif!.outboxDlq, true);
    expect(refused?.MessageAttributes?.reason?.StringValue).toMatch(/^RELAY_NOT_ALLOWED/);
  });
});
