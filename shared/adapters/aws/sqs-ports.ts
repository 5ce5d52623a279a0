// The agents' queues on AWS: the SQS port group, in a file of its own so that a process can
// load it on first use instead (lazy-sqs-ports.ts: λ outbox, whose records arrive by its event
// source and which sends to a queue only for a relay, a delayed retry or a dead letter).
import { outboxDlqName } from '../../config/names.ts';
import type { PortFactories } from '../../control/control-plane.ts';
import { ClawfleetError } from '../../errors.ts';
import { SQSClient } from '@aws-sdk/client-sqs';
import { clientSettings, type AwsClientConfig } from './clients.ts';
import { SqsQueueDepths } from './sqs-queue-depths.ts';
import { SqsQueueStats } from './sqs-queue-stats.ts';
import { SqsAgentQueues, SqsDeadLetters, SqsDelayedRetry, SqsQueueDirectory } from './sqs-queues.ts';

/** Built here, not in clients.ts, so that a bundle that loads this group lazily loads the SQS client with it. */
export const sqsClient = (config: AwsClientConfig = {}) => new SQSClient(clientSettings(config));

/** The agents' queues, their depths and DLQs, on one SQS client and one cache of queue URLs. */
export function sqsPorts(config: AwsClientConfig = {}): PortFactories {
  let client: SQSClient | undefined;
  let urls: SqsQueueDirectory | undefined;
  const sqs = () => (client ??= sqsClient(config));
  const directory = () => (urls ??= new SqsQueueDirectory(sqs()));
  return {
    queues: (cp) => new SqsAgentQueues(sqs(), cp.config.fleet, directory()),
    depths: (cp) => new SqsQueueDepths(sqs(), cp.config.fleet, directory()),
    queueStats: (cp) => new SqsQueueStats(sqs(), cp.config.fleet, directory()),
    outboxDeadLetters: (cp) => (agentId) =>
      new SqsDeadLetters(sqs(), async () => {
        if (!agentId) throw new ClawfleetError('UNKNOWN_OUTBOX', 'a record from an unknown queue has no DLQ of ours; leaving it to its queue redrive');
        return directory().url(outboxDlqName(cp.config.fleet, agentId));
      }),
    delayedRetry: () => new SqsDelayedRetry(sqs(), directory()),
  };
}
