// Queue figures on AWS, from SQS's approximate counters: the dashboard's (an agent's inbound
// queue, its DLQ and its outbox's DLQ, each in all) and the CLI's (one queue's counts).
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { agentDlqName, agentQueueName, outboxDlqName } from '../../config/names.ts';
import type { QueueFigures, QueueStats } from '../../ports.ts';
import type { SqsQueueDirectory } from './sqs-queues.ts';

const COUNTS = ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'] as const;

/** A queue's approximate counts: waiting, handed out and not yet done with, delayed. */
export interface QueueCounts {
  visible: number;
  inFlight: number;
  delayed: number;
}

export class SqsQueueStats implements QueueStats {
  constructor(
    private readonly sqs: SQSClient,
    private readonly fleet: string,
    private readonly directory: SqsQueueDirectory,
  ) {}

  /** The queue's counts; undefined when there is no such queue (not deployed, or deleted). */
  async counts(queueName: string): Promise<QueueCounts | undefined> {
    try {
      return await this.read(queueName);
    } catch (err) {
      const name = (err as Error).name;
      if (name === 'QueueDoesNotExist' || name === 'AWS.SimpleQueueService.NonExistentQueue') return undefined;
      throw err;
    }
  }

  async stats(agentId: string): Promise<QueueFigures> {
    const total = async (queueName: string) => {
      const c = await this.read(queueName);
      return c.visible + c.inFlight + c.delayed;
    };
    const [depth, dlq, outboxDlq] = await Promise.all([
      total(agentQueueName(this.fleet, agentId)),
      total(agentDlqName(this.fleet, agentId)),
      total(outboxDlqName(this.fleet, agentId)),
    ]);
    return { depth, dlq, outboxDlq };
  }

  private async read(queueName: string): Promise<QueueCounts> {
    const QueueUrl = await this.directory.url(queueName);
    const { Attributes = {} } = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: [...COUNTS] }));
    const [visible, inFlight, delayed] = COUNTS.map((k) => Number(Attributes[k] ?? 0));
    return { visible: visible!, inFlight: inFlight!, delayed: delayed! };
  }
}
