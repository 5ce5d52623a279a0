// λ operator-alerts: subscribed to the fleet's alarm topic; each CloudWatch alarm notification
// SNS delivers becomes one message in the operator's Telegram chat (shared/control/operator-alerts.ts:
// deduplicated by alarm and state-change time, rate-limited). A failure a retry may mend throws,
// so Lambda's asynchronous retries send it; a message that is no alarm notification is logged and dropped.
import { alertPorts, dynamoPorts, secretsManagerPorts } from '../shared/adapters/aws/control-ports.ts';
import { telegramPorts } from '../shared/adapters/telegram/telegram-accounts.ts';
import { alertOperator, operatorAlertDeps, parseAlarmNotification, type AlertOutcome } from '../shared/control/operator-alerts.ts';
import { awsControlPlane } from './control-plane.ts';

/** The fields of SNS's event that λ operator-alerts reads. */
export interface SnsEvent {
  Records: { Sns: { MessageId: string; Message: string } }[];
}

const cp = await awsControlPlane('operator-alerts', () => [dynamoPorts(), alertPorts(), secretsManagerPorts(), telegramPorts]);
const deps = operatorAlertDeps(cp);

export async function handler(event: SnsEvent): Promise<AlertOutcome[]> {
  const outcomes: AlertOutcome[] = [];
  for (const record of event.Records) {
    const parsed = parseAlarmNotification(record.Sns.Message);
    if (!parsed.ok) {
      cp.log.warn('not an alarm notification; dropped', { messageId: record.Sns.MessageId, reason: parsed.reason });
      continue;
    }
    const { change } = parsed;
    const outcome = await alertOperator({ kind: 'alarm', change }, deps);
    cp.log.info('operator alert', { alarm: change.alarm, state: change.state, previous: change.previous, outcome });
    outcomes.push(outcome);
  }
  return outcomes;
}
