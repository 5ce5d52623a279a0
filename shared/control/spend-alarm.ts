// A spend alarm (#31: 80 % or 100 % of an agent's daily or monthly cap) as the operator hears
// it: through the operator channel (operator-alerts.ts: the operator's Telegram chat, each
// alarm once however often it is told, at a bounded rate), or logged where none is configured.
import type { SpendAlarm } from '../budget/budget.ts';
import type { PortFactories } from './control-plane.ts';
import type { OperatorAlertDeps, OperatorEvent } from './operator-alerts.ts';

/** The alarm as an operator event: scope "fran's daily budget", the period the cap counts, the share reached. */
export function spendAlarmEvent(agentId: string, alarm: SpendAlarm, at: number): OperatorEvent {
  return {
    kind: 'spend',
    spend: {
      scope: `${agentId}'s ${alarm.period === 'day' ? 'daily' : 'monthly'} budget`,
      spentUsd: alarm.spentMicros / 1_000_000,
      budgetUsd: alarm.capMicros / 1_000_000,
      period: alarm.periodId,
      percent: alarm.percent,
      at,
    },
  };
}

/** Tells the operator; throws where a retry may mend it (the outbox record carrying the count is then retried, and counts nothing twice). */
export async function tellSpendAlarm(agentId: string, alarm: SpendAlarm, deps: OperatorAlertDeps): Promise<void> {
  const { alertOperator } = await import('./operator-alerts.ts');
  await alertOperator(spendAlarmEvent(agentId, alarm, deps.clock.now()), deps);
}

/**
 * The spend alarms port, for a process that counts spend (λ outbox, the local control plane):
 * the operator channel's code is imported and its deps built when an alarm is told, so the
 * count's process carries it only where it is wired, and a Lambda's cold start not at all.
 */
export function spendAlarmPorts(): PortFactories {
  return {
    spendAlerts: (cp) => async (agentId, alarm) => {
      const { operatorAlertDeps } = await import('./operator-alerts.ts');
      await tellSpendAlarm(agentId, alarm, operatorAlertDeps(cp));
    },
  };
}
