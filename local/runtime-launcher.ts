// What the fleet asks of whatever runs its agents' runtimes: child processes
// (supervisor.ts, the default) or containers of the runtime image (container-supervisor.ts,
// `--containers`). Both start, restart with backoff, hibernate, wake and stop them alike.
import type { AgentRuntimeSpec, LifecycleAction, RuntimeInfo, RuntimeState } from './supervisor.ts';

export interface RuntimeLauncher {
  start(spec: AgentRuntimeSpec): void;
  /** The agent a runtime token belongs to. */
  agentOfToken(token: string): string | undefined;
  state(agentId: string): RuntimeState;
  info(agentId: string): RuntimeInfo;
  /** The process the fleet started for the agent (for a container, its docker client). */
  pid(agentId: string): number | undefined;
  act(agentId: string, action: LifecycleAction): Promise<RuntimeState>;
  stop(): Promise<void>;
}
