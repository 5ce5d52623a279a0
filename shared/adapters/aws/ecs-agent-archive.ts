// The one-off archive task an agent's stack has (infra/constructs/workspace-archive.ts), for
// `clawfleet agents remove --aws`: run in the network of the agent's own service, and watched
// until it stops. Whether the runtime is still up is asked of the agent's service and tasks
// (EcsAgentServices, EcsWorkspaceTasks).
import { DescribeTasksCommand, RunTaskCommand, type ECSClient } from '@aws-sdk/client-ecs';
import { agentArchiveTaskFamily, clusterName } from '../../config/names.ts';
import type { AgentNetwork, AgentServiceView, OneOffTask } from '../../deploy/agent-removal-ports.ts';
import { EcsAgentServices } from './ecs-agent-services.ts';
import { RUN_TASK_TAGGING } from './ecs-task-tags.ts';

export class EcsAgentArchive {
  private readonly services: EcsAgentServices;

  constructor(
    private readonly ecs: ECSClient,
    private readonly fleet: string,
  ) {
    this.services = new EcsAgentServices(ecs, fleet);
  }

  /** The agent's service, or undefined when there is none. */
  async service(agentId: string): Promise<AgentServiceView | undefined> {
    const service = (await this.services.describe([agentId])).get(agentId);
    if (!service) return undefined;
    const vpc = service.networkConfiguration?.awsvpcConfiguration;
    return {
      desiredCount: service.desiredCount ?? 0,
      // The archive task reaches EFS as the runtime does: with a public IP unless the service says otherwise.
      network: vpc?.subnets?.length ? { subnets: vpc.subnets, securityGroups: vpc.securityGroups, assignPublicIp: vpc.assignPublicIp ?? 'ENABLED' } : undefined,
    };
  }

  /** Runs the agent's archive task where its runtime runs; the task's ARN (none if ECS answered without one). Throws with ECS's reasons for a failure. */
  async start(agentId: string, network: AgentNetwork, startedBy: string): Promise<string | undefined> {
    const out = await this.ecs.send(
      new RunTaskCommand({
        cluster: clusterName(this.fleet),
        taskDefinition: agentArchiveTaskFamily(this.fleet, agentId),
        count: 1,
        launchType: 'FARGATE',
        networkConfiguration: { awsvpcConfiguration: network },
        startedBy,
        ...RUN_TASK_TAGGING,
      }),
    );
    if (out.failures?.length) throw new Error(out.failures.map((f) => `${f.reason}${f.detail ? ` (${f.detail})` : ''}`).join('; '));
    return out.tasks?.[0]?.taskArn;
  }

  /** The task as ECS last saw it; undefined when ECS knows no such task. */
  async task(taskArn: string): Promise<OneOffTask | undefined> {
    const task = (await this.ecs.send(new DescribeTasksCommand({ cluster: clusterName(this.fleet), tasks: [taskArn] }))).tasks?.[0];
    if (!task) return undefined;
    const container = task.containers?.[0];
    return { status: task.lastStatus ?? 'unknown', exitCode: container?.exitCode, reason: task.stoppedReason ?? container?.reason };
  }
}
