// One agent's queues: its inbound queue and its outbox, both FIFO (group = session key,
// so a session stays in order), each with its own FIFO dead-letter queue. Names are the
// deterministic ones the control plane and the runtime compute (shared/config/names.ts).
import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { agentDlqName, agentQueueName, outboxDlqName, outboxQueueName } from '../../shared/config/names.ts';

export interface AgentQueuesProps {
  fleet: string;
  agentId: string;
  maxReceiveCount: number;
  /** The outbox function's timeout: the outbox's visibility must outlast an invocation. */
  outboxConsumerTimeout: Duration;
}

export class AgentQueues extends Construct {
  readonly maxReceiveCount: number;
  readonly inbox: sqs.Queue;
  readonly inboxDlq: sqs.Queue;
  readonly outbox: sqs.Queue;
  readonly outboxDlq: sqs.Queue;

  constructor(scope: Construct, id: string, props: AgentQueuesProps) {
    super(scope, id);
    this.maxReceiveCount = props.maxReceiveCount;
    const { fleet, agentId } = props;
    const fifo = (construct: string, queueName: string, extra: Partial<sqs.QueueProps> = {}) =>
      new sqs.Queue(this, construct, {
        queueName,
        fifo: true,
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        ...extra,
      });
    // (cdk-nag SQS3 sees these are dead-letter queues from the redrive policies below.)
    const deadLetter = (construct: string, queueName: string) => fifo(construct, queueName);

    this.inboxDlq = deadLetter('InboxDlq', agentDlqName(fleet, agentId));
    this.inbox = fifo('Inbox', agentQueueName(fleet, agentId), {
      // The runtime sets and extends visibility per message while a turn runs.
      visibilityTimeout: Duration.seconds(60),
      deadLetterQueue: { queue: this.inboxDlq, maxReceiveCount: props.maxReceiveCount },
    });
    this.outboxDlq = deadLetter('OutboxDlq', outboxDlqName(fleet, agentId));
    this.outbox = fifo('Outbox', outboxQueueName(fleet, agentId), {
      // AWS's advice for an SQS event source: six times the function's timeout.
      visibilityTimeout: Duration.seconds(props.outboxConsumerTimeout.toSeconds() * 6),
      deadLetterQueue: { queue: this.outboxDlq, maxReceiveCount: props.maxReceiveCount },
    });
  }
}
