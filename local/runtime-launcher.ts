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
  /** The agent's runtime process (for a container, the shell that runs its docker client). */
  pid(agentId: string): number | undefined;
  /** The outermost process the fleet started for the agent: a box's bwrap, an unboxed runtime, a container's shell. */
  topPid(agentId: string): number | undefined;
  act(agentId: string, action: LifecycleAction): Promise<RuntimeState>;
  stop(): Promise<void>;
}
