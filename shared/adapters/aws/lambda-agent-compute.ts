// The AgentCompute port for control-plane functions that do not hold ECS power: each call
// asks λ compute (the one function that may call ecs:UpdateService) with an asynchronous
// invocation carrying a minimal request. Lambda queues the event and answers 202 at once;
// the holder retries on its own and parks what it cannot do in its dead-letter queue.
import { ComputeRequestSchema, type ComputeRequest } from '../../control/compute-request.ts';
import { ClawfleetError } from '../../errors.ts';
import type { AgentCompute } from '../../ports.ts';
import type { EventInvoker } from './signed-lambda-invoker.ts';

export class LambdaAgentCompute implements AgentCompute {
  constructor(
    private readonly lambda: EventInvoker,
    /** λ compute's name (or ARN). */
    private readonly holder: string,
  ) {}

  setRunning(agentId: string, running: boolean): Promise<void> {
    return this.ask({ v: 1, agentId, action: running ? 'run' : 'stop' });
  }

  restart(agentId: string): Promise<void> {
    return this.ask({ v: 1, agentId, action: 'restart' });
  }

  private async ask(request: ComputeRequest): Promise<void> {
    // Checked on the way out too: the holder refuses anything else, into its DLQ.
    const payload = new TextEncoder().encode(JSON.stringify(ComputeRequestSchema.parse(request)));
    let status: number | undefined;
    try {
      ({ statusCode: status } = await this.lambda.invokeEvent(this.holder, payload));
    } catch (err) {
      throw new ClawfleetError('COMPUTE_ASK_FAILED', `could not ask ${this.holder} to ${request.action} agent ${request.agentId}: ${(err as Error).name}`, {
        cause: err,
      });
    }
    // An accepted asynchronous invocation is 202; anything else was not queued.
    if (status !== 202)
      throw new ClawfleetError(
        'COMPUTE_ASK_FAILED',
        `${this.holder} did not queue the request to ${request.action} agent ${request.agentId} (status ${status})`,
      );
  }
}
