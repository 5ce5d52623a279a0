// Heartbeats while a runtime waits before it can take work — for a secret value
// (secret-wait.ts), for an operator's OpenClaw gateway (pairing, the token, reach): the
// registry, `clawfleet status` and the dashboard show why the agent takes no message yet.
import { PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import { errorFields, type Logger } from '../../../shared/log.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import { heartbeatWarnings } from './heartbeats.ts';

export interface WaitingBeatsDeps {
  agentId: string;
  /** How often to repeat the warning (the runtime's heartbeat interval; 0 = only when said). */
  heartbeatMs: number;
  clock: Clock;
  outbox: Outbox;
  log: Logger;
  version: string;
  /** In the heartbeats' ids, what is waited for ("wait" for a secret, "gateway-wait"). */
  label: string;
}

/** Sends the current warning now and every heartbeat interval until end(); nothing while there is none. */
export function waitingBeats(deps: WaitingBeatsDeps): { say(warning: string | undefined): void; end(): void } {
  const { agentId, clock, outbox, log } = deps;
  const startedAt = clock.now();
  let beats = 0;
  let warning: string | undefined;
  const beat = () => {
    if (!warning) return;
    void outbox
      .send({
        v: PROTOCOL_VERSION,
        kind: 'heartbeat',
        id: `hb.${agentId}.${startedAt}.${deps.label}.${beats++}`,
        agentId,
        ts: clock.now(),
        version: deps.version,
        inFlight: 0,
        warnings: heartbeatWarnings([warning]),
      })
      .catch((err) => log.warn('heartbeat not sent', errorFields(err)));
  };
  const timer = deps.heartbeatMs > 0 ? setInterval(beat, deps.heartbeatMs) : undefined;
  timer?.unref();
  return {
    say(w) {
      warning = w;
      beat();
    },
    end: () => clearInterval(timer),
  };
}
