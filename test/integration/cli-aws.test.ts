// The CLI against a deployed fleet, over the real AWS wire protocols (the emulator): the
// resources each command reads are created as the CDK app names them.
import { readFileSync } from 'node:fs';
import { CloudWatchLogsClient, CreateLogGroupCommand, CreateLogStreamCommand, PutLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { CreateClusterCommand, CreateServiceCommand, DescribeServicesCommand, ECSClient, RegisterTaskDefinitionCommand } from '@aws-sdk/client-ecs';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { agentRegistryKey } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { agentLogGroupName, agentServiceName, clusterName, tableNames } from '../../shared/config/names.ts';
import { awsTestEnv } from '../support/aws.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { captureIO } from '../unit/cli-io.ts';
import { setHandlerEnv } from '../support/aws.ts';
import { start as startTelegram, type FakeTelegram } from '../support/fake-telegram.ts';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoInboundOrigins } from '../../shared/adapters/aws/dynamo-inbound-origins.ts';
import { DynamoPairingStore } from '../../shared/adapters/aws/dynamo-pairing-store.ts';
import { dynamoDocumentClient } from '../../shared/adapters/aws/clients.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { tempDir } from '../support/temp-dirs.ts';

const aws = awsTestEnv();
const configJson = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
configJson.cron = {
  jobs: [
    {
      id: 'brief',
      agentId: 'grif',
      schedule: { kind: 'every', every: '1d' },
      payload: { kind: 'agentTurn', message: 'Morning brief' },
      delivery: { mode: 'announce', accountId: 'grif', to: '5151' },
    },
  ],
};
const GRIF_BOT = '2000003:AAgrif-cli-cron-token-00000000000000';
let config: ReturnType<typeof parseConfig>;
const dir = tempDir('cf-cli-aws-');
let fleet: ProvisionedFleet;
let tg: FakeTelegram;
const ecs = new ECSClient(aws);

async function clawfleet(...argv: string[]) {
  const io = captureIO({
    cwd: dir,
    env: {
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_REGION: aws.region,
      AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    },
  });
  const code = await runCli([...argv, '--aws'], io);
  return { code, out: io.outText(), err: io.errText() };
}

beforeAll(async () => {
  tg = await startTelegram({ bots: [{ token: GRIF_BOT }] });
  configJson.channels.telegram.apiRoot = tg.url;
  config = parseConfig(configJson);
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(configJson));
  fleet = await provisionFleet(aws, config, { telegram: { GRIF_BOT_TOKEN: GRIF_BOT }, agents: { fran: { OPENAI_API_KEY: 'sk-test-aws-fran-0123456789' } } });
  await ecs.send(new CreateClusterCommand({ clusterName: clusterName(config.fleet) }));
  const { taskDefinition } = await ecs.send(
    new RegisterTaskDefinitionCommand({
      family: 'agent',
      requiresCompatibilities: ['FARGATE'],
      networkMode: 'awsvpc',
      cpu: '256',
      memory: '512',
      containerDefinitions: [{ name: 'runtime', image: 'public.ecr.aws/docker/library/node:24' }],
    }),
  );
  for (const { id } of config.agents.list) {
    await ecs.send(
      new CreateServiceCommand({
        cluster: clusterName(config.fleet),
        serviceName: agentServiceName(id),
        taskDefinition: taskDefinition!.taskDefinitionArn,
        desiredCount: id === 'jerry' ? 1 : 0,
        launchType: 'FARGATE',
      }),
    );
  }
  const sqs = new SQSClient(aws);
  await sqs.send(new SendMessageCommand({ QueueUrl: fleet.queues.ray!.inbox, MessageBody: '{}', MessageGroupId: 'g', MessageDeduplicationId: 'waiting-1' }));
  await sqs.send(new SendMessageCommand({ QueueUrl: fleet.queues.ray!.inboxDlq, MessageBody: '{}', MessageGroupId: 'g', MessageDeduplicationId: 'parked-1' }));
  const db = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
  await db.send(
    new PutCommand({
      TableName: tableNames(config.fleet).registry,
      Item: {
        pk: agentRegistryKey('jerry'),
        state: 'awake',
        lastHeartbeatAt: Date.now() - 30_000,
        lastError: 'model timed out',
        warnings: ['exec is off: no sandbox is available (the tool uid pool does not work here)'],
      },
    }),
  );
});

