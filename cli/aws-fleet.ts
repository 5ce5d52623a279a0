// The deployed fleet as the CLI sees it: ECS services for state and lifecycle, SQS for
// queue and DLQ depths, the registry table for heartbeats and errors, each read through the
// control plane's own AWS adapters (shared/adapters/aws/), so names and keys are the CDK app's.
import { dynamoDocumentClient, ecsClient } from '../shared/adapters/aws/clients.ts';
import { sqsClient } from '../shared/adapters/aws/sqs-ports.ts';
import { DynamoAgentRegistry } from '../shared/adapters/aws/dynamo-agent-registry.ts';
import { DynamoSpendCounts } from '../shared/adapters/aws/dynamo-spend.ts';
import { spendStatusText, spendView } from '../shared/control/budget-gate.ts';
import { type AgentService, EcsAgentServices, type ServiceChange } from '../shared/adapters/aws/ecs-agent-services.ts';
import { SqsQueueStats, type QueueCounts } from '../shared/adapters/aws/sqs-queue-stats.ts';
import { SqsQueueDirectory } from '../shared/adapters/aws/sqs-queues.ts';
import { agentDlqName, agentQueueName, agentServiceName, clusterName, outboxDlqName, tableNames } from '../shared/config/names.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { AgentRecord } from '../shared/ports.ts';
import type { AgentStatus, FleetStatus } from '../local/fleet-status.ts';
import type { LifecycleAction } from '../local/runtime-launcher.ts';
import { type AwsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, EXIT } from './command.ts';

export class AwsFleet {
  private readonly services: EcsAgentServices;
  private readonly queues: SqsQueueStats;
  private readonly registry: DynamoAgentRegistry;
  private readonly counts: DynamoSpendCounts;

  constructor(
    readonly config: FleetConfig,
    readonly aws: AwsSettings,
  ) {
    const sqs = sqsClient(aws);
    this.services = new EcsAgentServices(ecsClient(aws), config.fleet);
    this.queues = new SqsQueueStats(sqs, config.fleet, new SqsQueueDirectory(sqs));
    const dynamo = dynamoDocumentClient(aws);
    this.registry = new DynamoAgentRegistry(dynamo, tableNames(config.fleet).registry);
    this.counts = new DynamoSpendCounts(dynamo, tableNames(config.fleet).spend);
  }

