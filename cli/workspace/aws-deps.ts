// The deployed fleet's side of `clawfleet workspace --aws`: the registry table, λ compute
// (asked, as every other caller asks it, to stop or start the agent), the agent's queue depth,
// ECS for its tasks and the one-off task, and its prefix of the staging bucket — whose name
// the agent's workspace task definition carries, so the CLI needs nothing but ECS to find it.
import { randomBytes } from 'node:crypto';
import { DescribeTaskDefinitionCommand, ECSClient } from '@aws-sdk/client-ecs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoAgentRegistry } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoWorkspaceSyncLog } from '../../shared/adapters/aws/dynamo-workspace-sync-log.ts';
import { EcsWorkspaceTasks } from '../../shared/adapters/aws/ecs-workspace-tasks.ts';
import { LambdaAgentCompute } from '../../shared/adapters/aws/lambda-agent-compute.ts';
import { S3WorkspaceStaging, stagingS3Client } from '../../shared/adapters/aws/s3-workspace-staging.ts';
import { SignedLambdaInvoker } from '../../shared/adapters/aws/signed-lambda-invoker.ts';
import { SqsQueueDepths } from '../../shared/adapters/aws/sqs-queue-depths.ts';
import { SqsQueueDirectory } from '../../shared/adapters/aws/sqs-queues.ts';
import { agentWorkspaceTaskFamily, functionName, stagingPrefix, tableNames, WORKSPACE_SYNC_CONTAINER } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { awsSettings } from '../aws-env.ts';
import { awsErrorText } from '../aws-errors.ts';
import { CliError, EXIT, type CliIO } from '../command.ts';
import type { AwsTransferDeps } from './aws-transfer.ts';

export async function awsTransferDeps(config: FleetConfig, agentId: string, io: CliIO): Promise<AwsTransferDeps> {
  const settings = awsSettings(io);
  const ecs = new ECSClient(settings);
  const family = agentWorkspaceTaskFamily(config.fleet, agentId);
  let bucket: string | undefined;
  try {
    const { taskDefinition } = await ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: family }));
    bucket = taskDefinition?.containerDefinitions
      ?.find((c) => c.name === WORKSPACE_SYNC_CONTAINER)
      ?.environment?.find((e) => e.name === 'CLAWFLEET_STAGING_BUCKET')?.value;
  } catch (err) {
    throw new CliError(
      EXIT.failed,
      awsErrorText(`cannot read the task definition ${family} (deploy the agent's stack, ${config.fleet}-agent-${agentId}, first)`, err, settings),
    );
  }
  if (!bucket) throw new CliError(EXIT.failed, `the task definition ${family} names no staging bucket; redeploy the agent's stack`);
  const doc = DynamoDBDocumentClient.from(new DynamoDBClient(settings), { marshallOptions: { removeUndefinedValues: true } });
  const registryTable = tableNames(config.fleet).registry;
  const sqs = new SQSClient(settings);
  const tasks = new EcsWorkspaceTasks(ecs, config.fleet);
  return {
    lifecycle: {
      registry: new DynamoAgentRegistry(doc, registryTable),
      // Asked like every caller asks it: λ compute alone changes a service.
      compute: new LambdaAgentCompute(new SignedLambdaInvoker(settings), functionName(config.fleet, 'compute')),
      depths: new SqsQueueDepths(sqs, config.fleet, new SqsQueueDirectory(sqs)),
      clock: systemClock,
      log: memoryLogger(),
    },
    tasks,
    runner: tasks,
    staging: new S3WorkspaceStaging(stagingS3Client(settings), bucket, stagingPrefix(agentId)),
    syncLog: new DynamoWorkspaceSyncLog(doc, registryTable),
    say: (line) => io.err(line),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    newTransferId: () => `${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15).toLowerCase()}-${randomBytes(4).toString('hex')}`,
    limits: { stopMs: 5 * 60_000, taskMs: 60 * 60_000, pollMs: 3_000 },
  };
}
