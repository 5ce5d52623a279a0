// λ health: an EventBridge schedule invokes it every minute; it wakes sleeping agents
// with work waiting, restarts silent ones and hibernates idle ones.
import { healthTick } from '../shared/control/health.ts';
import { createControlPlane } from './control-plane.ts';

const cp = createControlPlane(process.env, 'health');

export async function handler(): Promise<Record<string, string>> {
  const actions = await healthTick(cp.config, cp.lifecycle);
  const acted = Object.fromEntries(Object.entries(actions).filter(([, a]) => a !== 'none'));
  cp.log.info('health tick', { acted });
  return actions;
}
