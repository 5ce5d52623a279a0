// The deployed fleet as the CLI sees it: ECS services for state and lifecycle, SQS for
// queue and DLQ depths, the registry table for heartbeats and errors. Every name comes
// from shared/config/names.ts, as the CDK app uses them.
import { DescribeServicesCommand, ECSClient, UpdateServiceCommand, type Service } from '@aws-sdk/client-ecs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { registryAgentKey } from '../shared/adapters/aws/dynamo-agent-registry.ts';
import { agentDlqName, agentQueueName, agentServiceName, clusterName, outboxDlqName, tableNames } from '../shared/config/names.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { AgentStatus, FleetStatus } from '../local/fleet-status.ts';
import type { LifecycleAction } from '../local/supervisor.ts';
import { awsErrorText, type AwsSettings } from './aws-env.ts';
import { CliError, EXIT } from './command.ts';

/** The registry's agent item, as far as status reads it; unknown fields are ignored. */
const RegistryAgentSchema = z.object({
  state: z.string().optional(),
  lastHeartbeatAt: z.number().optional(),
  lastError: z.string().optional(),
  warnings: z.array(z.string()).optional(),
});

export class AwsFleet {
  private readonly ecs: ECSClient;
  private readonly sqs: SQSClient;
  private readonly dynamo: DynamoDBDocumentClient;

  constructor(
    readonly config: FleetConfig,
    readonly aws: AwsSettings,
  ) {
    this.ecs = new ECSClient(aws);
    this.sqs = new SQSClient(aws);
    this.dynamo = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
  }

  private async services(): Promise<Map<string, Service>> {
    const names = this.config.agents.list.map((a) => agentServiceName(a.id));
    const found = new Map<string, Service>();
    // DescribeServices takes at most 10 services a call.
    for (let i = 0; i < names.length; i += 10) {
      let out;
      try {
        out = await this.ecs.send(new DescribeServicesCommand({ cluster: clusterName(this.config.fleet), services: names.slice(i, i + 10) }));
      } catch (err) {
        throw new CliError(EXIT.failed, awsErrorText(`cannot describe the services of cluster ${clusterName(this.config.fleet)}`, err));
      }
      for (const s of out.services ?? []) if (s.serviceName) found.set(s.serviceName, s);
    }
    return found;
  }

  /** Messages visible and in flight; undefined when the queue does not exist. */
  private async depth(queueName: string): Promise<{ visible: number; inFlight: number } | undefined> {
    try {
      const { QueueUrl } = await this.sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
      const { Attributes } = await this.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return { visible: Number(Attributes?.ApproximateNumberOfMessages ?? 0), inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0) };
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue') return undefined;
      throw new CliError(EXIT.failed, awsErrorText(`cannot read queue ${queueName}`, err));
    }
  }

  private async registry(agentId: string): Promise<z.infer<typeof RegistryAgentSchema> | undefined> {
    try {
      const { Item } = await this.dynamo.send(
        new GetCommand({ TableName: tableNames(this.config.fleet).registry, Key: { pk: registryAgentKey(agentId) }, ConsistentRead: true }),
      );
      if (!Item) return undefined;
      const parsed = RegistryAgentSchema.safeParse(Item);
      return parsed.success ? parsed.data : undefined;
    } catch (err) {
      if ((err as Error).name === 'ResourceNotFoundException') return undefined;
      throw new CliError(EXIT.failed, awsErrorText(`cannot read the registry ${tableNames(this.config.fleet).registry}`, err));
    }
  }

  async status(): Promise<FleetStatus> {
    const { fleet } = this.config;
    const services = await this.services();
    const agents: AgentStatus[] = [];
    for (const agent of this.config.agents.list) {
      const service = services.get(agentServiceName(agent.id));
      const [queue, dlq, outboxDlq, record] = await Promise.all([
        this.depth(agentQueueName(fleet, agent.id)),
        this.depth(agentDlqName(fleet, agent.id)),
        this.depth(outboxDlqName(fleet, agent.id)),
        this.registry(agent.id),
      ]);
      const notes: string[] = [];
      if (!service || service.status === 'INACTIVE') notes.push('no ECS service');
      if (!queue) notes.push(`no queue ${agentQueueName(fleet, agent.id)}`);
      agents.push({
        id: agent.id,
        name: agent.name ?? agent.id,
        state: serviceState(service),
        model: resolveAgent(this.config, agent.id).model?.primary ?? '',
        queue: queue ?? { visible: 0, inFlight: 0 },
        dlq: dlq ? dlq.visible + dlq.inFlight : 0,
        outboxDlq: outboxDlq ? outboxDlq.visible + outboxDlq.inFlight : 0,
        lastHeartbeat: record?.lastHeartbeatAt ?? null,
        lastError: record?.lastError ?? null,
        warnings: record?.warnings ?? [],
        detail: [service ? `desired ${service.desiredCount ?? 0}, running ${service.runningCount ?? 0}` : '', record?.state ? `registry: ${record.state}` : '', ...notes]
          .filter(Boolean)
          .join('; '),
      });
    }
    return { fleet, where: `AWS ${this.aws.region} (cluster ${clusterName(fleet)})`, agents };
  }

  /** The proposal's independent lifecycle on ECS: only this agent's service changes. */
  async act(agentId: string, action: LifecycleAction): Promise<string> {
    const cluster = clusterName(this.config.fleet);
    const service = agentServiceName(agentId);
    const input =
      action === 'hibernate'
        ? { desiredCount: 0 }
        : action === 'wake'
          ? { desiredCount: 1 }
          : // restart: a fresh task; upgrade: a fresh task that pulls the task definition's image again.
            { forceNewDeployment: true };
    try {
      const out = await this.ecs.send(new UpdateServiceCommand({ cluster, service, ...input }));
      return serviceState(out.service);
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot ${action} ${service} in cluster ${cluster}`, err));
    }
  }

  /**
   * Waits until the agent's ECS service is stable, as `aws ecs wait services-stable` means it:
   * one deployment (the new one; the old tasks gone), with as many tasks running as desired.
   */
  async waitUntilStable(agentId: string, deadline: number, pollMs: number): Promise<{ ok: boolean; state: string; detail: string }> {
    const service = agentServiceName(agentId);
    for (;;) {
      const found = (await this.services()).get(service);
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
function serviceState(service: Service | undefined): string {
  if (!service || service.status === 'INACTIVE') return 'not deployed';
  const desired = service.desiredCount ?? 0;
  const running = service.runningCount ?? 0;
  if (desired === 0) return 'asleep'; // a task still stopping shows as "desired 0, running 1"
  if (running >= desired) return 'awake';
  return 'waking';
}
