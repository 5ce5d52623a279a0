// Each agent is one ECS service in the fleet's cluster: running means desired count 1.
import { UpdateServiceCommand, type ECSClient } from '@aws-sdk/client-ecs';
import { agentServiceName, clusterName } from '../../config/names.ts';
import type { AgentCompute } from '../../ports.ts';

export class EcsAgentCompute implements AgentCompute {
  constructor(
    private readonly ecs: ECSClient,
    private readonly fleet: string,
  ) {}

  async setRunning(agentId: string, running: boolean): Promise<void> {
    await this.ecs.send(new UpdateServiceCommand({ cluster: clusterName(this.fleet), service: agentServiceName(agentId), desiredCount: running ? 1 : 0 }));
  }

  async restart(agentId: string): Promise<void> {
    await this.ecs.send(
      new UpdateServiceCommand({ cluster: clusterName(this.fleet), service: agentServiceName(agentId), desiredCount: 1, forceNewDeployment: true }),
    );
  }
}
