// λ outbox: an SQS event source mapping over every agent's outbox. Reports partial batch
// failures so only failed records retry; within a FIFO group, the records after a
// failure are failed too, so a session's replies never overtake each other.
import { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { processOutboxRecord } from '../shared/control/outbox.ts';
import { errorFields } from '../shared/log.ts';
import { RetryLaterError } from '../shared/ports.ts';
import { createControlPlane } from './control-plane.ts';

export interface SqsRecord {
  messageId: string;
  receiptHandle: string;
  body: string;
  eventSourceARN: string;
  attributes: { MessageGroupId?: string };
}

const cp = createControlPlane(process.env, 'outbox');
const deps = { ...cp, deadLetters: cp.deadLettersOf };

export async function handler(event: { Records: SqsRecord[] }): Promise<{ batchItemFailures: { itemIdentifier: string }[] }> {
  const failedGroups = new Set<string>();
  const batchItemFailures: { itemIdentifier: string }[] = [];
  for (const record of event.Records) {
    const group = `${record.eventSourceARN}|${record.attributes.MessageGroupId ?? ''}`;
    if (failedGroups.has(group)) {
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await processOutboxRecord({ source: record.eventSourceARN, body: record.body, messageId: record.messageId }, deps);
    } catch (err) {
      if (err instanceof RetryLaterError) await retryAfter(record, err.seconds);
      const level = err instanceof RetryLaterError ? 'warn' : 'error';
      cp.log[level]('outbox record failed; it will be retried', { messageId: record.messageId, source: record.eventSourceARN, ...errorFields(err) });
      failedGroups.add(group);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
}

/** Telegram said when to come back: hide the record exactly that long (plus a second). */
async function retryAfter(record: SqsRecord, seconds: number): Promise<void> {
  const name = record.eventSourceARN.split(':').pop()!;
  try {
    const QueueUrl = await cp.directory.url(name);
    await cp.aws.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: record.receiptHandle, VisibilityTimeout: Math.min(seconds + 1, 43_200) }));
  } catch (err) {
    cp.log.warn('could not delay the retry; the queue visibility timeout applies', { messageId: record.messageId, ...errorFields(err) });
  }
}