  private async describe(agentIds: readonly string[]): Promise<Map<string, AgentService>> {
    try {
      return await this.services.describe(agentIds);
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot describe the services of cluster ${clusterName(this.config.fleet)}`, err, this.aws));
    }
  }

  /** Messages visible and in flight; undefined when the queue does not exist. */
  private async depth(queueName: string): Promise<QueueCounts | undefined> {
    try {
      return await this.queues.counts(queueName);
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot read queue ${queueName}`, err, this.aws));
    }
  }

  private async record(agentId: string): Promise<AgentRecord | undefined> {
    try {
      return await this.registry.get(agentId);
    } catch (err) {
      if ((err as Error).name === 'ResourceNotFoundException') return undefined;
      throw new CliError(EXIT.failed, awsErrorText(`cannot read the registry ${tableNames(this.config.fleet).registry}`, err, this.aws));
    }
  }

  /** A metered agent's spend (#31), as the control plane counted it; absent for an agent without a budget. */
  private async spend(agentId: string): Promise<string | undefined> {
    try {
      const view = await spendView(this.config, agentId, () => this.counts, Date.now());
      return view && spendStatusText(view, Date.now());
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot read the spend table ${tableNames(this.config.fleet).spend}`, err));
    }
  }

  async status(): Promise<FleetStatus> {
    const { fleet } = this.config;
    const services = await this.describe(this.config.agents.list.map((a) => a.id));
    const agents: AgentStatus[] = [];
    for (const agent of this.config.agents.list) {
      const service = services.get(agent.id);
      const [queue, dlq, outboxDlq, record, spend] = await Promise.all([
        this.depth(agentQueueName(fleet, agent.id)),
        this.depth(agentDlqName(fleet, agent.id)),
        this.depth(outboxDlqName(fleet, agent.id)),
        this.record(agent.id),
        this.spend(agent.id),
      ]);
      const notes: string[] = [];
      if (!service || service.status === 'INACTIVE') notes.push('no ECS service');
      if (!queue) notes.push(`no queue ${agentQueueName(fleet, agent.id)}`);
      agents.push({
        id: agent.id,
        name: agent.name ?? agent.id,
        state: serviceState(service),
        model: resolveAgent(this.config, agent.id).model?.primary ?? '',
        queue: queue ? { visible: queue.visible, inFlight: queue.inFlight } : { visible: 0, inFlight: 0 },
        dlq: dlq ? dlq.visible + dlq.inFlight : 0,
        outboxDlq: outboxDlq ? outboxDlq.visible + outboxDlq.inFlight : 0,
        lastHeartbeat: record?.lastHeartbeatAt ?? null,
        lastError: record?.lastError ?? null,
        warnings: record?.warnings ?? [],
        ...(spend ? { spend } : {}),
        detail: [
          service ? `desired ${service.desiredCount ?? 0}, running ${service.runningCount ?? 0}` : '',
          record?.state ? `registry: ${record.state}` : '',
          ...notes,
        ]
          .filter(Boolean)
          .join('; '),
      });
    }
    return { fleet, where: `on AWS ${this.aws.region} (cluster ${clusterName(fleet)})`, agents };
  }

  /** The proposal's independent lifecycle on ECS: only this agent's service changes. */
  async act(agentId: string, action: LifecycleAction): Promise<string> {
    const change: ServiceChange =
      action === 'hibernate'
        ? { desiredCount: 0 }
        : action === 'wake'
          ? { desiredCount: 1 }
          : // restart: a fresh task; upgrade: a fresh task that pulls the task definition's image again.
            { forceNewDeployment: true };
    try {
      return serviceState(await this.services.update(agentId, change));
    } catch (err) {
      throw new CliError(
        EXIT.failed,
        awsErrorText(`cannot ${action} ${agentServiceName(agentId)} in cluster ${clusterName(this.config.fleet)}`, err, this.aws),
      );
    }
  }

  /**
   * Waits until the agent's ECS service is stable, as `aws ecs wait services-stable` means it:
   * one deployment (the new one; the old tasks gone), with as many tasks running as desired.
   */
  async waitUntilStable(agentId: string, deadline: number, pollMs: number): Promise<{ ok: boolean; state: string; detail: string }> {
    const service = agentServiceName(agentId);
    for (;;) {
      const found = (await this.describe([agentId])).get(agentId);
      const deployments = found?.deployments ?? [];
      const detail = found
        ? `desired ${found.desiredCount ?? 0}, running ${found.runningCount ?? 0}, ${deployments.length} deployment${deployments.length === 1 ? '' : 's'}${deployments[0]?.rolloutState ? ` (${deployments[0].rolloutState})` : ''}`
        : 'no ECS service';
      if (!found || found.status === 'INACTIVE') throw new CliError(EXIT.failed, `${service}: ${detail}`);
      const rolledOut = deployments.length <= 1 && (deployments[0]?.rolloutState ?? 'COMPLETED') === 'COMPLETED';
      if (rolledOut && (found.runningCount ?? 0) === (found.desiredCount ?? 0)) return { ok: true, state: serviceState(found), detail };
      if (Date.now() >= deadline) return { ok: false, state: serviceState(found), detail };
      await new Promise((r) => setTimeout(r, pollMs));
    }
  }
}

/** The ECS service's counts in the registry's (and the dashboard's) words; the counts themselves go in the detail line. */
function serviceState(service: AgentService | undefined): string {
  if (!service || service.status === 'INACTIVE') return 'not deployed';
  const desired = service.desiredCount ?? 0;
  const running = service.runningCount ?? 0;
  if (desired === 0) return 'asleep'; // a task still stopping shows as "desired 0, running 1"
  if (running >= desired) return 'awake';
  return 'waking';
}
