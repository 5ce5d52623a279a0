// The container health file (CLAWFLEET_HEALTH_FILE): the time, written every 10 s while the
// runtime's event loop runs and the runtime says it is well. The task definition's health
// check (infra/runtime-health-check.ts) reads its age; a minute old, ECS replaces the task.
import { writeFileSync } from 'node:fs';

const EVERY_MS = 10_000;

/**
 * Starts refreshing `file` now and every 10 s; `healthy`, when given, is asked each time
 * and a false answer leaves the file to age. Stop it with clearInterval.
 */
export function keepHealthFile(file: string, healthy: () => boolean = () => true): NodeJS.Timeout {
  const touch = () => {
    if (!healthy()) return;
    try {
      writeFileSync(file, String(Date.now()));
    } catch {
      // The health check will say so.
    }
  };
  touch();
  const timer = setInterval(touch, EVERY_MS);
  timer.unref();
  return timer;
}

/**
 * A health predicate for something that may be down for a while: well while `up()` says so
 * or it has been down less than `limitMs` (by `now`); each call looks once.
 */
export function downNoLongerThan(limitMs: number, up: () => boolean, now: () => number = Date.now): () => boolean {
  let downSince: number | undefined;
  return () => {
    if (up()) downSince = undefined;
    else downSince ??= now();
    return downSince === undefined || now() - downSince < limitMs;
  };
}
