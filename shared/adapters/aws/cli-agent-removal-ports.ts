// The CLI's ports for `agents remove|prune --aws`, grouped as control-ports.ts groups the
// control plane's, so that no file under cli/ sends an AWS command itself: the group builds its
// SDK clients once, from the settings the CLI read from its environment (cli/aws-env.ts), and
// hands the command only the narrow ports it calls. One file a group (cli-*-ports.ts), so a
// command loads only its own adapters.
import type { AgentRemovalPorts } from '../../deploy/agent-removal-ports.ts';
import { CloudFormationStacks, cloudFormationClient } from './cloudformation-stacks.ts';
import { CloudWatchLogEvents } from './cloudwatch-log-events.ts';
import { dynamoDocumentClient, ecsClient, type AwsClientConfig } from './clients.ts';
import { DynamoAgentRecords } from './dynamo-agent-records.ts';
import { EcsAgentArchive } from './ecs-agent-archive.ts';
import { EcsAgentServices } from './ecs-agent-services.ts';
import { EcsWorkspaceTasks } from './ecs-workspace-tasks.ts';
import { EventBridgeAgentSchedules } from './eventbridge-agent-schedules.ts';
import { schedulerClient } from './eventbridge-cron-scheduler.ts';
import { sqsClient } from './sqs-ports.ts';
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
