// Agents' own cron jobs on AWS: the scheduler port group, in a file of its own because it loads
// its SDK client with import(), and esbuild gives every bundle that imports this file that
// chunk: only λ outbox (through functions/agent-schedule-ports.ts) does.
import { scheduleGroupName } from '../../config/names.ts';
import type { PortFactories } from '../../control/control-plane.ts';
import type { CronScheduler } from '../../ports.ts';
import type { AwsClientConfig } from './clients.ts';
import type { SchedulerTarget } from './eventbridge-cron-scheduler.ts';

/**
 * Agents' own cron jobs as schedules in the fleet's EventBridge Scheduler group, invoking
 * λ cron-dispatch. Its client and adapter are loaded and built at the first cron request, not
 * with λ outbox: most outbox records are replies, and the scheduler's client (with the REST
 * protocol only it speaks here) is a twentieth of the function's bundle.
 */
export function schedulerPorts(target: Omit<SchedulerTarget, 'group'>, config: AwsClientConfig = {}): PortFactories {
  return {
    scheduler: (cp) => {
      let built: Promise<CronScheduler> | undefined;
      const scheduler = () =>
        (built ??= import('./eventbridge-cron-scheduler.ts').then(
          ({ eventBridgeCronScheduler }) => eventBridgeCronScheduler(config, { group: scheduleGroupName(cp.config.fleet), ...target }),
          (err: unknown) => {
            built = undefined;
            throw err;
          },
        ));
      return {
        put: async (s) => (await scheduler()).put(s),
        delete: async (name) => (await scheduler()).delete(name),
        list: async (prefix) => (await scheduler()).list(prefix),
      };
    },
  };
}
