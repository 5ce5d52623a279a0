// HTTP hooks end to end against the emulator: a Function URL event through
// functions/hooks.ts, the token read from Secrets Manager, the session recorded in
// DynamoDB, the envelope in the agent's SQS FIFO queue, and a sleeping agent's ECS
// service woken (desired count 0 → 1).
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeServicesCommand, ECSClient } from '@aws-sdk/client-ecs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { DynamoSessionRegistry } from '../../shared/adapters/aws/dynamo-tables.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentServiceName, clusterName, hooksSecretName, tableNames } from '../../shared/config/names.ts';
import { parseInbound } from '../../shared/protocol/envelopes.ts';
import type { FunctionUrlEvent } from '../../functions/function-url.ts';
import { awsTestEnv, setHandlerEnv } from '../support/aws.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';

const aws = awsTestEnv();
const FLEET = 'hooks';
const TOKEN = 'hooks-integration-token-0123456789abcdef';
const sqs = new SQSClient(aws);
const ecs = new ECSClient(aws);
const sessions = new DynamoSessionRegistry(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), tableNames(FLEET).sessions);
let fleet: ProvisionedFleet;
let hooks: typeof import('../../functions/hooks.ts').handler;

function post(path: string, body: unknown, headers: Record<string, string> = {}, rawQueryString = '') {
  const event: FunctionUrlEvent = {
    rawPath: path,
    rawQueryString,
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
    requestContext: { http: { method: 'POST' } },
  };
  return hooks(event).then((r) => ({ status: r.statusCode, body: JSON.parse(r.body) as Record<string, unknown> }));
}

/** Takes every message waiting in an agent's queue. */
async function drain(agentId: string, waitSeconds = 1) {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({ QueueUrl: fleet.queues[agentId]!.inbox, MaxNumberOfMessages: 10, WaitTimeSeconds: waitSeconds }),
  );
  for (const m of Messages) await sqs.send(new DeleteMessageCommand({ QueueUrl: fleet.queues[agentId]!.inbox, ReceiptHandle: m.ReceiptHandle }));
  return Messages.map((m) => parseInbound(m.Body!));
}

async function desiredCount(agentId: string) {
  const { services } = await ecs.send(new DescribeServicesCommand({ cluster: clusterName(FLEET), services: [agentServiceName(agentId)] }));
  return services?.[0]?.desiredCount;
}

beforeAll(async () => {
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = FLEET;
  example.hooks = { tokenSecret: 'HOOKS_TOKEN', mappings: { github: { agentId: 'grif', messageTemplate: 'PR #{{body.number}}: {{body.title}}' } } };
  const config = parseConfig(example);
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: {} }, { ecs: true });
  await new SecretsManagerClient(aws).send(new CreateSecretCommand({ Name: hooksSecretName(FLEET), SecretString: JSON.stringify({ HOOKS_TOKEN: TOKEN }) }));
  setHandlerEnv(aws, config);
  hooks = (await import('../../functions/hooks.ts')).handler;
});

describe('hooks on AWS', () => {
  it('queues POST /hooks/agent for the named agent, records its session and wakes it from sleep', async () => {
    expect(await desiredCount('fran')).toBe(0);
    const res = await post('/hooks/agent', { message: 'Summarize inbox', name: 'Email', agentId: 'fran' });
    expect(res).toEqual({
      status: 202,
      body: { ok: true, envelopeId: expect.stringMatching(/^hook\./), agentId: 'fran', sessionKey: 'agent:fran:hook:email' },
    });

    const [envelope] = await drain('fran');
    expect(envelope).toMatchObject({ kind: 'message', id: res.body.envelopeId, agentId: 'fran', sessionKey: 'agent:fran:hook:email', text: 'Summarize inbox' });
    expect(await sessions.get('agent:fran:hook:email')).toMatchObject({ agentId: 'fran', target: { channel: 'none' } });
    expect(await desiredCount('fran')).toBe(1);
  });

  it('queues a retried call with the same Idempotency-Key once', async () => {
    const headers = { 'idempotency-key': 'gh-delivery-1' };
    const first = await post('/hooks/github', { number: 7, title: 'Fix it' }, headers);
    const again = await post('/hooks/github', { number: 7, title: 'Fix it' }, headers);
    expect(first.status).toBe(202);
    expect(again.body).toMatchObject({ envelopeId: first.body.envelopeId, duplicate: true });
    const queued = await drain('grif');
    expect(queued.map((e) => e.kind === 'message' && e.text)).toEqual(['PR #7: Fix it']);
  });

  it('queues POST /hooks/wake as a system event for the default agent’s main session', async () => {
    const res = await post('/hooks/wake', { text: 'New email received', mode: 'now' }, { 'x-openclaw-token': TOKEN });
    expect(res.status).toBe(200);
    expect(await drain('jerry')).toEqual([expect.objectContaining({ kind: 'system_event', sessionKey: 'agent:jerry:main', text: 'New email received' })]);
  });

  it.each([
    ['a wrong token', '/hooks/agent', { message: 'hi' }, { authorization: 'Bearer wrong-token-0000000000000000' }, '', 401],
    ['a token in the query string', '/hooks/agent', { message: 'hi' }, {}, `token=${TOKEN}`, 400],
    ['an unsupported field', '/hooks/agent', { message: 'hi', model: 'openai/gpt-5.2-mini' }, {}, '', 400],
    ['an unknown agent', '/hooks/agent', { message: 'hi', agentId: 'zed' }, {}, '', 404],
    ['an unknown mapping', '/hooks/stripe', { id: 'evt_1' }, {}, '', 404],
    ['an oversized body', '/hooks/agent', { message: 'x'.repeat(300 * 1024) }, {}, '', 413],
  ])('refuses %s and queues nothing', async (_name, path, body, headers, query, status) => {
    const res = await post(path, body, headers, query);
    expect(res.status).toBe(status);
    expect(res.body.error).toEqual(expect.any(String));
    // Refusals are decided before anything is sent, so an immediate look suffices.
    for (const id of ['jerry', 'fran', 'grif']) expect(await drain(id, 0)).toEqual([]);
  });
});
