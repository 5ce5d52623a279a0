// SQS FIFO adapters: the control plane's way into agent queues, a runtime's inbox and
// outbox, and dead letters with their reason. FIFO group = session key keeps a session
// in order; deduplication id = envelope id makes every resend of an event harmless.
import { createHash } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { agentQueueName } from '../../config/names.ts';
import type { InboundEnvelope, OutboundEnvelope } from '../../protocol/envelopes.ts';
import { fifoGroup } from '../../protocol/ids.ts';
import type { AgentQueues, DeadLetters, DelayedRetry, Inbox, Outbox, ReceivedMessage, ReceivedRecord } from '../../ports.ts';

/** Queue URLs by name, looked up once. */
export class SqsQueueDirectory {
  private readonly urls = new Map<string, Promise<string>>();
  constructor(private readonly sqs: SQSClient) {}

  url(queueName: string): Promise<string> {
    let url = this.urls.get(queueName);
    if (!url) {
      url = this.sqs.send(new GetQueueUrlCommand({ QueueName: queueName })).then((r) => r.QueueUrl!);
      url.catch(() => this.urls.delete(queueName));
      this.urls.set(queueName, url);
    }
    return url;
  }
}

export class SqsAgentQueues implements AgentQueues {
  constructor(
    private readonly sqs: SQSClient,
    private readonly fleet: string,
    private readonly directory = new SqsQueueDirectory(sqs),
  ) {}

  async send(envelope: InboundEnvelope): Promise<void> {
    const QueueUrl = await this.directory.url(agentQueueName(this.fleet, envelope.agentId));
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: JSON.stringify(envelope),
        MessageGroupId: fifoGroup(envelope),
        MessageDeduplicationId: envelope.id,
      }),
    );
  }
}

export class SqsOutbox implements Outbox {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
  ) {}

  async send(envelope: OutboundEnvelope): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(envelope),
        MessageGroupId: fifoGroup(envelope),
        MessageDeduplicationId: envelope.id,
      }),
    );
  }
}

export class SqsInbox implements Inbox {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: string,
    /** How long a received message stays hidden before it must be extended. */
    private readonly visibilitySeconds = 60,
  ) {}

  async receive(waitSeconds: number, signal?: AbortSignal): Promise<ReceivedMessage[]> {
    const out = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: this.queueUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: waitSeconds,
        VisibilityTimeout: this.visibilitySeconds,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
      }),
      { abortSignal: signal },
    );
    return (out.Messages ?? []).map((m) => ({
      body: m.Body ?? '',
      receipt: m.ReceiptHandle!,
      receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
    }));
  }

  async extend(receipt: string, seconds: number): Promise<void> {
    await this.sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt, VisibilityTimeout: seconds }));
  }

  async delete(receipt: string): Promise<void> {
    await this.sqs.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt }));
  }

  async release(receipt: string): Promise<void> {
    await this.extend(receipt, 0);
  }
}

/** Sends a message that cannot be processed to a FIFO DLQ with its reason attached. */
export class SqsDeadLetters implements DeadLetters {
  constructor(
    private readonly sqs: SQSClient,
    private readonly queueUrl: () => Promise<string>,
  ) {}

  async put(body: string, reason: string, groupId = 'rejected'): Promise<void> {
    await this.sqs.send(
      new SendMessageCommand({
        QueueUrl: await this.queueUrl(),
        MessageBody: body.length > 0 ? body : '(empty body)',
        MessageGroupId: groupId,
        // Content-based: the same rejected body is parked once.
        MessageDeduplicationId: createHash('sha256')
          .update(body + reason)
          .digest('hex'),
        MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
      }),
    );
  }
}

/** SQS keeps a received message hidden for at most 12 hours. */
const MAX_VISIBILITY_SECONDS = 43_200;

/** λ outbox's delayed retry: the record stays hidden as long as the channel asked, plus a second. */
export class SqsDelayedRetry implements DelayedRetry {
  constructor(
    private readonly sqs: SQSClient,
    private readonly directory: SqsQueueDirectory,
  ) {}

  async retryAfter(record: ReceivedRecord, seconds: number): Promise<void> {
    // An event source mapping names the queue by ARN; its URL is looked up by name.
    const QueueUrl = /^https?:/.test(record.source) ? record.source : await this.directory.url(record.source.split(':').pop()!);
    await this.sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: record.receipt,
        VisibilityTimeout: Math.min(Math.ceil(seconds) + 1, MAX_VISIBILITY_SECONDS),
      }),
    );
  }
}
