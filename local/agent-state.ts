// A runtime process's state in the registry's words, so `clawfleet status` and the
// dashboard say the same thing: running → awake, starting → waking, hibernating or
// stopped → asleep. Anything else (a process state this file does not know) is unhealthy.
import type { AgentState } from '../shared/ports.ts';
import type { RuntimeState } from './runtime-launcher.ts';

const STATE: Partial<Record<string, AgentState>> = { running: 'awake', starting: 'waking', restarting: 'restarting', hibernating: 'asleep', stopped: 'asleep' };

export const localAgentState = (s: RuntimeState | string): AgentState => (Object.hasOwn(STATE, s) ? STATE[s]! : 'unhealthy');
