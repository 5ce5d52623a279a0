// λ cron-dispatch: EventBridge Scheduler invokes it with a schedule's trigger as the event.
// A malformed trigger is an error (Scheduler retries, then its DLQ keeps it); an unknown
// agent is logged and skipped, since retrying would never help.
import { dynamoPorts } from '../shared/adapters/aws/control-ports.ts';
import { sqsPorts } from '../shared/adapters/aws/sqs-ports.ts';
import { dispatchTrigger } from '../shared/control/cron-dispatch.ts';
import { CronTriggerSchema } from '../shared/cron/trigger.ts';
import { ClawfleetError, formatPath } from '../shared/errors.ts';
import { askingCompute, awsControlPlane } from './control-plane.ts';

const cp = await awsControlPlane('cron-dispatch', (env) => [dynamoPorts(), sqsPorts(), askingCompute(env)]);
const deps = cp.cronDispatchDeps();

export async function handler(event: unknown): Promise<{ queued?: string; skipped?: string }> {
  const parsed = CronTriggerSchema.safeParse(event);
  if (!parsed.success) {
    const reason = parsed.error.issues.map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`).join('; ');
    cp.log.error('schedule input is not a cron trigger', { reason });
    throw new ClawfleetError('TRIGGER_INVALID', `schedule input is not a cron trigger: ${reason}`);
  }
  const at = Date.parse(parsed.data.scheduledTime ?? '');
  const outcome = await dispatchTrigger(parsed.data, Number.isNaN(at) ? cp.clock.now() : at, deps);
  if ('skipped' in outcome) cp.log.info('schedule skipped', { agentId: parsed.data.agentId, reason: outcome.skipped });
  return outcome;
}
