// λ cron-dispatch's core, and every other trigger's: a schedule fired (or an operator ran a
// job now, `clawfleet cron run`), so turn its trigger into an envelope on the agent's queue
// (a cron job, or a heartbeat inside the agent's active hours), record the session and whom
// its answer reaches (the job's delivery target, else the main session's last direct
// route), and wake the agent if it sleeps.
import type { FleetConfig } from '../config/schema.ts';
import { resolveAgent } from '../config/resolve.ts';
import type { CronTrigger } from '../cron/trigger.ts';
import type { Logger } from '../log.ts';
import type { InboundEnvelope } from '../protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../protocol/envelopes.ts';
import type { AgentQueues, Clock, InboundOrigins, SessionRegistry, SessionTarget, SpendCounts } from '../ports.ts';
import { budgetRefusal } from './budget-gate.ts';
import { usdText } from '../budget/prices.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';
import { lastDirectRoute, newOrigin } from './origins.ts';
import { cronSessionKey, mainSessionKey } from '../routing/session-key.ts';

export const DEFAULT_HEARTBEAT_PROMPT =
  'Heartbeat: read HEARTBEAT.md in your workspace if it exists and do what it asks. If nothing needs the user’s attention, reply exactly HEARTBEAT_OK.';

export interface CronDispatchDeps {
  config: FleetConfig;
  queues: AgentQueues;
  sessions: SessionRegistry;
  origins: InboundOrigins;
  lifecycle?: LifecycleDeps | undefined;
  /** Budgets (#31): over its cap, an agent's jobs and heartbeats are skipped (paused), not queued. */
  spend?: () => SpendCounts;
  clock: Clock;
  log: Logger;
}

export type DispatchOutcome = { queued: string } | { skipped: string };

/** A run an operator asked for now, named by its own id: never taken for a scheduled firing of the same minute, nor for another run. */
export interface OperatorRun {
  id: string;
}

/**
 * `scheduledAt` (ms) names the firing, so a schedule invoked twice for one time queues once;
 * an operator's `run` is named by its id instead.
 */
