// Routing tiers and direct-message policies through λ telegram-webhook against the
// emulator: which agent's SQS queue an update lands in, or why none.
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { awsTestEnv, setHandlerEnv } from '../support/aws.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
const TOKENS = { main: '4000001:AAmain-routing-token-000000000000000', biz: '4000002:AAbiz-routing-token-0000000000000000' };
let tg: FakeTelegram;
let updateId = 0;

function fleetConfig(telegram: Partial<NonNullable<NonNullable<FleetConfigInput['channels']>['telegram']>>, bindings: FleetConfigInput['bindings']) {
  return parseConfig({
    fleet: 'route',
    agents: {
      defaults: { model: 'm/x', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'home', default: true }, { id: 'work' }, { id: 'vip' }, { id: 'any' }],
    },
    models: { providers: { m: { api: 'openai-completions' } } },
    channels: { telegram: { apiRoot: tg.url, accounts: { main: { botTokenSecret: 'MAIN' }, biz: { botTokenSecret: 'BIZ' } }, ...telegram } },
    bindings,
  });
}

/** A fresh handler module for a config: the handler reads its config once, at import. */
async function webhookFor(config: ReturnType<typeof fleetConfig>) {
  setHandlerEnv(aws, config);
  vi.resetModules();
  const { handler } = await import('../../functions/telegram-webhook.ts');
  return async (account: keyof typeof TOKENS, from: number) => {
    const res = await handler({
      rawPath: `/telegram/${account}`,
      headers: { 'x-telegram-bot-api-secret-token': webhookSecretFor(TOKENS[account]) },
      body: JSON.stringify(textUpdate({ updateId: ++updateId, chatId: from, fromId: from, text: 'hi' })),
      requestContext: { http: { method: 'POST' } },
    });
    return JSON.parse(res.body) as Record<string, unknown>;
  };
}

/** Takes (and deletes) the next message of an agent's queue, as its runtime would. */
async function takeFrom(fleet: ProvisionedFleet, agent: string): Promise<Record<string, unknown> | undefined> {
  const QueueUrl = fleet.queues[agent]!.inbox;
  const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0 }));
  const m = Messages?.[0];
  if (!m) return undefined;
  await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: m.ReceiptHandle! }));
  return JSON.parse(m.Body!);
}

async function depth(fleet: ProvisionedFleet, agent: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: fleet.queues[agent]!.inbox, AttributeNames: ['ApproximateNumberOfMessages'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages);
}

let fleet: ProvisionedFleet;
beforeAll(async () => {
  tg = await startTelegram({ bots: Object.values(TOKENS).map((token) => ({ token })) });
  fleet = await provisionFleet(aws, fleetConfig({}, []), { telegram: { MAIN: TOKENS.main, BIZ: TOKENS.biz }, agents: {} });
});
afterAll(() => tg?.close());

describe('routing, one case per binding tier', () => {
  it('routes by peer, then account, then channel', async () => {
    const post = await webhookFor(
      fleetConfig({ dmPolicy: 'open' }, [
        { agentId: 'vip', match: { channel: 'telegram', accountId: 'main', peer: { kind: 'direct', id: '42' } } },
        { agentId: 'work', match: { channel: 'telegram', accountId: 'biz' } },
        { agentId: 'any', match: { channel: 'telegram' } },
      ]),
    );
    await post('main', 42);
    expect(await takeFrom(fleet, 'vip')).toMatchObject({ agentId: 'vip', sessionKey: 'agent:vip:main' });
    await post('biz', 42);
    expect(await takeFrom(fleet, 'work')).toMatchObject({ agentId: 'work' });
    await post('main', 7);
    expect(await takeFrom(fleet, 'any')).toMatchObject({ agentId: 'any' });
  });

  it('falls back to the default agent', async () => {
    const post = await webhookFor(fleetConfig({ dmPolicy: 'open' }, []));
    await post('main', 7);
    expect(await takeFrom(fleet, 'home')).toMatchObject({ agentId: 'home' });
  });
});

describe('direct-message policies', () => {
  it('pairing: queues nothing and sends the sender a code', async () => {
    const post = await webhookFor(fleetConfig({ dmPolicy: 'pairing' }, []));
    expect(await post('main', 501)).toMatchObject({ pairing: 'pending' });
    expect(await depth(fleet, 'home')).toBe(0);
    const sent = await tg.waitForCalls('sendMessage', 1);
    expect(sent.at(-1)?.params).toMatchObject({ chat_id: 501, text: expect.stringMatching(/pairing code: [A-Z2-9]{8}/) });
  });

  it('allowlist: queues only listed senders', async () => {
    const post = await webhookFor(fleetConfig({ dmPolicy: 'allowlist', allowFrom: ['tg:502'] }, []));
    expect(await post('main', 503)).toMatchObject({ ignored: 'sender not in allowFrom' });
    expect(await post('main', 502)).toMatchObject({ ok: true, envelopeId: expect.any(String) });
    expect(await takeFrom(fleet, 'home')).toMatchObject({ from: { peerId: '502' } });
  });

  it('open: queues anyone', async () => {
    const post = await webhookFor(fleetConfig({ dmPolicy: 'open' }, []));
    expect(await post('main', 504)).toMatchObject({ envelopeId: expect.any(String) });
    expect(await takeFrom(fleet, 'home')).toMatchObject({ from: { peerId: '504' } });
  });

  it('disabled: queues no one, per account', async () => {
    const post = await webhookFor(
      fleetConfig({ dmPolicy: 'open', accounts: { main: { botTokenSecret: 'MAIN', dmPolicy: 'disabled' }, biz: { botTokenSecret: 'BIZ' } } }, []),
    );
    expect(await post('main', 505)).toMatchObject({ ignored: 'direct messages disabled' });
    expect(await post('biz', 505)).toMatchObject({ envelopeId: expect.any(String) });
    expect(await depth(fleet, 'home')).toBe(1);
  });
});
