// An agent managing its own cron jobs (cron_upsert / cron_delete on its outbox). The
// control plane decides: an agent's jobs live under its own schedule-name prefix, so it
// can never touch another agent's or the config's; and count and frequency are capped.
import { toScheduleExpression } from '../cron/expression.ts';
import { scheduleInput, scheduleName, type CronTrigger } from '../cron/trigger.ts';
import { ClawfleetError } from '../errors.ts';
import type { CronDeleteEnvelope, CronUpsertEnvelope } from '../protocol/envelopes.ts';
import type { Clock, CronScheduler } from '../ports.ts';

const AGENT_CRON_LIMITS = { maxJobs: 20, minIntervalMs: 5 * 60_000 };

/** Why an agent's cron request is refused: its outbox DLQ reason starts with it. */
export type CronRefusalCode = 'CRON_INVALID' | 'CRON_TOO_FREQUENT' | 'CRON_LIMIT' | 'CRON_UNKNOWN';

export type CronRequestOutcome = { ok: true; schedule: string } | { ok: false; code: CronRefusalCode; reason: string };

export async function applyCronUpsert(
  env: CronUpsertEnvelope,
  sender: string,
  scheduler: CronScheduler,
  clock: Clock,
  limits = AGENT_CRON_LIMITS,
): Promise<CronRequestOutcome> {
  if (!/^[A-Za-z0-9_-]+$/.test(env.jobId))
    return { ok: false, code: 'CRON_INVALID', reason: `job id "${env.jobId}" may use letters, digits, "_" and "-" only` };
  let expr;
  try {
    expr = toScheduleExpression(env.schedule);
  } catch (err) {
    if (err instanceof ClawfleetError) return { ok: false, code: 'CRON_INVALID', reason: err.message };
    throw err;
  }
  if (expr.minIntervalMs < limits.minIntervalMs) {
    return {
      ok: false,
      code: 'CRON_TOO_FREQUENT',
      reason: `runs as often as every ${Math.round(expr.minIntervalMs / 60_000)} min; agents may schedule at most every ${limits.minIntervalMs / 60_000} min`,
    };
  }
  if (env.schedule.kind === 'at' && new Date(env.schedule.at).getTime() <= clock.now()) {
    return { ok: false, code: 'CRON_INVALID', reason: `"${env.schedule.at}" is in the past` };
  }
  const name = scheduleName('agent', sender, env.jobId);
  const existing = await scheduler.list(scheduleName('agent', sender, ''));
  if (!existing.includes(name) && existing.length >= limits.maxJobs) {
    return { ok: false, code: 'CRON_LIMIT', reason: `"${sender}" already has ${existing.length} jobs; the limit is ${limits.maxJobs}` };
  }
  const trigger: CronTrigger = {
    v: 1,
    kind: 'job',
    agentId: sender,
    jobId: env.jobId,
    owner: 'agent',
    sessionTarget: env.sessionTarget,
    payload: { kind: 'agentTurn', message: env.message },
    delivery: { mode: 'announce' },
  };
  await scheduler.put({ name, expression: expr.expression, timezone: expr.timezone, input: scheduleInput(trigger) });
  return { ok: true, schedule: name };
}

export async function applyCronDelete(env: CronDeleteEnvelope, sender: string, scheduler: CronScheduler): Promise<CronRequestOutcome> {
  const name = scheduleName('agent', sender, env.jobId);
  if (!(await scheduler.delete(name))) return { ok: false, code: 'CRON_UNKNOWN', reason: `"${sender}" has no job "${env.jobId}"` };
  return { ok: true, schedule: name };
}
