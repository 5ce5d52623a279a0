// One agent's schedules from the config: its cron jobs and its heartbeat, each an
// EventBridge Scheduler schedule in the fleet's group that invokes λ cron-dispatch with
// the trigger as input (scheduleInput embeds the firing time, which names the envelope,
// so a retried invocation queues nothing twice). Kept in the agent's stack: the control
// plane does not grow with the fleet, and one agent's jobs deploy with that agent.
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { Construct } from 'constructs';
import { scheduleGroupName } from '../../shared/config/names.ts';
import type { ScheduleSpec } from '../../shared/cron/config-schedules.ts';
import { scheduleInput } from '../../shared/cron/trigger.ts';

export interface AgentSchedulesProps {
  fleet: string;
  schedules: readonly ScheduleSpec[];
  /** λ cron-dispatch, the role Scheduler invokes it with, and where failed invocations go. */
  functionArn: string;
  roleArn: string;
  deadLetterArn: string;
}

export class AgentSchedules extends Construct {
  readonly schedules: scheduler.CfnSchedule[] = [];

  constructor(scope: Construct, id: string, props: AgentSchedulesProps) {
    super(scope, id);
    for (const spec of props.schedules) {
      this.schedules.push(
        new scheduler.CfnSchedule(this, spec.name, {
          name: spec.name,
          groupName: scheduleGroupName(props.fleet),
          description: spec.trigger.kind === 'heartbeat' ? `heartbeat of ${spec.trigger.agentId}` : `cron job ${spec.trigger.jobId} of ${spec.trigger.agentId}`,
          scheduleExpression: spec.expression,
          ...(spec.timezone ? { scheduleExpressionTimezone: spec.timezone } : {}),
          flexibleTimeWindow: { mode: 'OFF' },
          target: {
            arn: props.functionArn,
            roleArn: props.roleArn,
            input: scheduleInput(spec.trigger),
            retryPolicy: { maximumRetryAttempts: 5, maximumEventAgeInSeconds: 3600 },
            deadLetterConfig: { arn: props.deadLetterArn },
          },
        }),
      );
    }
  }
}
