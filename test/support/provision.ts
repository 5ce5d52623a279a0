// Creates a fleet's queues, tables and secrets in the emulator, as the CDK app does on
// AWS, so integration tests run the real handlers and runtime against real wire protocols.
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateSecretCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { CreateClusterCommand, CreateServiceCommand, ECSClient, RegisterTaskDefinitionCommand } from '@aws-sdk/client-ecs';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { resolveAgent, runtimeConfigFor } from '../../shared/config/resolve.ts';
import {
  agentServiceName,
  clusterName,
  agentDlqName,
  agentQueueName,
  agentSecretName,
  outboxDlqName,
  outboxQueueName,
  tableNames,
  telegramSecretName,
} from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import type { AwsTestEnv } from './aws.ts';

export interface AgentQueueUrls {
  inbox: string;
  inboxDlq: string;
  outbox: string;
  outboxDlq: string;
  outboxArn: string;
}

export interface ProvisionedFleet {
  queues: Record<string, AgentQueueUrls>;
}

async function fifoQueue(sqs: SQSClient, name: string, opts: { dlqArn?: string; maxReceiveCount?: number; visibility?: number } = {}) {
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        FifoQueue: 'true',
        VisibilityTimeout: String(opts.visibility ?? 30),
        ...(opts.dlqArn ? { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: opts.dlqArn, maxReceiveCount: opts.maxReceiveCount ?? 5 }) } : {}),
      },
    }),
  );
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }));
  return { url: QueueUrl!, arn: Attributes!.QueueArn! };
}

export async function provisionFleet(
  env: AwsTestEnv,
  config: FleetConfig,
  secrets: { telegram: Record<string, string>; agents: Record<string, Record<string, string>> },
  /**
   * ecs: also create the cluster and one service per agent (desired count 1 if always on, else 0).
   * sqsEndpoint: create the queues in another SQS emulator than the rest (as AWS_ENDPOINT_URL_SQS points a runtime).
   */
  opts: { maxReceiveCount?: number; ecs?: boolean; sqsEndpoint?: string } = {},
): Promise<ProvisionedFleet> {
  const sqs = new SQSClient(opts.sqsEndpoint ? { ...env, endpoint: opts.sqsEndpoint } : env);
  const dynamo = new DynamoDBClient(env);
  const sm = new SecretsManagerClient(env);
  const queues: Record<string, AgentQueueUrls> = {};

  for (const { id } of config.agents.list) {
    const inboxDlq = await fifoQueue(sqs, agentDlqName(config.fleet, id));
    const inbox = await fifoQueue(sqs, agentQueueName(config.fleet, id), { dlqArn: inboxDlq.arn, maxReceiveCount: opts.maxReceiveCount });
    const outboxDlq = await fifoQueue(sqs, outboxDlqName(config.fleet, id));
    const outbox = await fifoQueue(sqs, outboxQueueName(config.fleet, id), { dlqArn: outboxDlq.arn, maxReceiveCount: opts.maxReceiveCount });
    queues[id] = { inbox: inbox.url, inboxDlq: inboxDlq.url, outbox: outbox.url, outboxDlq: outboxDlq.url, outboxArn: outbox.arn };
  }

  for (const table of Object.values(tableNames(config.fleet))) {
    await createPkTable(dynamo, table);
  }

  await sm.send(new CreateSecretCommand({ Name: telegramSecretName(config.fleet), SecretString: JSON.stringify(secrets.telegram) }));
  for (const [agentId, values] of Object.entries(secrets.agents)) {
    await sm.send(new CreateSecretCommand({ Name: agentSecretName(config.fleet, agentId), SecretString: JSON.stringify(values) }));
  }
  if (opts.ecs) await provisionServices(env, config);
  return { queues };
}

async function provisionServices(env: AwsTestEnv, config: FleetConfig): Promise<void> {
  const ecs = new ECSClient(env);
  const cluster = clusterName(config.fleet);
  await ecs.send(new CreateClusterCommand({ clusterName: cluster }));
  for (const { id } of config.agents.list) {
    const { taskDefinition } = await ecs.send(
      new RegisterTaskDefinitionCommand({
        family: `${config.fleet}-agent-${id}`,
        requiresCompatibilities: ['FARGATE'],
        networkMode: 'awsvpc',
        cpu: '256',
        memory: '512',
        containerDefinitions: [{ name: 'runtime', image: 'public.ecr.aws/docker/library/node:24-slim', essential: true }],
      }),
    );
    await ecs.send(
      new CreateServiceCommand({
        cluster,
        serviceName: agentServiceName(id),
        taskDefinition: taskDefinition!.taskDefinitionArn,
        desiredCount: resolveAgent(config, id).runtime.alwaysOn ? 1 : 0,
        launchType: 'FARGATE',
      }),
    );
  }
}

/** A DynamoDB table keyed by the string `pk` alone, as infra/constructs/fleet-tables.ts makes the fleet's tables. */
export async function createPkTable(dynamo: DynamoDBClient, name: string): Promise<void> {
  await dynamo.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
    }),
  );
}

/** The AWS SDK's settings for a child process: the emulator, its region and the keys to sign with. */
export function awsEnvVars(aws: AwsTestEnv): Record<string, string> {
  return {
    AWS_ENDPOINT_URL: aws.endpoint,
    AWS_REGION: aws.region,
    AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
  };
}

/** What a runtime on a provisioned fleet's queues is given: the agent, its config slice, its workspace, and its queues' seconds. */
export interface QueueRuntime {
  config: FleetConfig;
  agentId: string;
  workspace: string;
  visibilitySeconds: number;
  drainSeconds: number;
}

/**
 * A runtime process's environment on `r.agentId`'s provisioned inbox, outbox and DLQ, long polls
 * of a second, and no secret id: the runtime reads no secret (queue-turn.ts's emulatorRuntimeEnv
 * names the agent's secret, through the product's runtimeEnvironment).
 */
export function queueRuntimeEnv(aws: AwsTestEnv, fleet: ProvisionedFleet, r: QueueRuntime): Record<string, string> {
  const queues = fleet.queues[r.agentId];
  if (!queues) throw new Error(`no queues were provisioned for agent "${r.agentId}"`);
  return {
    CLAWFLEET_AGENT_ID: r.agentId,
    CLAWFLEET_RUNTIME_CONFIG: JSON.stringify(runtimeConfigFor(r.config, r.agentId)),
    CLAWFLEET_INBOX_URL: queues.inbox,
    CLAWFLEET_OUTBOX_URL: queues.outbox,
    CLAWFLEET_DLQ_URL: queues.inboxDlq,
    CLAWFLEET_WORKSPACE: r.workspace,
    CLAWFLEET_VISIBILITY_SECONDS: String(r.visibilitySeconds),
    CLAWFLEET_WAIT_SECONDS: '1',
    CLAWFLEET_DRAIN_SECONDS: String(r.drainSeconds),
    ...awsEnvVars(aws),
  };
}
