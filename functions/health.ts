// λ health: an EventBridge schedule invokes it every minute; it wakes sleeping agents
// with work waiting, restarts silent ones and hibernates idle ones, and samples each
// agent's queue depth for the dashboard's queue chart.
import { dynamoPorts } from '../shared/adapters/aws/control-ports.ts';
import { sqsPorts } from '../shared/adapters/aws/sqs-ports.ts';
import { healthTick } from '../shared/control/health.ts';
import { sampleQueueDepths } from '../shared/dashboard/fleet-view.ts';
import { askingCompute, awsControlPlane } from './control-plane.ts';

const cp = await awsControlPlane('health', (env) => [dynamoPorts(), sqsPorts(), askingCompute(env)]);
const lifecycle = cp.requireLifecycle();
const sampling = cp.queueSampleDeps();

export async function handler(): Promise<Record<string, string>> {
  const [actions] = await Promise.all([healthTick(cp.config, lifecycle), sampleQueueDepths(sampling)]);
  const acted = Object.fromEntries(Object.entries(actions).filter(([, a]) => a !== 'none'));
  cp.log.info('health tick', { acted });
  return actions;
}
