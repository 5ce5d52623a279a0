// Heartbeats while an external-mode bridge waits for the operator's gateway (pairing, the
// token, reach): the registry, `clawfleet status` and the dashboard show why the agent takes
// no message yet, as secret-wait.ts does for a missing secret value.
import { PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import { errorFields, processRedactor } from '../../../shared/log.ts';
import type { RuntimeParts } from '../agent-runtime.ts';

/** A heartbeat warning's length limit (the envelope's schema). */
const WARNING_MAX = 500;

/** Sends the current warning now and every heartbeat interval until end(); nothing while there is none. */
export function waitingBeats(
  parts: Pick<RuntimeParts, 'env' | 'clock' | 'outbox' | 'log'>,
  version: string,
): { say(warning: string | undefined): void; end(): void } {
  const { env, clock, outbox, log } = parts;
  const startedAt = clock.now();
  let beats = 0;
  let warning: string | undefined;
  const beat = () => {
    if (!warning) return;
    void outbox
      .send({
        v: PROTOCOL_VERSION,
        kind: 'heartbeat',
        id: `hb.${env.agentId}.${startedAt}.gateway-wait.${beats++}`,
        agentId: env.agentId,
        ts: clock.now(),
        version,
        inFlight: 0,
        warnings: [processRedactor.redact(warning).slice(0, WARNING_MAX)],
      })
      .catch((err) => log.warn('heartbeat not sent', errorFields(err)));
  };
  const timer = env.heartbeatMs > 0 ? setInterval(beat, env.heartbeatMs) : undefined;
  timer?.unref();
  return {
    say(w) {
      warning = w;
      beat();
    },
    end: () => clearInterval(timer),
  };
}
