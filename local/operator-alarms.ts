// Local mode's alarms: what CloudWatch watches on AWS, judged from the local fleet's state after
// every health tick — an agent crash-looping, dead letters in its inbound or outbound DLQ, an
// agent waiting for its secret's values, the health tick itself failing. Each condition is an
// alarm with a state; a change of state goes to the operator exactly as a CloudWatch alarm's
// does on AWS (shared/control/operator-alerts.ts: once per change, rate-limited, OK told only
// after ALARM). A change whose sending failed is tried again on the next tick with the same
// time, so the delivery ledger still sends it once.
import { agentStackName } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { alertOperator, type AlarmState, type AlarmStateChange, type OperatorAlertDeps } from '../shared/control/operator-alerts.ts';
import { errorFields } from '../shared/log.ts';
import { WAITING_FOR_SECRET } from '../shared/protocol/envelopes.ts';

/** Crash restarts in a row that make a crash loop (as the restarts alarm on AWS: 3 starts in 15 minutes). */
export const CRASH_LOOP_RESTARTS = 3;
/** How long a restarted runtime must run for its crash loop to count as over. */
const RUNNING_FOR_MS = 60_000;

/** What the conditions are judged from, per agent. */
export interface AgentSnapshot {
  id: string;
  /** The supervisor's: crash restarts since the process last ran a minute, its state and start. */
  restarts: number;
  state: string;
  startedAt: number | undefined;
  inboxDlq: number;
  outboxDlq: number;
  /** Its last heartbeat's warnings. */
  warnings: readonly string[];
}

export interface Condition {
  alarm: string;
  breaching: boolean;
  reason: string;
  description: string;
}

/** The conditions of a local fleet at `now`, named as their alarms are on AWS (and the health tick as the fleet's). */
export function localConditions(config: FleetConfig, agents: readonly AgentSnapshot[], healthFailure: string | undefined, now: number): Condition[] {
  const conditions: Condition[] = [];
  for (const a of agents) {
    const name = agentStackName(config.fleet, a.id);
    const steady = a.state === 'running' && a.startedAt !== undefined && now - a.startedAt >= RUNNING_FOR_MS;
    conditions.push(
      {
        alarm: `${name}-restarts`,
        breaching: a.restarts >= CRASH_LOOP_RESTARTS && !steady,
        reason: a.restarts >= CRASH_LOOP_RESTARTS && !steady ? `restarted ${a.restarts} times in a row` : 'running for a minute since its last restart',
        description: `The runtime of ${a.id} keeps exiting: it is crashing (see clawfleet logs ${a.id})`,
      },
      {
        alarm: `${name}-inbox-dlq`,
        breaching: a.inboxDlq > 0,
        reason: `${a.inboxDlq} message(s) in its inbound dead-letter queue`,
        description: `Messages to ${a.id} it could not handle: see their reason on the dashboard`,
      },
      {
        alarm: `${name}-outbox-dlq`,
        breaching: a.outboxDlq > 0,
        reason: `${a.outboxDlq} envelope(s) the control plane refused`,
        description: `Envelopes from ${a.id} the control plane refused: see their reason on the dashboard`,
      },
    );
    const waiting = a.warnings.find((w) => w.startsWith(WAITING_FOR_SECRET));
    conditions.push({
      alarm: `${name}-secret`,
      breaching: waiting !== undefined,
      reason: waiting ?? 'its secret holds every value it needs',
      description: `${a.id} takes no message until its secret holds its values`,
    });
  }
  conditions.push({
    alarm: `${config.fleet}-health`,
    breaching: healthFailure !== undefined,
    reason: healthFailure === undefined ? 'the health tick runs again' : `the health tick failed: ${healthFailure}`,
    description: 'The health tick wakes, restarts and hibernates agents; while it fails, nothing is woken or restarted',
  });
  return conditions;
}

/** Each alarm's state between ticks, and the changes still to be told. */
export class LocalAlarms {
  private readonly states = new Map<string, AlarmState>();
  private pending: AlarmStateChange[] = [];

  /** The changes `conditions` make at `now` (a first look at a condition counts from INSUFFICIENT_DATA, as CloudWatch's does), with those not told yet. */
  changes(conditions: readonly Condition[], now: number): AlarmStateChange[] {
    for (const c of conditions) {
      const state: AlarmState = c.breaching ? 'ALARM' : 'OK';
      const previous = this.states.get(c.alarm) ?? 'INSUFFICIENT_DATA';
      if (state === previous) continue;
      this.states.set(c.alarm, state);
      this.pending.push({ alarm: c.alarm, state, previous, reason: c.reason, description: c.description, at: now });
    }
    const due = this.pending;
    this.pending = [];
    return due;
  }

  /** A change whose telling failed: told on the next tick, with its own time (the same change to the ledger). */
  retry(change: AlarmStateChange): void {
    this.pending.push(change);
  }
}

/** Judges the conditions and tells the operator of each change; never throws (the health loop goes on). */
export async function tellOperator(alarms: LocalAlarms, conditions: readonly Condition[], now: number, deps: OperatorAlertDeps): Promise<void> {
  for (const change of alarms.changes(conditions, now)) {
    try {
      const outcome = await alertOperator({ kind: 'alarm', change }, deps);
      if (outcome !== 'not-announced') deps.log.info('operator alert', { alarm: change.alarm, state: change.state, outcome });
    } catch (err) {
      deps.log.warn('operator alert not sent yet; trying again on the next tick', { alarm: change.alarm, ...errorFields(err) });
      alarms.retry(change);
    }
  }
}
