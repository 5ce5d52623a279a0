// The schedules a fleet config asks for: one per cron job and one per agent heartbeat.
// The CDK app creates them; cron_upsert adds agents' own beside them.
import type { FleetConfig } from '../config/schema.ts';
import { resolveAgent } from '../config/resolve.ts';
import { durationMs, toScheduleExpression, type ScheduleExpression } from './expression.ts';
import { heartbeatScheduleName, scheduleName, type CronTrigger } from './trigger.ts';

export interface ScheduleSpec extends ScheduleExpression {
  name: string;
  trigger: CronTrigger;
}

type ConfigJob = NonNullable<FleetConfig['cron']>['jobs'][number];

/** What a config job's schedule passes on each firing, and what `clawfleet cron run` fires now. */
export function configJobTrigger(job: ConfigJob): Extract<CronTrigger, { kind: 'job' }> {
  return {
    v: 1,
    kind: 'job',
    agentId: job.agentId,
    jobId: job.id,
    owner: 'config',
    sessionTarget: job.sessionTarget,
    payload: job.payload,
    delivery: job.delivery,
  };
}

export function configSchedules(config: FleetConfig): ScheduleSpec[] {
  const jobs = (config.cron?.jobs ?? []).map((job): ScheduleSpec => {
    const schedule = job.schedule.kind === 'every' ? { kind: 'every' as const, everyMs: durationMs(job.schedule.every) } : job.schedule;
    return { name: scheduleName('config', job.agentId, job.id), ...toScheduleExpression(schedule), trigger: configJobTrigger(job) };
  });
  const heartbeats = config.agents.list.flatMap(({ id }): ScheduleSpec[] => {
    const heartbeat = resolveAgent(config, id).heartbeat;
    if (!heartbeat) return [];
    return [
      {
        name: heartbeatScheduleName(id),
        ...toScheduleExpression({ kind: 'every', everyMs: durationMs(heartbeat.every) }),
        trigger: { v: 1, kind: 'heartbeat', agentId: id },
      },
    ];
  });
  return [...jobs, ...heartbeats];
}
