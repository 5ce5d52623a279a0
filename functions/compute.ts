// λ compute: the one function that holds ecs:UpdateService on the fleet's agent services.
// The others ask it by asynchronous invocation (LambdaAgentCompute); it sets the agent's
// desired count, or forces a new deployment, as the registry says now. A request it
// refuses or cannot carry out is thrown: Lambda retries it, then sends it with the error
// to the function's dead-letter queue (its on-failure destination, alarmed).
import { dynamoPorts, ecsComputePorts } from '../shared/adapters/aws/control-ports.ts';
import { handleComputeRequest, type ComputeOutcome } from '../shared/control/compute-request.ts';
import { errorFields } from '../shared/log.ts';
import { awsControlPlane } from './control-plane.ts';

// Its own ECS adapter, never the asking one: the holder must not ask itself.
const cp = await awsControlPlane('compute', () => [dynamoPorts(), ecsComputePorts()]);
const deps = { config: cp.config, registry: cp.registry, compute: cp.required('compute'), log: cp.log };

export async function handler(event: unknown): Promise<{ agentId: string; outcome: ComputeOutcome }> {
  try {
    const { request, outcome, state } = await handleComputeRequest(event, deps);
    cp.log.info('agent compute set', { agentId: request.agentId, asked: request.action, state, outcome });
    return { agentId: request.agentId, outcome };
  } catch (err) {
    const agentId = (event as { agentId?: unknown } | null)?.agentId;
    cp.log.error('compute request failed', { ...(typeof agentId === 'string' && agentId.length <= 64 ? { agentId } : {}), ...errorFields(err) });
    throw err;
  }
}
