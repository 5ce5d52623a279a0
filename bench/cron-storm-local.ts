// The cron storm in local mode: the same fleet and jobs in local mode's control plane (one
// SQLite state file), its scheduler holding the config's schedules as `clawfleet start`
// puts them, and local/cron-loop.ts firing everything due in one tick through
// dispatchTrigger. Measures the tick: from the minute arriving until every envelope is on
// its agent's SQLite queue. No runtimes: local mode's answers go through the same runtime
// code over a loopback channel, which the AWS runs already measure the shape of.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCronLoop } from '../local/cron-loop.ts';
import { LocalControlPlane } from '../local/sqlite-control-plane.ts';
import { InMemorySecretStore } from '../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../shared/adapters/sqlite/sqlite-database.ts';
import { configSchedules } from '../shared/cron/config-schedules.ts';
import { scheduleInput } from '../shared/cron/trigger.ts';
import { createLogger } from '../shared/log.ts';
import { stormConfig, utcMinute } from './cron-storm-fleet.ts';

export async function localStorm(jobs: number): Promise<{ tickMs: number; queued: number }> {
  const due = Math.ceil(Date.now() / 60_000) * 60_000;
  const config = stormConfig({ fleet: 'stormlocal', jobs, minute: utcMinute(due), apiRoot: 'http://127.0.0.1:9' });
  const db = openStateDatabase(join(mkdtempSync(join(tmpdir(), 'cf-storm-local-')), 'state.db'));
  // The schedules' clock stands before the minute while they are put, then moves onto it.
  let scheduleNow = due - 30_000;
  const scheduleClock = { now: () => scheduleNow };
  const log = createLogger({ component: 'local' }, () => {});
  // Waking is recorded as on a local fleet; the supervisor it would start is not there.
  const compute = { setRunning: async () => {}, restart: async () => {} };
  const cp = new LocalControlPlane(config, db, new InMemorySecretStore(), { now: Date.now }, log, { compute, scheduleClock });
  cp.scheduler.replace(
    ['config-', 'heartbeat-'],
    configSchedules(config).map((s) => ({ name: s.name, expression: s.expression, timezone: s.timezone, input: scheduleInput(s.trigger) })),
  );
  const loop = startCronLoop({ scheduler: cp.scheduler, dispatch: cp.cronDispatch, clock: scheduleClock, log }, 3_600_000);
  await loop.tick(); // the start's own tick, before the minute: nothing due

  scheduleNow = due;
  const t0 = performance.now();
  await loop.tick();
  const tickMs = performance.now() - t0;
  await loop.stop();
  const queued = config.agents.list.reduce((n, a) => n + cp.inbox(a.id).depth, 0);
  db.close();
  return { tickMs, queued };
}
