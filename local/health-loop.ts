// λ health's tick, run locally every few seconds: wakes a sleeping agent that has work
// waiting, restarts one whose runtime went silent (alive but stuck; a crashed process is
// restarted by the supervisor at once), and hibernates one idle past its
// idleTimeoutMinutes. Unlike on AWS there is no default idle timeout: a local agent keeps
// running unless its config (or agents.defaults) sets idleTimeoutMinutes.
import type { FleetConfig } from '../shared/config/schema.ts';
import { HEALTH_DEFAULTS, healthTick } from '../shared/control/health.ts';
import type { LifecycleDeps } from '../shared/control/lifecycle.ts';
import { errorFields } from '../shared/log.ts';

const LOCAL_HEALTH_TICK_MS = 2_000;
export const LOCAL_HEALTH = { ...HEALTH_DEFAULTS, idleTimeoutMinutes: Infinity };
/** A tick this much later than planned means the machine slept: heartbeats are judged on the next one. */
const SLEPT_MS = 30_000;

/**
 * Runs the tick every `tickMs`; `afterTick` is told how each went (undefined, or why it
 * failed), for the operator alarms (local/operator-alarms.ts).
 */
export function startHealthLoop(
  config: FleetConfig,
  deps: LifecycleDeps,
  tickMs = LOCAL_HEALTH_TICK_MS,
  afterTick?: (failure: string | undefined) => Promise<void>,
): { stop(): Promise<void> } {
  let running: Promise<void> | undefined;
  let last = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    const slept = now - last > tickMs + SLEPT_MS;
    last = now;
    if (running || slept) return;
    running = healthTick(config, deps, LOCAL_HEALTH)
      .then((actions) => {
        const acted = Object.fromEntries(Object.entries(actions).filter(([, a]) => a !== 'none'));
        if (Object.keys(acted).length) deps.log.info('health tick', { acted });
        return undefined;
      })
      .catch((err: unknown) => {
        deps.log.error('health tick failed', errorFields(err));
        return err instanceof Error ? err.message : String(err);
      })
      .then((failure) => afterTick?.(failure))
      .catch((err) => deps.log.error('after the health tick', errorFields(err)))
      .finally(() => (running = undefined));
  }, tickMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
