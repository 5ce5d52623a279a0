// How the fleet's alarms reach a person: one SNS topic, `<fleet>-alarms`, that every alarm of
// every stack notifies (operatorAlarm), subscribed by the operator's email and, where the config
// names the operator's Telegram chat, by λ operator-alerts. The topic is TLS-only and lets
// CloudWatch publish only for this account's alarms of this fleet. Agent stacks name it by ARN
// (its name is deterministic), so no export ties them to the control plane.
import { ArnFormat, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { alarmsTopicName } from '../../shared/config/names.ts';

const TOPIC_ID = 'OperatorAlarms';
const IMPORTED_ID = 'OperatorAlarmsTopic';

export interface OperatorAlarmsProps {
  fleet: string;
  /** operator.email: subscribed (SNS mails it a confirmation link first). */
  email: string | undefined;
}

/** The control plane's side: the topic and its subscriptions. Make it before any alarm of its stack. */
export class OperatorAlarms extends Construct {
  readonly topic: sns.Topic;

  /** Makes it at the root of `stack`, where operatorAlarm finds it. */
  static create(stack: Stack, props: OperatorAlarmsProps): OperatorAlarms {
    return new OperatorAlarms(stack, TOPIC_ID, props);
  }

  private constructor(scope: Construct, id: string, props: OperatorAlarmsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // Not encrypted at rest (cdk-nag's pack no longer asks, SNS3 asks for TLS): the notifications
    // carry alarm names, thresholds and our own descriptions, no user content and no secret,
    // and CloudWatch can publish to an encrypted topic only through a customer-managed key
    // ($1 a month, a fifth of an idle fleet; the AWS-managed aws/sns key does not let it).
    this.topic = new sns.Topic(this, 'Topic', {
      topicName: alarmsTopicName(props.fleet),
      displayName: `clawfleet ${props.fleet} alarms`,
      enforceSSL: true,
    });
    // The policy enforceSSL writes replaces SNS's default one, which let the account's
    // principals (CloudWatch among them, on the account's behalf) publish: say who may.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsOfThisFleet',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: `${props.fleet}-*`,
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );
    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
  }

  /** λ operator-alerts, where the config names the operator's Telegram chat. */
  subscribe(fn: lambda.IFunction): void {
    this.topic.addSubscription(new subscriptions.LambdaSubscription(fn));
  }
}

export interface OperatorAlarmProps {
  fleet: string;
  alarmName: string;
  alarmDescription: string;
  metric: cloudwatch.IMetric;
  /** Goes off when one period of `metric` reaches this. */
  threshold: number;
  /**
   * Also tell the operator when it is resolved: an alarm that stays on until someone acts (a
   * dead letter, a crash loop) rather than one that clears itself when its window passes
   * (errors in 5 minutes).
   */
  resolved: boolean;
}

/**
 * An alarm of the fleet, notifying the fleet's topic: every one goes off when a single period
 * of its metric reaches its threshold, and a period with no data (nothing happened) is fine.
 */
export function operatorAlarm(scope: Construct, id: string, props: OperatorAlarmProps): cloudwatch.Alarm {
  const alarm = new cloudwatch.Alarm(scope, id, {
    alarmName: props.alarmName,
    alarmDescription: props.alarmDescription,
    metric: props.metric,
    threshold: props.threshold,
    evaluationPeriods: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
  });
  const action = new actions.SnsAction(alarmsTopic(Stack.of(alarm), props.fleet));
  alarm.addAlarmAction(action);
  if (props.resolved) alarm.addOkAction(action);
  return alarm;
}

/** The topic in `stack`: the control plane's own, or the one its name makes (agent stacks). */
function alarmsTopic(stack: Stack, fleet: string): sns.ITopic {
  const own = stack.node.tryFindChild(TOPIC_ID);
  if (own instanceof OperatorAlarms) return own.topic;
  const imported = stack.node.tryFindChild(IMPORTED_ID) as sns.ITopic | undefined;
  return imported ?? sns.Topic.fromTopicArn(stack, IMPORTED_ID, stack.formatArn({ service: 'sns', resource: alarmsTopicName(fleet) }));
}
