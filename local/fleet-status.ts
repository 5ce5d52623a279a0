// What `clawfleet status` shows for each agent, in one shape for a local fleet (from the
// admin API) and a deployed one (from ECS, SQS and the registry).
import { z } from 'zod';

const AgentStatusSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** running | starting | restarting | hibernating | stopped (locally); from ECS counts on AWS. */
  state: z.string(),
  model: z.string(),
  /** Messages waiting, and handed out but not yet answered. */
  queue: z.object({ visible: z.number(), inFlight: z.number() }),
  /** Parked messages: inbound ones the runtime could not process, outbound ones the control plane refused. */
  dlq: z.number(),
  outboxDlq: z.number(),
  /** Epoch ms of the last sign of life, or null when none was seen. */
  lastHeartbeat: z.number().nullable(),
  lastError: z.string().nullable(),
  detail: z.string().optional(),
  /** What the runtime warned about at its last heartbeat (exec off for want of a sandbox, exec unsandboxed). */
  warnings: z.array(z.string()).optional(),
  /** Budgets (#31): spend against the caps, and what is paused while one is reached; absent for an agent without a budget. */
  spend: z.string().optional(),
});
export type AgentStatus = z.infer<typeof AgentStatusSchema>;

export const FleetStatusSchema = z.object({
  fleet: z.string(),
  where: z.string(),
  agents: z.array(AgentStatusSchema),
});
export type FleetStatus = z.infer<typeof FleetStatusSchema>;