export async function dispatchTrigger(trigger: CronTrigger, scheduledAt: number, deps: CronDispatchDeps, run?: OperatorRun): Promise<DispatchOutcome> {
  const { config, log } = deps;
  if (!config.agents.list.some((a) => a.id === trigger.agentId)) return { skipped: `no agent "${trigger.agentId}"` };
  // Budgets (#31): paused, not dead-lettered, while the agent's cap is reached; the next firing after the reset runs.
  const refusal = await budgetRefusal(config, trigger.agentId, deps.spend, deps.clock.now());
  if (refusal) {
    const r = refusal.reached;
    const why = `over its ${r.period === 'day' ? 'daily' : 'monthly'} budget (${usdText(r.spentMicros)} of ${usdText(r.capMicros)}) until ${new Date(r.resetsAt).toISOString()}`;
    log.info(`${trigger.kind === 'heartbeat' ? 'heartbeat' : 'cron job'} skipped: the agent is ${why}`, {
      agentId: trigger.agentId,
      jobId: trigger.kind === 'job' ? trigger.jobId : undefined,
      metric: 'BudgetPaused',
    });
    return { skipped: why };
  }
  const firing = run ? `manual.${run.id}` : String(Math.floor(scheduledAt / 60_000));
  const mainSession = mainSessionKey(trigger.agentId);
  let envelope: InboundEnvelope & { sessionKey: string };
  let target: SessionTarget;

  if (trigger.kind === 'heartbeat') {
    const heartbeat = resolveAgent(config, trigger.agentId).heartbeat;
    if (!heartbeat) return { skipped: 'the agent has no heartbeat configured' };
    if (heartbeat.activeHours && !withinHours(scheduledAt, heartbeat.activeHours)) return { skipped: 'outside active hours' };
    envelope = {
      v: PROTOCOL_VERSION,
      kind: 'system_event',
      id: `hb.${trigger.agentId}.${firing}`.slice(0, 128),
      agentId: trigger.agentId,
      sessionKey: mainSession,
      ts: scheduledAt,
      text: heartbeat.prompt ?? DEFAULT_HEARTBEAT_PROMPT,
    };
    target = await lastDirectRoute(deps.sessions, mainSession);
  } else {
    const sessionKey = cronSessionKey(trigger.agentId, trigger.jobId, trigger.sessionTarget);
    envelope = {
      v: PROTOCOL_VERSION,
      kind: 'cron',
      id: `cron.${trigger.agentId}.${trigger.jobId}.${firing}`.slice(0, 128),
      agentId: trigger.agentId,
      sessionKey,
      ts: scheduledAt,
      jobId: trigger.jobId,
      sessionTarget: trigger.sessionTarget,
      payload: trigger.payload,
    };
    target = await cronJobTarget(trigger.agentId, trigger.sessionTarget, trigger.delivery, deps);
  }

  const now = deps.clock.now();
  // An isolated job's session is where its deliveries go; any other session keeps its last
  // direct route, and one that has never had a chat is created without one.
  if (envelope.kind === 'cron' && trigger.kind === 'job' && trigger.sessionTarget === 'isolated') {
    await deps.sessions.put({ sessionKey: envelope.sessionKey, agentId: trigger.agentId, target, updatedAt: now });
  } else if (!(await deps.sessions.get(envelope.sessionKey))) {
    await deps.sessions.put({ sessionKey: envelope.sessionKey, agentId: trigger.agentId, target: { channel: 'none' }, updatedAt: now });
  }
  // Fixed now, at firing: the answer goes there even if someone else writes to the session meanwhile.
  await deps.origins.put(newOrigin({ id: envelope.id, agentId: trigger.agentId, sessionKey: envelope.sessionKey, target, createdAt: now }));
  await deps.queues.send(envelope);
  if (deps.lifecycle) {
    // Cron and heartbeat work count as activity, and a sleeping agent is woken for it.
    await deps.lifecycle.registry.recordActivity(trigger.agentId, deps.clock.now());
    await wakeIfAsleep(trigger.agentId, deps.lifecycle, trigger.kind).catch((err) =>
      log.warn('agent not woken now; the health tick will', { agentId: trigger.agentId, error: String(err) }),
    );
  }
  log.info(run ? 'cron job run by the operator' : 'schedule fired', {
    agentId: trigger.agentId,
    kind: trigger.kind,
    jobId: trigger.kind === 'job' ? trigger.jobId : undefined,
    envelopeId: envelope.id,
  });
  return { queued: envelope.id };
}

type JobTrigger = Extract<CronTrigger, { kind: 'job' }>;

/**
 * Where a cron job's answer goes: nowhere with delivery "none"; the chat its delivery names;
 * else the main session's last direct route — except an isolated job without a delivery,
 * whose answer is logged only (a run of its own speaks only when asked to announce).
 */
export async function cronJobTarget(
  agentId: string,
  sessionTarget: JobTrigger['sessionTarget'],
  delivery: JobTrigger['delivery'],
  deps: Pick<CronDispatchDeps, 'config' | 'sessions'>,
): Promise<SessionTarget> {
  if (delivery?.mode === 'none' || (!delivery && sessionTarget === 'isolated')) return { channel: 'none' };
  if (delivery?.to) {
    const accountId = delivery.accountId ?? Object.keys(deps.config.channels.telegram?.accounts ?? {})[0];
    if (accountId) return { channel: 'telegram', accountId, chatId: delivery.to };
  }
  return lastDirectRoute(deps.sessions, mainSessionKey(agentId));
}

/** Whether `at` falls within start–end ("08:00"–"22:00") in the timezone (default UTC); an end before the start wraps midnight. */
export function withinHours(at: number, hours: { start: string; end: string; timezone?: string | undefined }): boolean {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: hours.timezone ?? 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(
    new Date(at),
  );
  const now = parts.replace(/\D/g, '').padStart(4, '0');
  const [start, end] = [hours.start.replace(':', ''), hours.end.replace(':', '')];
  return start <= end ? now >= start && now < end : now >= start || now < end;
}