afterAll(() => tg?.close());

describe('clawfleet --aws', () => {
  it('reports each agent from ECS, SQS and the registry', async () => {
    const { code, out } = await clawfleet('status');
    expect(code).toBe(0);
    // Which fleet, in which account and region, it reached.
    expect(out.split('\n')[0]).toBe(`fleet "demo" on AWS account ${aws.accountId}, ${aws.region} at ${aws.endpoint} (cluster clawfleet-demo)`);
    expect(out).toMatch(/^jerry\s+awake\s+anthropic\/claude-sonnet-4-5\s+0\/0\s+0\s+3\ds ago\s+model timed out/m);
    expect(out).toMatch(/^ray\s+asleep\s+\S+\s+1\/0\s+1\s+—/m);
    expect(out).toContain('jerry: desired 1, running 1; registry: awake');
    // What the runtime's last heartbeat warned about, from the registry item.
    expect(out).toMatch(/^Warnings:\n {2}⚠ jerry: exec is off: no sandbox is available \(the tool uid pool does not work here\)$/m);
  });

  it('hibernates, wakes and restarts one agent’s ECS service only', async () => {
    expect((await clawfleet('runtime', 'wake', '--agent', 'fran')).out).toContain('fran: ');
    const services = async () =>
      new Map(
        (
          (await ecs.send(new DescribeServicesCommand({ cluster: clusterName(config.fleet), services: config.agents.list.map((a) => agentServiceName(a.id)) })))
            .services ?? []
        ).map((s) => [s.serviceName, s.desiredCount]),
      );
    expect((await services()).get('agent-fran')).toBe(1);
    expect((await clawfleet('runtime', 'hibernate', '--agent', 'jerry')).code).toBe(0);
    const after = await services();
    expect(after.get('agent-jerry')).toBe(0);
    expect(after.get('agent-fran')).toBe(1);
    expect(after.get('agent-grif')).toBe(0);
    const restarted = await clawfleet('runtime', 'restart', '--agent', 'fran');
    expect(restarted.code).toBe(0);
    // It waits for ECS to call the service stable (the emulator runs its one task at once).
    const where = `fleet "demo" on AWS account ${aws.accountId}, ${aws.region} at ${aws.endpoint}`;
    expect(restarted.out.startsWith(`restart fran in ${where}…\n`)).toBe(true);
    expect(restarted.out).toMatch(/…\nfran: waiting until its ECS service is stable \(--no-wait skips this\)…\nfran: awake \(after \d+\.\d s\)$/);
    expect((await clawfleet('runtime', 'upgrade', '--agent', 'fran', '--no-wait')).out).toBe(`upgrade fran in ${where}…\nfran: awake`);
  });

  it('fails clearly when the agent’s service is missing', async () => {
    const other = awsTestEnv('123123123123');
    const io = captureIO({
      cwd: dir,
      env: { AWS_ENDPOINT_URL: other.endpoint, AWS_REGION: other.region, AWS_ACCESS_KEY_ID: other.accountId, AWS_SECRET_ACCESS_KEY: 'test' },
    });
    expect(await runCli(['runtime', 'restart', '--agent', 'fran', '--aws'], io)).toBe(1);
    expect(io.errText()).toMatch(
      /cannot restart agent-fran in cluster clawfleet-demo: it does not exist at .* \(AWS_ENDPOINT_URL\).*; deploy the fleet there first \(clawfleet deploy\), or check AWS_REGION and the account you are signed in to \[\w+NotFoundException\]/,
    );
  });

  it('sets and lists secrets in Secrets Manager, names only', async () => {
    const io = captureIO({
      cwd: dir,
      stdin: 'graph-token-value-0123456789\n',
      env: { AWS_ENDPOINT_URL: aws.endpoint, AWS_REGION: aws.region, AWS_ACCESS_KEY_ID: aws.accountId, AWS_SECRET_ACCESS_KEY: 'test' },
    });
    expect(await runCli(['secrets', 'set', 'GRAPH_TOKEN', '--agent', 'fran', '--aws'], io)).toBe(0);
    // Stored, then the agent's restart asked of λ compute, which this account does not have:
    // a note that says what happens anyway and how to restart by hand (deploy-day.test.ts asks a deployed one).
    expect(io.errText()).toBe(
      'note: could not ask demo-compute to restart agent fran: ResourceNotFoundException. A runtime waiting for this value finds it within a minute on its own; to restart it now: clawfleet runtime restart --agent fran --aws',
    );
    const sm = new SecretsManagerClient(aws);
    const stored = JSON.parse((await sm.send(new GetSecretValueCommand({ SecretId: 'clawfleet/demo/agents/fran' }))).SecretString!);
    expect(stored).toEqual({ OPENAI_API_KEY: 'sk-test-aws-fran-0123456789', GRAPH_TOKEN: 'graph-token-value-0123456789' });
    const list = await clawfleet('secrets', 'list', '--agent', 'fran');
    expect(list.out).toContain('  GRAPH_TOKEN');
    expect(list.out).not.toContain('graph-token-value');
    // A secret that does not exist yet is created.
    const create = captureIO({ cwd: dir, stdin: 'abc-0123456789', env: io.env });
    expect(await runCli(['secrets', 'set', 'ANTHROPIC_API_KEY', '--agent', 'jerry', '--aws'], create)).toBe(0);
    expect(JSON.parse((await sm.send(new GetSecretValueCommand({ SecretId: 'clawfleet/demo/agents/jerry' }))).SecretString!)).toEqual({
      ANTHROPIC_API_KEY: 'abc-0123456789',
    });
  });

  it('runs a cron job now as its schedule would: queued, the sleeping agent woken, and the turn’s answer delivered to the job’s chat', async () => {
    const { code, out } = await clawfleet('cron', 'run', 'brief');
    expect(code).toBe(0);
    const { Messages } = await new SQSClient(aws).send(new ReceiveMessageCommand({ QueueUrl: fleet.queues.grif!.inbox, WaitTimeSeconds: 1 }));
    const envelope = JSON.parse(Messages![0]!.Body!);
    expect(envelope).toMatchObject({
      v: PROTOCOL_VERSION,
      kind: 'cron',
      id: expect.stringMatching(/^cron\.grif\.brief\.manual\./),
      agentId: 'grif',
      jobId: 'brief',
      sessionKey: 'agent:grif:main',
      payload: { kind: 'agentTurn', message: 'Morning brief' },
    });
    expect(out).toBe(`queued brief for grif in fleet "demo" on AWS account ${aws.accountId}, ${aws.region} at ${aws.endpoint}: envelope ${envelope.id}`);
    // Woken as a schedule's firing wakes it: the registry's transition, then the service.
    const db = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
    expect(await new DynamoAgentRegistry(db, tableNames(config.fleet).registry).get('grif')).toMatchObject({ state: 'waking' });
    const { services } = await ecs.send(new DescribeServicesCommand({ cluster: clusterName(config.fleet), services: [agentServiceName('grif')] }));
    expect(services?.[0]?.desiredCount).toBe(1);
    // Its answer goes to the chat the job names, through λ outbox, as any answer does.
    expect(await new DynamoInboundOrigins(db, tableNames(config.fleet).origins).get(envelope.id)).toMatchObject({
      target: { channel: 'telegram', accountId: 'grif', chatId: '5151' },
    });
    setHandlerEnv(aws, config);
    const { handler: outbox } = await import('../../functions/outbox.ts');
    const reply = {
      v: PROTOCOL_VERSION,
      kind: 'reply',
      id: `${envelope.id}.reply.0`.slice(0, 128),
      agentId: 'grif',
      sessionKey: 'agent:grif:main',
      inReplyTo: envelope.id,
      ts: Date.now(),
      text: 'Your morning brief',
    };
    const result = await outbox({
      Records: [
        {
          messageId: 'm1',
          receiptHandle: 'r1',
          body: JSON.stringify(reply),
          eventSourceARN: fleet.queues.grif!.outboxArn,
          attributes: { MessageGroupId: reply.sessionKey },
        },
      ],
    });
    expect(result.batchItemFailures).toEqual([]);
    expect(tg.calls('sendMessage').map((c) => [String(c.params.chat_id), c.params.text])).toEqual([['5151', 'Your morning brief']]);
  });

  it('prints an agent’s CloudWatch log events', async () => {
    const logs = new CloudWatchLogsClient(aws);
    const logGroupName = agentLogGroupName(config.fleet, 'grif');
    await logs.send(new CreateLogGroupCommand({ logGroupName }));
    await logs.send(new CreateLogStreamCommand({ logGroupName, logStreamName: 'runtime/1' }));
    await logs.send(
      new PutLogEventsCommand({
        logGroupName,
        logStreamName: 'runtime/1',
        logEvents: [
          { timestamp: Date.now() - 2_000, message: JSON.stringify({ level: 'info', msg: 'ready', agentId: 'grif' }) },
          { timestamp: Date.now() - 1_000, message: JSON.stringify({ level: 'error', msg: 'turn failed', agentId: 'grif' }) },
        ],
      }),
    );
    const { code, out, err } = await clawfleet('logs', '--agent', 'grif');
    expect(code).toBe(0);
    expect(out).toMatch(/ready[\s\S]*✖ turn failed/);
    expect(err).toBe(
      `fleet "demo" on AWS account ${aws.accountId}, ${aws.region} at ${aws.endpoint}: grif's log group /clawfleet/demo/agents/grif, the last 1h`,
    );
  });

  it('says a dashboard sign-in link needs the deployed control plane, where the fleet has none', async () => {
    const { code, out, err } = await clawfleet('dashboard');
    expect(code).toBe(1);
    expect(out).toBe('');
    expect(err).toContain(`has no stack demo-control-plane: deploy the fleet first (npx clawfleet deploy)`);
  });

  it('lists pending pairings from the registry table', async () => {
    const { code, out } = await clawfleet('pairing', 'list');
    expect(code).toBe(0);
    expect(out).toBe(`fleet "demo" on AWS account ${aws.accountId}, ${aws.region} at ${aws.endpoint}: no pending pairing requests`);
  });

  it('approves a pending sender by code (any case), after which the code is gone; a wrong code is refused by name', async () => {
    const store = new DynamoPairingStore(dynamoDocumentClient(aws), tableNames(config.fleet).registry);
    const now = Date.now();
    // No display name: the item written has no undefined field for the client to choke on.
    await store.createPending({
      channel: 'telegram',
      accountId: 'grif',
      peerId: '777001',
      code: 'QWER7788',
      status: 'pending',
      createdAt: now,
      expiresAt: now + 3_600_000,
    });
    const listed = await clawfleet('pairing', 'list');
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/grif\s+777001\s+—\s+QWER7788/);

    const approved = await clawfleet('pairing', 'approve', 'qwer7788');
    expect(approved).toMatchObject({ code: 0, out: expect.stringContaining('approved 777001 (telegram user 777001) for account grif') });
    expect((await store.get('grif', '777001'))?.status).toBe('approved');
    expect((await clawfleet('pairing', 'list')).out).toContain('no pending pairing requests');

    const wrong = await clawfleet('pairing', 'approve', 'QWER7788');
    expect(wrong.code).not.toBe(0);
    expect(wrong.err).toContain('no pending pairing with code QWER7788');
  });
});
