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
});

/** The agent whose outbox a queue URL or ARN names: identity comes from the queue. */
export function agentIdFromOutbox(fleet: string, queueUrlOrArn: string): string | undefined {
  const name = queueUrlOrArn.split(/[/:]/).pop() ?? '';
  const prefix = `${fleet}-outbox-`;
  if (!name.startsWith(prefix) || !name.endsWith('.fifo') || name.endsWith('-dlq.fifo')) return undefined;
  return name.slice(prefix.length, -'.fifo'.length);
}
