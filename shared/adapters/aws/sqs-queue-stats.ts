// The dashboard's queue figures on AWS: an agent's inbound queue (visible, in flight and
// delayed), its DLQ and its outbox's DLQ, from SQS's approximate counters.
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { agentDlqName, agentQueueName, outboxDlqName } from '../../config/names.ts';
import type { QueueFigures, QueueStats } from '../../ports.ts';
import type { SqsQueueDirectory } from './sqs-queues.ts';

const COUNTS = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

export class SqsQueueStats implements QueueStats {
  constructor(
    private readonly sqs: SQSClient,
    private readonly fleet: string,
    private readonly directory: SqsQueueDirectory,
  ) {}

  private async count(queueName: string): Promise<number> {
    const QueueUrl = await this.directory.url(queueName);
    const { Attributes = {} } = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: [...COUNTS] }));
    return COUNTS.reduce((sum, k) => sum + Number(Attributes[k] ?? 0), 0);
  }

  async stats(agentId: string): Promise<QueueFigures> {
    const [depth, dlq, outboxDlq] = await Promise.all([
      this.count(agentQueueName(this.fleet, agentId)),
      this.count(agentDlqName(this.fleet, agentId)),
      this.count(outboxDlqName(this.fleet, agentId)),
    ]);
    return { depth, dlq, outboxDlq };
  }
}
