// Stands in for Lambda's SQS event source mapping over the agents' outboxes: receives
// batches from the real queues, calls the real λ outbox handler with SQS-shaped records,
// and deletes exactly the records the handler did not report as failed.
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SqsRecord } from '../../functions/outbox.ts';
import type { AwsTestEnv } from './aws.ts';

type Handler = (event: { Records: SqsRecord[] }) => Promise<{ batchItemFailures: { itemIdentifier: string }[] }>;

export function startOutboxPump(env: AwsTestEnv, sources: { url: string; arn: string }[], handler: Handler): { stop(): Promise<void> } {
  const sqs = new SQSClient(env);
  const abort = new AbortController();
  const pump = async (source: { url: string; arn: string }) => {
    while (!abort.signal.aborted) {
      let messages: import('@aws-sdk/client-sqs').Message[] | undefined;
      try {
        ({ Messages: messages } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: source.url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 5,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: abort.signal },
        ));
      } catch (err) {
        if (abort.signal.aborted) return;
        throw err;
      }
      if (!messages?.length) continue;
      const records: SqsRecord[] = messages.map((m) => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body ?? '',
        eventSourceARN: source.arn,
        attributes: { MessageGroupId: m.Attributes?.MessageGroupId },
      }));
      const { batchItemFailures } = await handler({ Records: records });
      const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
      for (const m of messages) {
        if (!failed.has(m.MessageId!)) await sqs.send(new DeleteMessageCommand({ QueueUrl: source.url, ReceiptHandle: m.ReceiptHandle! }));
      }
      // As Lambda's event source mapping does, failed records wait out their visibility timeout.
    }
  };
  const running = Promise.allSettled(sources.map(pump));
  return {
    async stop() {
      abort.abort();
      await running;
    },
  };
}
