// λ outbox: an SQS event source mapping over every agent's outbox, reporting partial batch
// failures so only failed records retry (shared/control/outbox-batch.ts keeps a session's
// replies in order and honours a channel's retry_after).
import { alertPorts, dynamoPorts, secretsManagerPorts } from '../shared/adapters/aws/control-ports.ts';
import { lazySqsPorts } from '../shared/adapters/aws/lazy-sqs-ports.ts';
import { telegramPorts } from '../shared/adapters/telegram/telegram-accounts.ts';
import { processOutboxBatch } from '../shared/control/outbox-batch.ts';
import { spendAlarmPorts } from '../shared/control/spend-alarm.ts';
import { agentSchedules } from './agent-schedule-ports.ts';
import { askingCompute, awsControlPlane, mediaStore } from './control-plane.ts';

/** The fields of an SQS event record that λ outbox reads. */
export interface SqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  eventSourceARN: string;
  attributes: { MessageGroupId?: string; ApproximateReceiveCount?: string };
}

const cp = await awsControlPlane('outbox', (env) => [
  dynamoPorts(),
  // Spend alarms (#31) go to the operator through the operator channel, with its rate counters.
  alertPorts(),
  spendAlarmPorts(),
  // The records arrive by the event source: SQS is sent to only for relays, retries and dead letters.
  lazySqsPorts(),
  secretsManagerPorts(),
  telegramPorts,
  askingCompute(env),
  agentSchedules(env),
  mediaStore(env),
]);
const deps = cp.outboxBatchDeps();

export async function handler(event: { Records: SqsRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failed = await processOutboxBatch(
    event.Records.map((r) => ({
      source: r.eventSourceARN,
      body: r.body,
      messageId: r.messageId,
      receipt: r.receiptHandle,
      group: r.attributes.MessageGroupId,
      receiveCount: Number(r.attributes.ApproximateReceiveCount ?? 1),
    })),
    deps,
  );
  return { batchItemFailures: failed.map((itemIdentifier) => ({ itemIdentifier })) };
}
