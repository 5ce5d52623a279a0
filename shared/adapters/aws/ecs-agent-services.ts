// The agents' ECS services as the operator's tools see them (the CLI's status and runtime
// commands): each service's counts and deployments, and an operator's change to one agent's
// service, never another's. The control plane's own changes go through λ compute (EcsAgentCompute).
import { DescribeServicesCommand, UpdateServiceCommand, type ECSClient, type Service } from '@aws-sdk/client-ecs';
import { agentServiceName, clusterName } from '../../config/names.ts';

/** One agent's service as ECS describes it. */
export type AgentService = Service;

/** DescribeServices takes at most 10 services a call. */
const DESCRIBE_BATCH = 10;

/** What an operator may do to one agent's service: set its desired count, or replace its tasks. */
export type ServiceChange = { desiredCount: 0 | 1 } | { forceNewDeployment: true };

export class EcsAgentServices {
  constructor(
    private readonly ecs: ECSClient,
    private readonly fleet: string,
  ) {}

  /** The agents' services by agent id; an agent without one is missing from the map. */
  async describe(agentIds: readonly string[]): Promise<Map<string, Service>> {
    const byName = new Map(agentIds.map((id) => [agentServiceName(id), id]));
    const found = new Map<string, Service>();
    const names = [...byName.keys()];
    for (let i = 0; i < names.length; i += DESCRIBE_BATCH) {
      const out = await this.ecs.send(new DescribeServicesCommand({ cluster: clusterName(this.fleet), services: names.slice(i, i + DESCRIBE_BATCH) }));
      for (const s of out.services ?? []) {
        const agentId = s.serviceName && byName.get(s.serviceName);
        if (agentId) found.set(agentId, s);
      }
    }
    return found;
  }

  /** Changes the agent's service and answers it as ECS left it. */
  async update(agentId: string, change: ServiceChange): Promise<Service | undefined> {
    const out = await this.ecs.send(new UpdateServiceCommand({ cluster: clusterName(this.fleet), service: agentServiceName(agentId), ...change }));
    return out.service;
  }
}
