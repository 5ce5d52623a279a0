// Deterministic names that let the control plane, the runtimes and the CDK app find each
// other's resources without passing references around (DESIGN.md, "Stacks").

export const agentQueueName = (fleet: string, agentId: string) => `${fleet}-agent-${agentId}.fifo`;
export const agentDlqName = (fleet: string, agentId: string) => `${fleet}-agent-${agentId}-dlq.fifo`;
export const outboxQueueName = (fleet: string, agentId: string) => `${fleet}-outbox-${agentId}.fifo`;
export const outboxDlqName = (fleet: string, agentId: string) => `${fleet}-outbox-${agentId}-dlq.fifo`;

export const agentSecretName = (fleet: string, agentId: string) => `clawfleet/${fleet}/agents/${agentId}`;
export const telegramSecretName = (fleet: string) => `clawfleet/${fleet}/control/telegram`;
export const hooksSecretName = (fleet: string) => `clawfleet/${fleet}/control/hooks`;
export const dashboardSecretName = (fleet: string) => `clawfleet/${fleet}/control/dashboard`;

export const tableNames = (fleet: string) => ({
  /** Session key → owning agent and last channel target. */
  sessions: `${fleet}-sessions`,
  /** Inbound event keys already admitted (TTL). */
  dedupe: `${fleet}-dedupe`,
  /** Outbound delivery claims per envelope id (TTL). */
  deliveries: `${fleet}-deliveries`,
  /** Agents (state, heartbeat, activity), pairings and metrics, by key prefix. */
  registry: `${fleet}-registry`,
  /** Each inbound envelope's origin (whom its answer reaches; TTL) and the agent-to-agent rate counters. */
  origins: `${fleet}-origins`,
});

/** The agent whose outbox a queue URL or ARN names: identity comes from the queue. */
export function agentIdFromOutbox(fleet: string, queueUrlOrArn: string): string | undefined {
  const name = queueUrlOrArn.split(/[/:]/).pop() ?? '';
  const prefix = `${fleet}-outbox-`;
  if (!name.startsWith(prefix) || !name.endsWith('.fifo') || name.endsWith('-dlq.fifo')) return undefined;
  return name.slice(prefix.length, -'.fifo'.length);
}

// Names of the deployed stacks and of the fleet-wide AWS resources the CDK app creates.
export const controlPlaneStackName = (fleet: string) => `${fleet}-control-plane`;
export const agentStackName = (fleet: string, agentId: string) => `${fleet}-agent-${agentId}`;
export const clusterName = (fleet: string) => `clawfleet-${fleet}`;
/** An agent's ECS service inside the fleet's cluster. */
export const agentServiceName = (agentId: string) => `agent-${agentId}`;
export const scheduleGroupName = (fleet: string) => `clawfleet-${fleet}`;
/** A control-plane Lambda function, e.g. `demo-telegram-webhook`. */
export const functionName = (fleet: string, handler: string) => `${fleet}-${handler}`;
export const functionLogGroupName = (fleet: string, handler: string) => `/aws/lambda/${functionName(fleet, handler)}`;
export const agentLogGroupName = (fleet: string, agentId: string) => `/clawfleet/${fleet}/agents/${agentId}`;
