// An agent's row in `clawfleet status` (local/fleet-status.ts) as the tests give it to the local server.
import type { AgentStatus } from '../../local/fleet-status.ts';

/** A running agent with `visible` messages waiting and nothing else to report: none in flight or parked, no heartbeat yet, no error. */
export function runningAgentStatus(id: string, name: string, visible: number): AgentStatus {
  return { id, name, state: 'running', model: 'offline', queue: { visible, inFlight: 0 }, dlq: 0, outboxDlq: 0, lastHeartbeat: null, lastError: null };
}
