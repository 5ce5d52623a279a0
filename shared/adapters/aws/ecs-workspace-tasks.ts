// The agent's one-off workspace task on ECS (RunTask of <fleet>-agent-<id>-workspace, in the
// network of the agent's own service, the transfer in the container's environment) and the
// check that none of the agent's runtime tasks is alive before it runs; and the staging bucket
// its task definition names, so that the CLI needs nothing but ECS to find it.
import {
  DescribeServicesCommand,
  DescribeTaskDefinitionCommand,
  DescribeTasksCommand,
  ListTasksCommand,
  RunTaskCommand,
  StopTaskCommand,
  type ECSClient,
} from '@aws-sdk/client-ecs';
import { agentServiceName, agentWorkspaceTaskFamily, clusterName, WORKSPACE_SYNC_CONTAINER } from '../../config/names.ts';
import { ClawfleetError } from '../../errors.ts';
import type { AgentTasks, TaskState, WorkspaceTaskRun, WorkspaceTaskRunner } from '../../workspace/task-runner.ts';
import { RUN_TASK_TAGGING } from './ecs-task-tags.ts';

export class EcsWorkspaceTasks implements WorkspaceTaskRunner, AgentTasks {
  private readonly cluster: string;

  constructor(
    private readonly ecs: ECSClient,
    private readonly fleet: string,
  ) {
    this.cluster = clusterName(fleet);
  }

  /** The staging bucket the agent's workspace task definition hands its container; undefined when it names none. SDK errors (no such task definition) reach the caller. */
  async stagingBucket(agentId: string): Promise<string | undefined> {
    const { taskDefinition } = await this.ecs.send(new DescribeTaskDefinitionCommand({ taskDefinition: agentWorkspaceTaskFamily(this.fleet, agentId) }));
    return taskDefinition?.containerDefinitions
      ?.find((c) => c.name === WORKSPACE_SYNC_CONTAINER)
      ?.environment?.find((e) => e.name === 'CLAWFLEET_STAGING_BUCKET')?.value;
  }

  async alive(agentId: string): Promise<number> {
    const serviceName = agentServiceName(agentId);
    const arns: string[] = [];
    // Tasks told to stop are listed as desired STOPPED until they are: both lists, then their real state.
    for (const desiredStatus of ['RUNNING', 'STOPPED'] as const) {
      let nextToken: string | undefined;
      do {
        const page = await this.ecs.send(new ListTasksCommand({ cluster: this.cluster, serviceName, desiredStatus, nextToken }));
        arns.push(...(page.taskArns ?? []));
        nextToken = page.nextToken;
      } while (nextToken);
    }
    let alive = 0;
    for (let i = 0; i < arns.length; i += 100) {
      const { tasks = [] } = await this.ecs.send(new DescribeTasksCommand({ cluster: this.cluster, tasks: arns.slice(i, i + 100) }));
      alive += tasks.filter((t) => t.lastStatus !== 'STOPPED').length;
    }
    return alive;
  }

  async start(agentId: string, run: WorkspaceTaskRun): Promise<string> {
    const service = agentServiceName(agentId);
    const { services = [] } = await this.ecs.send(new DescribeServicesCommand({ cluster: this.cluster, services: [service] }));
    const network = services[0]?.networkConfiguration;
    if (!network || services[0]?.status === 'INACTIVE') {
      throw new ClawfleetError('AGENT_NOT_DEPLOYED', `no service ${service} in cluster ${this.cluster}: deploy the agent's stack first`);
    }
    const out = await this.ecs.send(
      new RunTaskCommand({
        cluster: this.cluster,
        taskDefinition: agentWorkspaceTaskFamily(this.fleet, agentId),
        launchType: 'FARGATE',
        platformVersion: 'LATEST',
        count: 1,
        // The agent's own service's subnets and security group: the same path to EFS and S3.
        networkConfiguration: network,
        startedBy: 'clawfleet-workspace',
        ...RUN_TASK_TAGGING,
        overrides: {
          containerOverrides: [
            {
              name: WORKSPACE_SYNC_CONTAINER,
              environment: [
                { name: 'CLAWFLEET_SYNC_ACTION', value: run.action },
                { name: 'CLAWFLEET_SYNC_TRANSFER', value: run.transfer },
                { name: 'CLAWFLEET_SYNC_FORCE', value: run.force ? '1' : '0' },
              ],
            },
          ],
        },
      }),
    );
    const task = out.tasks?.[0]?.taskArn;
    if (!task) {
      const why = (out.failures ?? []).map((f) => `${f.reason ?? 'failed'}${f.detail ? ` (${f.detail})` : ''}`).join('; ') || 'no task started';
      throw new ClawfleetError('WORKSPACE_TASK_NOT_STARTED', `the workspace task of ${agentId} did not start: ${why}`);
    }
    return task;
  }

  async state(taskId: string): Promise<TaskState> {
    const { tasks = [] } = await this.ecs.send(new DescribeTasksCommand({ cluster: this.cluster, tasks: [taskId] }));
    const task = tasks[0];
    if (!task) return { done: true, exitCode: undefined, reason: 'the task is gone' };
    if (task.lastStatus !== 'STOPPED') return { done: false, status: task.lastStatus ?? 'PENDING' };
    const container = task.containers?.find((c) => c.name === WORKSPACE_SYNC_CONTAINER);
    return { done: true, exitCode: container?.exitCode, reason: [task.stoppedReason, container?.reason].filter(Boolean).join('; ') || 'stopped' };
  }

  async stop(taskId: string, reason: string): Promise<void> {
    await this.ecs.send(new StopTaskCommand({ cluster: this.cluster, task: taskId, reason: reason.slice(0, 255) }));
  }
}
