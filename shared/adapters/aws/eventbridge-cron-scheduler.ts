// The fleet's schedule group in EventBridge Scheduler. Every schedule invokes
// λ cron-dispatch with its trigger as input; one-off `at` schedules delete themselves.
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import type { CronScheduler, Schedule } from '../../ports.ts';
import { clientSettings, type AwsClientConfig } from './clients.ts';

export interface SchedulerTarget {
  group: string;
  /** λ cron-dispatch's ARN, and the role Scheduler assumes to invoke it. */
  functionArn: string;
  roleArn: string;
  /** Where Scheduler puts an invocation that failed all its retries. */
  deadLetterArn?: string | undefined;
}

/** Built here, not in clients.ts: only where schedules are read or written is the Scheduler's client loaded. */
export const schedulerClient = (config: AwsClientConfig = {}) => new SchedulerClient(clientSettings(config));

/** The scheduler on a client of its own: what λ outbox loads at its first cron request (control-ports.ts). */
export const eventBridgeCronScheduler = (config: AwsClientConfig, target: SchedulerTarget): CronScheduler =>
  new EventBridgeCronScheduler(schedulerClient(config), target);

export class EventBridgeCronScheduler implements CronScheduler {
  constructor(
    private readonly client: SchedulerClient,
    private readonly target: SchedulerTarget,
  ) {}

  async put(s: Schedule): Promise<void> {
    const request = {
      Name: s.name,
      GroupName: this.target.group,
      ScheduleExpression: s.expression,
      ScheduleExpressionTimezone: s.timezone,
      FlexibleTimeWindow: { Mode: 'OFF' as const },
      Target: {
        Arn: this.target.functionArn,
        RoleArn: this.target.roleArn,
        Input: s.input,
        RetryPolicy: { MaximumRetryAttempts: 5 },
        ...(this.target.deadLetterArn ? { DeadLetterConfig: { Arn: this.target.deadLetterArn } } : {}),
      },
      ActionAfterCompletion: s.expression.startsWith('at(') ? ('DELETE' as const) : ('NONE' as const),
    };
    try {
      await this.client.send(new UpdateScheduleCommand(request));
    } catch (err) {
      if (!(err instanceof ResourceNotFoundException)) throw err;
      await this.client.send(new CreateScheduleCommand(request));
    }
  }

  async delete(name: string): Promise<boolean> {
    try {
      await this.client.send(new DeleteScheduleCommand({ Name: name, GroupName: this.target.group }));
      return true;
    } catch (err) {
      if (err instanceof ResourceNotFoundException) return false;
      throw err;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let NextToken: string | undefined;
    do {
      const page = await this.client.send(new ListSchedulesCommand({ GroupName: this.target.group, NamePrefix: prefix || undefined, NextToken }));
      // Filtered here as well: an emulator may treat NamePrefix loosely.
      names.push(...(page.Schedules ?? []).map((x) => x.Name!).filter((n) => n.startsWith(prefix)));
      NextToken = page.NextToken;
    } while (NextToken);
    return names;
  }
}
