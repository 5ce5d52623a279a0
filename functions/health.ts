// λ health: an EventBridge schedule invokes it every minute; it wakes sleeping agents
// with work waiting, restarts silent ones and hibernates idle ones, and samples each
// agent's queue depth for the dashboard's queue chart.
import { SqsQueueStats } from '../shared/adapters/aws/sqs-queue-stats.ts';
import { healthTick } from '../shared/control/health.ts';
import { sampleQueueDepths } from '../shared/dashboard/fleet-view.ts';
import { createControlPlane } from './control-plane.ts';

const cp = createControlPlane(process.env, 'health');
const queues = new SqsQueueStats(cp.aws.sqs, cp.config.fleet, cp.directory);

export async function handler(): Promise<Record<string, string>> {
  const [actions] = await Promise.all([healthTick(cp.config, cp.lifecycle), sampleQueueDepths({ config: cp.config, queues, metrics: cp.metrics, clock: cp.clock, log: cp.log })]);
  const acted = Object.fromEntries(Object.entries(actions).filter(([, a]) => a !== 'none'));
  cp.log.info('health tick', { acted });
  return actions;
}
