// What every cron schedule of the fleet invokes through: the role EventBridge Scheduler
// assumes (it may invoke λ cron-dispatch and nothing else, and park a failed invocation
// in the dead-letter queue), that queue, and an alarm on it. Config schedules live in the
// agent stacks, which find the role through an SSM parameter and the queue by its name
// (shared-resources.ts); agents' own schedules are made at run time by λ outbox, which
// may pass this role and no other.
import { Aws, Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';
import { operatorAlarm } from './operator-alarms.ts';

/** A standard queue (Scheduler's dead-letter target cannot be FIFO), outside every agent queue pattern. */
export const schedulesDlqName = (fleet: string) => `${fleet}-schedules-dlq`;

export interface CronInvokerProps {
  fleet: string;
  /** λ cron-dispatch's ARN (by its deterministic name, so this can exist before the function). */
  functionArn: string;
}

export class CronInvoker extends Construct {
  readonly role: iam.Role;
  readonly deadLetters: sqs.Queue;

  constructor(scope: Construct, id: string, props: CronInvokerProps) {
    super(scope, id);
    const { fleet } = props;
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', {
      queueName: schedulesDlqName(fleet),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(this.deadLetters, 'SQS3', "This queue is itself a dead-letter queue (of the fleet's cron schedules); its depth is alarmed.");

    this.role = new iam.Role(this, 'Role', {
      // Only this account's schedules may use it (the confused-deputy guard AWS recommends).
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID } } }),
      description: `clawfleet ${fleet}: EventBridge Scheduler invoking the cron-dispatch function for cron jobs and heartbeats`,
    });
    // The function itself, not its versions (grantInvoke would add `<arn>:*`).
    this.role.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [props.functionArn] }));
    this.role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.deadLetters.queueArn] }));

    operatorAlarm(this, 'DeadLettersAlarm', {
      fleet,
      alarmName: `${fleet}-schedules-dlq`,
      alarmDescription: `A cron job or heartbeat could not invoke cron-dispatch (see ${schedulesDlqName(fleet)})`,
      metric: this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
      threshold: 1,
      resolved: true,
    });
  }
}
