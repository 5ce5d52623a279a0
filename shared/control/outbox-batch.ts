// A batch of outbox records, as λ outbox's event source mapping hands them over: each record
// through the outbox core, reporting partial batch failures so only failed records are retried.
// Within a FIFO group the records after a failure fail too, so a session's replies never
// overtake each other; a channel that said when to come back has its record hidden that long.
import { errorFields } from '../log.ts';
import { RetryLaterError, type DelayedRetry } from '../ports.ts';
import { processOutboxRecord, type OutboxDeps, type OutboxRecord } from './outbox.ts';

export interface OutboxBatchRecord extends OutboxRecord {
  /** The receipt a delayed retry hands back. */
  receipt: string;
  /** The FIFO group (session key) it was sent in; records of one group are kept in order. */
  group: string | undefined;
}

export interface OutboxBatchDeps extends OutboxDeps {
  delayedRetry: DelayedRetry;
}

/** The message ids to hand back to the queue; every other record is done with. */
export async function processOutboxBatch(records: readonly OutboxBatchRecord[], deps: OutboxBatchDeps): Promise<string[]> {
  const failedGroups = new Set<string>();
  const failed: string[] = [];
  for (const record of records) {
    const group = `${record.source}|${record.group ?? ''}`;
    if (failedGroups.has(group)) {
      failed.push(record.messageId);
      continue;
    }
    try {
      await processOutboxRecord(record, deps);
    } catch (err) {
      const later = err instanceof RetryLaterError;
      if (later) await retryAfter(record, err.seconds, deps);
      deps.log[later ? 'warn' : 'error']('outbox record failed; it will be retried', {
        messageId: record.messageId,
        source: record.source,
        ...errorFields(err),
      });
      failedGroups.add(group);
      failed.push(record.messageId);
    }
  }
  return failed;
}

/** The channel said when to come back: hide the record that long. If that fails, the queue's visibility timeout applies. */
async function retryAfter(record: OutboxBatchRecord, seconds: number, deps: OutboxBatchDeps): Promise<void> {
  try {
    await deps.delayedRetry.retryAfter({ source: record.source, receipt: record.receipt }, seconds);
  } catch (err) {
    deps.log.warn('could not delay the retry; the queue visibility timeout applies', { messageId: record.messageId, ...errorFields(err) });
  }
}
