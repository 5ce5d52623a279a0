// The CLI's ports on AWS, grouped by the command that uses them as control-ports.ts groups the
// control plane's: each group builds its SDK clients once, from the settings the CLI read from
// its environment (cli/aws-env.ts), and hands its command only the narrow ports it calls, so
// that no file under cli/ sends an AWS command itself.
import type { AgentRemovalPorts } from '../../deploy/agent-removal-ports.ts';
import { functionName, stagingPrefix, tableNames } from '../../config/names.ts';
import { CloudFormationStacks, cloudFormationClient } from './cloudformation-stacks.ts';
import { CloudWatchLogEvents } from './cloudwatch-log-events.ts';
import { dynamoDocumentClient, ecsClient, type AwsClientConfig } from './clients.ts';
import { DynamoAgentRecords } from './dynamo-agent-records.ts';
import { DynamoAgentRegistry } from './dynamo-agent-registry.ts';
import { DynamoWorkspaceSyncLog } from './dynamo-workspace-sync-log.ts';
import { EcsAgentArchive } from './ecs-agent-archive.ts';
import { EcsAgentServices } from './ecs-agent-services.ts';
import { EcsWorkspaceTasks } from './ecs-workspace-tasks.ts';
import { EventBridgeAgentSchedules } from './eventbridge-agent-schedules.ts';
import { schedulerClient } from './eventbridge-cron-scheduler.ts';
import { LambdaAgentCompute } from './lambda-agent-compute.ts';
import { S3WorkspaceStaging, stagingS3Client } from './s3-workspace-staging.ts';
import { SecretsManagerSecrets } from './secrets-manager-secrets.ts';
import { SignedLambdaInvoker } from './signed-lambda-invoker.ts';
import { sqsClient } from './sqs-ports.ts';
import { SqsQueueDepths } from './sqs-queue-depths.ts';
import { SqsQueueStats } from './sqs-queue-stats.ts';
import { SqsQueueDirectory } from './sqs-queues.ts';

/** `agents remove|prune --aws`: the agent's stack, queues, schedules, records, service and archive task, and the archive's log. */
export function agentRemovalPorts(config: AwsClientConfig, fleet: string): AgentRemovalPorts {
  const ecs = ecsClient(config);
  const sqs = sqsClient(config);
  const services = new EcsAgentServices(ecs, fleet);
  const runtimeTasks = new EcsWorkspaceTasks(ecs, fleet);
  const archive = new EcsAgentArchive(ecs, fleet);
  return {
    stacks: new CloudFormationStacks(cloudFormationClient(config)),
    queues: new SqsQueueStats(sqs, fleet, new SqsQueueDirectory(sqs)),
    schedules: new EventBridgeAgentSchedules(schedulerClient(config), fleet),
    records: new DynamoAgentRecords(dynamoDocumentClient(config), fleet),
    compute: {
      stopService: async (agentId) => void (await services.update(agentId, { desiredCount: 0 })),
      alive: (agentId) => runtimeTasks.alive(agentId),
      service: (agentId) => archive.service(agentId),
      startArchive: (agentId, network, startedBy) => archive.start(agentId, network, startedBy),
      task: (taskId) => archive.task(taskId),
    },
    logs: CloudWatchLogEvents.for(config),
  };
}

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

/** `dashboard --aws`: the control plane stack's outputs (the dashboard's Function URL) and the dashboard's secret. */
export function dashboardLinkPorts(config: AwsClientConfig) {
  const stacks = new CloudFormationStacks(cloudFormationClient(config));
  return {
    /** The stack's outputs, or undefined where it is not deployed. */
    outputs: async (stackName: string) => (await stacks.get(stackName))?.outputs,
    secrets: SecretsManagerSecrets.for(config),
  };
}
