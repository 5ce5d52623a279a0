// λ dashboard against the emulator: the same pages and JSON as local mode, fed from
// DynamoDB, SQS and ECS; the token from Secrets Manager; wake and hibernate change the
// agent's ECS service; pairing approval, sessions and turn metrics round-trip through the
// real tables. Every response is scanned for every secret value the test knows.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeServicesCommand, ECSClient } from '@aws-sdk/client-ecs';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoAgentMetrics } from '../../shared/adapters/aws/dynamo-agent-metrics.ts';
import { DynamoPairingStore } from '../../shared/adapters/aws/dynamo-pairing-store.ts';
import { DynamoSessionRegistry } from '../../shared/adapters/aws/dynamo-tables.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentServiceName, clusterName, dashboardSecretName, tableNames } from '../../shared/config/names.ts';
import type { DashboardUrlEvent, DashboardUrlResult } from '../../functions/dashboard.ts';
import { awsTestEnv, setHandlerEnv } from '../support/aws.ts';
import { provisionFleet } from '../support/provision.ts';
import { pendingPairing } from '../support/pending-pairing.ts';

const aws = awsTestEnv();
const FLEET = 'dash';
const TOKEN = 'aws-dashboard-token-5b8e1f2a9c7d3e40';
const BOT = '2000009:AAdash-bot-token-00000000000000000';
const ecs = new ECSClient(aws);
const doc = DynamoDBDocumentClient.from(new DynamoDBClient(aws), { marshallOptions: { removeUndefinedValues: true } });
const tables = tableNames(FLEET);
let handler: (e: DashboardUrlEvent) => Promise<DashboardUrlResult>;
const responses: DashboardUrlResult[] = [];

async function call(method: string, path: string, opts: { auth?: string; cookie?: string; body?: string; type?: string } = {}): Promise<DashboardUrlResult> {
  const [rawPath, rawQueryString] = path.split('?');
  const res = await handler({
    rawPath: rawPath!,
    rawQueryString: rawQueryString ?? '',
    headers: { ...(opts.auth ? { authorization: opts.auth } : {}), ...(opts.type ? { 'content-type': opts.type } : {}) },
    cookies: opts.cookie ? [opts.cookie] : undefined,
    body: opts.body,
    requestContext: { http: { method } },
  });
  responses.push(res);
  return res;
}
const bearer = `Bearer ${TOKEN}`;
const post = (path: string, body: unknown = {}) => call('POST', path, { auth: bearer, type: 'application/json', body: JSON.stringify(body) });

async function desiredCount(agentId: string): Promise<number | undefined> {
  const { services } = await ecs.send(new DescribeServicesCommand({ cluster: clusterName(FLEET), services: [agentServiceName(agentId)] }));
  return services?.[0]?.desiredCount;
}

beforeAll(async () => {
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = FLEET;
  const config = parseConfig(example);
  await provisionFleet(aws, config, { telegram: { FRAN_BOT_TOKEN: BOT }, agents: {} }, { ecs: true });
  await new SecretsManagerClient(aws).send(
    new CreateSecretCommand({ Name: dashboardSecretName(FLEET), SecretString: JSON.stringify({ DASHBOARD_TOKEN: TOKEN }) }),
  );
  setHandlerEnv(aws, config);
  handler = (await import('../../functions/dashboard.ts')).handler;
});

