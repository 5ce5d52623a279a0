// The CLI's ports for `workspace push|pull --aws` (and `destroy`'s export of workspaces),
// grouped as control-ports.ts groups the control plane's, so that no file under cli/ sends an
// AWS command itself: the group builds its SDK clients once, from the settings the CLI read from
// its environment (cli/aws-env.ts), and hands the command only the narrow ports it calls. One
// file a group (cli-*-ports.ts), so a command loads only its own adapters.
import { functionName, stagingPrefix, tableNames } from '../../config/names.ts';
import { dynamoDocumentClient, ecsClient, type AwsClientConfig } from './clients.ts';
import { DynamoAgentRegistry } from './dynamo-agent-registry.ts';
import { DynamoWorkspaceSyncLog } from './dynamo-workspace-sync-log.ts';
import { EcsWorkspaceTasks } from './ecs-workspace-tasks.ts';
import { LambdaAgentCompute } from './lambda-agent-compute.ts';
import { S3WorkspaceStaging, stagingS3Client } from './s3-workspace-staging.ts';
import { SignedLambdaInvoker } from './signed-lambda-invoker.ts';
import { sqsClient } from './sqs-ports.ts';
import { SqsQueueDepths } from './sqs-queue-depths.ts';
import { SqsQueueDirectory } from './sqs-queues.ts';

/**
 * `workspace push|pull --aws` (and `destroy`'s export of workspaces): the registry and the sync
 * log, λ compute (asked, as every other caller asks it, to stop or start the agent), the
 * agent's queue depth, its runtime and workspace tasks, the staging bucket its task definition
 * names, and its prefix of that bucket.
 */
export function workspaceTransferPorts(config: AwsClientConfig, fleet: string) {
  const doc = dynamoDocumentClient(config);
  const sqs = sqsClient(config);
  const registryTable = tableNames(fleet).registry;
  const tasks = new EcsWorkspaceTasks(ecsClient(config), fleet);
  return {
    registry: new DynamoAgentRegistry(doc, registryTable),
    // λ compute alone changes a service.
    compute: new LambdaAgentCompute(new SignedLambdaInvoker(config), functionName(fleet, 'compute')),
    depths: new SqsQueueDepths(sqs, fleet, new SqsQueueDirectory(sqs)),
    syncLog: new DynamoWorkspaceSyncLog(doc, registryTable),
    tasks,
    stagingBucket: (agentId: string) => tasks.stagingBucket(agentId),
    staging: (bucket: string, agentId: string) => new S3WorkspaceStaging(stagingS3Client(config), bucket, stagingPrefix(agentId)),
  };
}
