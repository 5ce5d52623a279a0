// λ outbox's scheduler ports, apart from control-plane.ts so that only the outbox's bundle
// carries the Scheduler client's chunk (which it loads at its first cron request).
import { schedulerPorts } from '../shared/adapters/aws/scheduler-ports.ts';
import type { PortFactories } from '../shared/control/control-plane.ts';
import type { LambdaEnv } from './control-plane.ts';

/** Agents' own cron jobs, where the CDK app gave this function λ cron-dispatch's ARN and the scheduler's role (λ outbox). */
export function agentSchedules(env: LambdaEnv): PortFactories {
  if (!env.CLAWFLEET_CRON_FUNCTION_ARN || !env.CLAWFLEET_SCHEDULER_ROLE_ARN) return {};
  return schedulerPorts({
    functionArn: env.CLAWFLEET_CRON_FUNCTION_ARN,
    roleArn: env.CLAWFLEET_SCHEDULER_ROLE_ARN,
    deadLetterArn: env.CLAWFLEET_SCHEDULES_DLQ_ARN,
  });
}
