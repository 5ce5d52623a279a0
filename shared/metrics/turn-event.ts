// How a runtime's status envelope becomes a turn in the metrics: the outbox records each
// finished turn (its outcome and timing) for the dashboard's charts and turn table.
import type { TurnEvent } from '../ports.ts';
import type { OutboundEnvelope } from '../protocol/envelopes.ts';

/** A finished turn from a status envelope; undefined for `started` and `tool`, which only count as activity. */
export function turnEventFrom(envelope: OutboundEnvelope, agentId: string, now: number): TurnEvent | undefined {
  if (envelope.kind !== 'status' || envelope.turn === 'started' || envelope.turn === 'tool') return undefined;
  return {
    agentId,
    inboundId: envelope.inboundId,
    sessionKey: envelope.sessionKey,
    outcome: envelope.turn,
    at: now,
    timing: envelope.timing,
    error: envelope.error,
  };
}
