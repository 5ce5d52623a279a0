// How many messages wait for an agent: visible, in flight and delayed, from SQS's
// approximate counters (good enough to decide whether to wake or hibernate).
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { agentQueueName } from '../../config/names.ts';
import type { QueueDepths } from '../../ports.ts';
import type { SqsQueueDirectory } from './sqs-queues.ts';

export class SqsQueueDepths implements QueueDepths {
  constructor(
    private readonly sqs: SQSClient,
    private readonly fleet: string,
    private readonly directory: SqsQueueDirectory,
  ) {}

  async depth(agentId: string): Promise<number> {
    const QueueUrl = await this.directory.url(agentQueueName(this.fleet, agentId));
    const { Attributes = {} } = await this.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    return ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'].reduce(
      (sum, k) => sum + Number(Attributes[k as keyof typeof Attributes] ?? 0),
      0,
    );
  }
}
