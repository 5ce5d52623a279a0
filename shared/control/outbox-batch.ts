// A batch of outbox records, as λ outbox's event source mapping hands them over: each record
// through the outbox core, reporting partial batch failures so only failed records are retried.
// Within a FIFO group the records after a failure fail too, so a session's replies never
// overtake each other. A failed record is hidden for as long as the channel asked
// (retry_after), or else for a backoff by how often it was received: the queue's own
// visibility timeout is six times λ outbox's (minutes, sized for a 50 MB upload), far too
// long to keep a reply waiting after a passing error. The records held behind it are hidden
// just as long, so the session's next reply follows it rather than the timeout.
import { errorFields } from '../log.ts';
import { RetryLaterError, type DelayedRetry } from '../ports.ts';
import { processOutboxRecord, type OutboxDeps, type OutboxRecord } from './outbox.ts';

export interface OutboxBatchRecord extends OutboxRecord {
  /** The receipt a delayed retry hands back. */
  receipt: string;
  /** The FIFO group (session key) it was sent in; records of one group are kept in order. */
  group: string | undefined;
  /** How many times the queue has handed it out, this time included (SQS's ApproximateReceiveCount). */
  receiveCount?: number;
}

/**
 * A record that failed for a reason the channel gave no time for waits this long, four times
 * as long on each receive after the first (5, 20, 80, 320 s): the first retry comes at once,
 * and the queue's maxReceiveCount (5) still spans about seven minutes of a channel's outage
 * before the record is dead-lettered.
 */
export const FAILED_RETRY_BASE_SECONDS = 5;
export const FAILED_RETRY_FACTOR = 4;
const FAILED_RETRY_MAX_SECONDS = 600;

export interface OutboxBatchDeps extends OutboxDeps {
  delayedRetry: DelayedRetry;
}

/** The message ids to hand back to the queue; every other record is done with. */
export async function processOutboxBatch(records: readonly OutboxBatchRecord[], deps: OutboxBatchDeps): Promise<string[]> {
  /** A failed group's delay, in seconds, which the records behind its failure wait too. */
  const failedGroups = new Map<string, number>();
  const failed: string[] = [];
  for (const record of records) {
    const group = `${record.source}|${record.group ?? ''}`;
    const held = failedGroups.get(group);
    if (held !== undefined) {
      await retryAfter(record, held, deps);
      failed.push(record.messageId);
      continue;
    }
    try {
      await processOutboxRecord(record, deps);
    } catch (err) {
      const later = err instanceof RetryLaterError;
      const seconds = later ? err.seconds : backoffSeconds(record.receiveCount);
      await retryAfter(record, seconds, deps);
      deps.log[later ? 'warn' : 'error']('outbox record failed; it will be retried', {
        messageId: record.messageId,
        source: record.source,
        retryInSeconds: seconds,
        ...errorFields(err),
      });
      failedGroups.set(group, seconds);
      failed.push(record.messageId);
    }
  }
  return failed;
}

function backoffSeconds(receiveCount = 1): number {
  return Math.min(FAILED_RETRY_BASE_SECONDS * FAILED_RETRY_FACTOR ** (Math.max(1, receiveCount) - 1), FAILED_RETRY_MAX_SECONDS);
}

/** Hide the record that long. If that fails, the queue's visibility timeout applies. */
async function retryAfter(record: OutboxBatchRecord, seconds: number, deps: OutboxBatchDeps): Promise<void> {
  try {
    await deps.delayedRetry.retryAfter({ source: record.source, receipt: record.receipt }, seconds);
  } catch (err) {
    deps.log.warn('could not delay the retry; the queue visibility timeout applies', { messageId: record.messageId, ...errorFields(err) });
  }
}
