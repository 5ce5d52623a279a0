// Wake and hibernate against the emulator's ECS, SQS and DynamoDB: a message for a
// sleeping agent sets its service's desired count to 1 while the user sees typing; the
// health tick hibernates an idle agent and leaves an always-on one alone.
import { DescribeServicesCommand, ECSClient } from '@aws-sdk/client-ecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readFileSync } from 'node:fs';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { agentServiceName, clusterName, tableNames } from '../../shared/config/names.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { WAKING_NOTE } from '../../shared/control/telegram-webhook.ts';
import { webhookSecretFor } from '../../shared/telegram/webhook-secret.ts';
import { awsTestEnv, setHandlerEnv } from '../support/aws.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { provisionFleet } from '../support/provision.ts';

const aws = awsTestEnv();
const GRIF = '2000003:AAgrif-lifecycle-token-000000000000';
let tg: FakeTelegram;
let webhook: typeof import('../../functions/telegram-webhook.ts').handler;
let health: typeof import('../../functions/health.ts').handler;
const ecs = new ECSClient(aws);
const registry = new DynamoAgentRegistry(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), tableNames('life').registry);

async function desiredCount(agentId: string): Promise<number | undefined> {
  const { services } = await ecs.send(new DescribeServicesCommand({ cluster: clusterName('life'), services: [agentServiceName(agentId)] }));
  return services?.[0]?.desiredCount;
}

beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: GRIF, username: 'grif_bot' }] });
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'life';
  example.channels.telegram.apiRoot = tg.url;
  example.channels.telegram.allowFrom = ['7001'];
  const config = parseConfig(example);
  await provisionFleet(aws, config, { telegram: { GRIF_BOT_TOKEN: GRIF }, agents: {} }, { ecs: true });
  setHandlerEnv(aws, config);
  webhook = (await import('../../functions/telegram-webhook.ts')).handler;
  health = (await import('../../functions/health.ts')).handler;
});

afterAll(() => tg?.close());

describe('wake and hibernate on AWS', () => {
  it('wakes a sleeping agent for a message: desired count 0 → 1, and the user sees typing and a note', async () => {
    expect(await desiredCount('grif')).toBe(0);
    const res = await webhook({
      rawPath: '/telegram/grif',
      headers: { 'x-telegram-bot-api-secret-token': webhookSecretFor(GRIF) },
      body: JSON.stringify(textUpdate({ updateId: 1, chatId: 7001, fromId: 7001, text: 'wake up' })),
      requestContext: { http: { method: 'POST' } },
    });
    expect(res.statusCode).toBe(200);
    expect(await desiredCount('grif')).toBe(1);
    expect(await registry.get('grif')).toMatchObject({ state: 'waking' });
    expect(tg.calls('sendChatAction')).toEqual([expect.objectContaining({ params: expect.objectContaining({ chat_id: 7001, action: 'typing' }) })]);
    expect(tg.calls('sendMessage').map((c) => c.params.text)).toEqual([WAKING_NOTE]);
  });

  it('hibernates an idle agent on the health tick and leaves the always-on one running', async () => {
    const longAgo = Date.now() - 2 * 3600_000;
    for (const id of ['jerry', 'fran']) {
      await registry.recordActivity(id, longAgo);
      await registry.recordHeartbeat(id, Date.now(), '0.1.0');
    }
    await registry.transition('fran', ['awake'], 'awake', longAgo);
    await registry.transition('jerry', ['awake'], 'awake', longAgo);
    const actions = await health();
    expect(actions).toMatchObject({ fran: 'hibernated', jerry: 'none' });
    expect(await desiredCount('fran')).toBe(0);
    expect(await desiredCount('jerry')).toBe(1);
    expect(await registry.get('fran')).toMatchObject({ state: 'asleep' });
  });

  it('wakes a sleeping agent whose queue is not empty on the next tick', async () => {
    // grif's message from the first test is still queued (no runtime runs here).
    await registry.transition('grif', ['waking'], 'asleep', Date.now());
    const actions = await health();
    expect(actions.grif).toBe('woken');
    expect(await desiredCount('grif')).toBe(1);
  });

  it('keeps the warnings a runtime’s heartbeat reports in the registry table, and clears them on an empty list', async () => {
    await registry.recordHeartbeat('jerry', 1, '0.3.0', undefined, [
      'exec is off: no sandbox is available (the tool uid pool needs the runtime to run as root)',
    ]);
    expect((await registry.get('jerry'))?.warnings).toEqual(['exec is off: no sandbox is available (the tool uid pool needs the runtime to run as root)']);
    await registry.recordHeartbeat('jerry', 2, '0.3.0');
    expect((await registry.get('jerry'))?.warnings).toHaveLength(1);
    await registry.recordHeartbeat('jerry', 3, '0.3.0', undefined, []);
    expect((await registry.get('jerry'))?.warnings).toEqual([]);
  });
});
