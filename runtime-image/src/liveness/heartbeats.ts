// A running runtime's heartbeats, whatever its kind: one that announces it (version and
// capabilities) as it starts taking work, then one every heartbeatMs with what it is doing and
// what the operator must see (warnings, MCP servers' states). The registry's states, `clawfleet
// status` and the dashboard are read from them.
import { errorFields, processRedactor, type Logger } from '../../../shared/log.ts';
import { HEARTBEAT_WARNING_MAX, HEARTBEAT_WARNINGS_MAX, type OutboundEnvelope, PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import { RUNTIME_VERSION } from '../kinds/runtime-kind.ts';

type Heartbeat = Extract<OutboundEnvelope, { kind: 'heartbeat' }>;

export interface HeartbeatDeps {
  agentId: string;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  /** How often (0: the announcement only). */
  heartbeatMs: number;
}

/** What each heartbeat says, asked anew each time. */
export interface HeartbeatSource {
  /** Said once, in the announcement. */
  capabilities: string[];
  inFlight(): number;
  /** What the operator must see; cut to the envelope's limits and redacted here. */
  warnings(): string[];
  /** Each MCP server's state, for a runtime that has them. */
  mcp?: (() => NonNullable<Heartbeat['mcp']>) | undefined;
}

/**
 * Sends the announcement now and a heartbeat every heartbeatMs until stop(); `announced`
 * settles once the announcement is sent (a failed send is logged, never thrown).
 */
export function startHeartbeats(deps: HeartbeatDeps, source: HeartbeatSource): { announced: Promise<void>; stop(): void } {
  const { agentId, outbox, clock, log } = deps;
  const startedAt = clock.now();
  let beats = 0;
  const beat = (announce: boolean) =>
    outbox
      .send({
        v: PROTOCOL_VERSION,
        kind: 'heartbeat',
        id: `hb.${agentId}.${startedAt}.${beats++}`,
        agentId,
        ts: clock.now(),
        version: RUNTIME_VERSION,
        inFlight: source.inFlight(),
        ...(announce ? { capabilities: source.capabilities } : {}),
        ...(source.mcp ? { mcp: source.mcp() } : {}),
        warnings: heartbeatWarnings(source.warnings()),
      })
      .catch((err) => log.warn('heartbeat not sent', errorFields(err)));
  const announced = beat(true);
  const timer = deps.heartbeatMs > 0 ? setInterval(() => void beat(false), deps.heartbeatMs) : undefined;
  timer?.unref();
  return { announced, stop: () => clearInterval(timer) };
}

/** Warnings as a heartbeat carries them: as many and as long as its schema allows, each redacted as log lines are. */
export function heartbeatWarnings(warnings: readonly string[]): string[] {
  return warnings.slice(0, HEARTBEAT_WARNINGS_MAX).map((w) => processRedactor.redact(w).slice(0, HEARTBEAT_WARNING_MAX));
}
