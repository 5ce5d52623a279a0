// The envelope a cron job's trigger puts on its agent's queue. A manual run (`clawfleet
// cron run`) gets an id of its own, so it never collides with a scheduled run's dedup id.
import { randomUUID } from 'node:crypto';
import type { FleetConfig } from '../shared/config/schema.ts';
import { cronSessionKey } from '../shared/routing/session-key.ts';
import { CronEnvelopeSchema, type InboundEnvelope } from '../shared/protocol/envelopes.ts';

type CronJob = NonNullable<FleetConfig['cron']>['jobs'][number];

export function manualCronEnvelope(job: CronJob, now: number): InboundEnvelope {
  return CronEnvelopeSchema.parse({
    v: 1,
    kind: 'cron',
    id: `cron.${job.id}.manual.${randomUUID()}`,
    agentId: job.agentId,
    ts: now,
    sessionKey: cronSessionKey(job.agentId, job.id, job.sessionTarget),
    jobId: job.id,
    sessionTarget: job.sessionTarget,
    payload: job.payload,
  });
}

export function describeSchedule(job: CronJob): string {
  const s = job.schedule;
  if (s.kind === 'at') return `at ${s.at}`;
  if (s.kind === 'every') return `every ${s.every}`;
  return `cron "${s.expr}"${s.tz ? ` (${s.tz})` : ''}`;
}
