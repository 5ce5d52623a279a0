// Local mode's EventBridge Scheduler: a timer that fires each due schedule by handing its
// trigger to λ cron-dispatch's core (dispatchTrigger), with the firing's time as
// `<aws.scheduler.scheduled-time>`. A firing is recorded only after it is queued, and the
// envelope id comes from the firing time, so a crash in between queues it once; firings
// missed while the fleet was down fire once, late, at start.
import type { SqliteCronScheduler, DueFiring } from '../shared/adapters/sqlite/sqlite-cron-scheduler.ts';
import { dispatchTrigger, type CronDispatchDeps } from '../shared/control/cron-dispatch.ts';
import { CronTriggerSchema, SCHEDULED_TIME_PLACEHOLDER } from '../shared/cron/trigger.ts';
import { errorFields, type Logger } from '../shared/log.ts';
import type { Clock } from '../shared/ports.ts';

/** How often due schedules are looked for; schedules are minute-grained, so this is plenty. */
const CRON_TICK_MS = 1_000;
/** After a dispatch fails, how long before the same schedule is tried again. */
const CRON_RETRY_MS = 30_000;
/** A firing later than this is logged as missed (the fleet was down or the machine slept). */
const LATE_MS = 60_000;

export interface CronLoopDeps {
  scheduler: SqliteCronScheduler;
  dispatch: CronDispatchDeps;
  /** The scheduler's clock: what time it is for schedules. */
  clock: Clock;
  log: Logger;
}

export interface CronLoop {
  /** Fires what is due now; the timer calls it, tests may too. */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export function startCronLoop(deps: CronLoopDeps, tickMs = CRON_TICK_MS): CronLoop {
  const retryAfter = new Map<string, number>();
  let running: Promise<void> | undefined;
  let stopped = false;

  const fire = async ({ schedule, at }: DueFiring): Promise<void> => {
    const { log } = deps;
    const now = deps.clock.now();
    if ((retryAfter.get(schedule.name) ?? 0) > now) return;
    const ctx = { schedule: schedule.name, scheduledAt: new Date(at).toISOString() };
    let json: unknown;
    try {
      json = JSON.parse(schedule.input.replace(SCHEDULED_TIME_PLACEHOLDER, new Date(at).toISOString()));
    } catch {
      json = undefined;
    }
    const trigger = CronTriggerSchema.safeParse(json);
    if (!trigger.success) {
      // As Scheduler's target would: never retried into success, so logged and passed over.
      log.error('schedule input is not a cron trigger; firing skipped', { ...ctx, reason: trigger.error.issues.map((i) => i.message).join('; ') });
      deps.scheduler.fired(schedule.name, at, now);
      return;
    }
    if (now - at > LATE_MS) log.warn('schedule fired late: missed while the fleet was down; firing once', { ...ctx, lateMs: now - at });
    try {
      const outcome = await dispatchTrigger(trigger.data, at, deps.dispatch);
      if ('skipped' in outcome) log.info('schedule skipped', { ...ctx, agentId: trigger.data.agentId, reason: outcome.skipped });
    } catch (err) {
      log.error('schedule not dispatched; retrying', { ...ctx, inMs: CRON_RETRY_MS, ...errorFields(err) });
      retryAfter.set(schedule.name, now + CRON_RETRY_MS);
      return;
    }
    retryAfter.delete(schedule.name);
    deps.scheduler.fired(schedule.name, at, deps.clock.now());
  };

  const once = async (): Promise<void> => {
    try {
      for (const due of deps.scheduler.due(deps.clock.now())) {
        if (stopped) return;
        await fire(due);
      }
    } catch (err) {
      deps.log.error('cron tick failed', errorFields(err));
    }
  };
  // One tick at a time: a slow dispatch never lets two ticks fire the same schedule.
  const tick = async (): Promise<void> => {
    while (running) await running;
    running = once().finally(() => (running = undefined));
    return running;
  };

  const timer = setInterval(() => void (running ?? tick()), tickMs);
  timer.unref();
  void tick();
  return {
    tick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
