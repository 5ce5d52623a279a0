// A cron schedule in the emulator's EventBridge Scheduler that really fires: it invokes
// λ cron-dispatch (deployed into the emulator as a nodejs function), which queues a cron
// envelope on the agent's SQS queue.
import { CreateScheduleGroupCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EventBridgeCronScheduler } from '../../shared/adapters/aws/eventbridge-cron-scheduler.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { scheduleGroupName } from '../../shared/config/names.ts';
import { applyCronUpsert } from '../../shared/control/cron-requests.ts';
import { awsTestEnv } from '../support/aws.ts';
import { deployHandler } from '../support/lambda-deploy.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';

const aws = awsTestEnv();
let fleet: ProvisionedFleet;
let scheduler: EventBridgeCronScheduler;

beforeAll(async () => {
  const example = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  example.fleet = 'crontest';
  const config = parseConfig(example);
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: {} }, { ecs: true });
  const functionArn = await deployHandler(aws, 'cron-dispatch', 'crontest-cron-dispatch', {
    CLAWFLEET_CONFIG: JSON.stringify(config),
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
    AWS_REGION: aws.region,
  });
  const client = new SchedulerClient(aws);
  await client.send(new CreateScheduleGroupCommand({ Name: scheduleGroupName('crontest') }));
  scheduler = new EventBridgeCronScheduler(client, {
    group: scheduleGroupName('crontest'),
    functionArn,
    roleArn: `arn:aws:iam::${aws.accountId}:role/scheduler`,
  });
}, 120_000);

describe('a cron job in EventBridge Scheduler', () => {
  it('fires, and its envelope reaches the agent’s queue', async () => {
    // 15 s ahead: the upsert must come first (a time already past is refused), and 3 s was a guess a busy machine could lose.
    const at = new Date(Date.now() + 15_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const outcome = await applyCronUpsert(
      {
        v: PROTOCOL_VERSION,
        kind: 'cron_upsert',
        id: 'u1',
        agentId: 'fran',
        ts: 1,
        jobId: 'remind',
        schedule: { kind: 'at', at },
        sessionTarget: 'isolated',
        message: 'stand up and stretch',
      },
      'fran',
      scheduler,
      { now: () => Date.now() },
    );
    expect(outcome).toEqual({ ok: true, schedule: 'agent-fran-remind' });
    expect(await scheduler.list('agent-fran-')).toEqual(['agent-fran-remind']);

    const sqs = new SQSClient(aws);
    let body: Record<string, unknown> | undefined;
    // The emulator's scheduler ticks every 10 s.
    const deadline = Date.now() + 90_000;
    while (!body && Date.now() < deadline) {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: fleet.queues.fran!.inbox, WaitTimeSeconds: 5 }));
      if (Messages?.[0]) body = JSON.parse(Messages[0].Body!);
    }
    expect(body).toMatchObject({
      kind: 'cron',
      agentId: 'fran',
      jobId: 'remind',
      sessionKey: 'agent:fran:cron:remind',
      payload: { kind: 'agentTurn', message: 'stand up and stretch' },
    });
  }, 150_000);
});