describe('λ dashboard on AWS (emulator)', () => {
  it('refuses a wrong token and anyone without one, and sends a browser to the login page', async () => {
    expect((await call('GET', '/api/fleet')).statusCode).toBe(401);
    expect((await call('GET', '/api/fleet', { auth: 'Bearer wrong-token-wrong-token' })).statusCode).toBe(401);
    expect((await call('GET', `/api/fleet?token=${TOKEN}`)).statusCode).toBe(401);
    const page = await call('GET', '/');
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/login');
    const refused = await call('POST', '/login', { type: 'application/x-www-form-urlencoded', body: 'token=wrong-token-wrong-token' });
    expect(refused.statusCode).toBe(401);
    expect(refused.cookies).toEqual([]);
  });

  it('signs in with the token from Secrets Manager and shows every agent from the registry and SQS', async () => {
    const login = await call('POST', '/login', { type: 'application/x-www-form-urlencoded', body: `token=${encodeURIComponent(TOKEN)}` });
    expect(login.statusCode).toBe(303);
    expect(login.cookies[0]).toMatch(/^clawfleet_dashboard=\d+\.[0-9a-f]{64}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200; Secure$/);
    const cookie = login.cookies[0]!.split(';')[0]!;
    const page = await call('GET', '/', { cookie });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    for (const id of ['jerry', 'fran', 'grif', 'ray']) expect(page.body).toContain(`data-agent="${id}"`);

    const view = JSON.parse((await call('GET', '/api/fleet', { cookie })).body);
    expect(view.where).toBe('aws');
    expect(view.agents.map((a: { id: string }) => a.id)).toEqual(['jerry', 'fran', 'grif', 'ray']);
    expect(view.agents[0]).toMatchObject({ state: 'asleep', queue: { depth: 0, dlq: 0, outboxDlq: 0 }, actions: ['wake'] });
    expect(view.agents[0].activity).toHaveLength(96);
    // The chat box is local only.
    expect((await call('GET', '/api/fleet/grif/chat', { cookie })).statusCode).toBe(404);
  });

  it('wakes an agent (ECS desired count 0 → 1) and hibernates it again, through the registry', async () => {
    expect(await desiredCount('grif')).toBe(0);
    const woke = await post('/api/fleet/grif/wake');
    expect(woke.statusCode).toBe(200);
    expect(JSON.parse(woke.body)).toEqual({ agentId: 'grif', action: 'wake', state: 'waking' });
    expect(await desiredCount('grif')).toBe(1);
    // Waking twice is refused with the state that explains why.
    const again = await post('/api/fleet/grif/wake');
    expect(again.statusCode).toBe(409);
    expect(JSON.parse(again.body).error).toContain('grif is waking');

    const slept = await post('/api/fleet/grif/hibernate');
    expect(JSON.parse(slept.body).state).toBe('asleep');
    expect(await desiredCount('grif')).toBe(0);
    // Actions need JSON, so a cross-site form cannot trigger them.
    expect((await call('POST', '/api/fleet/grif/wake', { auth: bearer, type: 'application/x-www-form-urlencoded', body: 'a=1' })).statusCode).toBe(415);
  });

  it('shows a pending pairing on its agent and approves it', async () => {
    const pairings = new DynamoPairingStore(doc, tables.registry);
    await pairings.createPending(pendingPairing({ accountId: 'fran', peerId: '777', displayName: 'Bo', code: 'ABCD2345' }));
    const detail = JSON.parse((await call('GET', '/api/fleet/fran', { auth: bearer })).body);
    expect(detail.pairings).toMatchObject([{ peerId: '777', code: 'ABCD2345', agentId: 'fran' }]);
    expect((await post('/api/pairings/approve', { code: 'abcd2345' })).statusCode).toBe(200);
    expect((await pairings.get('fran', '777'))?.status).toBe('approved');
    expect((await post('/api/pairings/approve', { code: 'ABCD2345' })).statusCode).toBe(404);
  });

  it('lists sessions and recent turns with their timing from DynamoDB, each turn counted once', async () => {
    const now = Date.now();
    await new DynamoSessionRegistry(doc, tables.sessions).put({
      sessionKey: 'agent:ray:telegram:direct:9',
      agentId: 'ray',
      target: { channel: 'telegram', accountId: 'ray', chatId: '9' },
      updatedAt: now,
    });
    const metrics = new DynamoAgentMetrics(doc, tables.registry);
    const turn = {
      agentId: 'ray',
      inboundId: 'tg.ray.1',
      sessionKey: 'agent:ray:telegram:direct:9',
      outcome: 'ended' as const,
      at: now,
      timing: { queueWaitMs: 40, modelMs: 1200, toolMs: 300 },
    };
    await metrics.recordTurn(turn);
    await metrics.recordTurn(turn); // a redelivered status envelope
    await metrics.recordTurn({ ...turn, inboundId: 'tg.ray.2', outcome: 'failed', error: 'model timed out' });
    const detail = JSON.parse((await call('GET', '/api/fleet/ray', { auth: bearer })).body);
    expect(detail.sessions).toMatchObject([{ sessionKey: 'agent:ray:telegram:direct:9', channel: 'telegram' }]);
    expect(detail.turns).toHaveLength(2);
    expect(detail.turns.find((t: { inboundId: string }) => t.inboundId === 'tg.ray.1').timing).toEqual({ queueWaitMs: 40, modelMs: 1200, toolMs: 300 });
    const last = detail.agent.activity.at(-1);
    expect([last.turns, last.errors]).toEqual([2, 1]);
    const page = await call('GET', '/agents/ray', { auth: bearer });
    expect(page.body).toContain('model timed out');
    expect(page.body).toContain('1 s'); // model time of the first turn
  });

  it('never puts a secret value in any response', () => {
    expect(responses.length).toBeGreaterThan(15);
    for (const r of responses) {
      const text = JSON.stringify(r);
      expect(text.includes(TOKEN)).toBe(false);
      expect(text.includes(BOT)).toBe(false);
    }
  });
});
