// What the fleet asks of whatever runs its agents' runtimes: child processes
// (supervisor.ts, the default) or containers of the runtime image (container-supervisor.ts,
// `--containers`). Both start, restart with backoff, hibernate, wake and stop them alike
// (runtime-lifecycle.ts); the words for that lifecycle live here.
import type { RuntimeConfig } from '../shared/config/resolve.ts';

export type RuntimeState = 'starting' | 'running' | 'restarting' | 'hibernating' | 'stopped';
export type LifecycleAction = 'restart' | 'upgrade' | 'hibernate' | 'wake';

export interface AgentRuntimeSpec {
  agentId: string;
  config: RuntimeConfig;
  /** This agent's own secret values, and nothing else. */
  secrets: Record<string, string>;
  /** Why this agent runs the offline model, when it has no model key. */
  offlineReason: string | undefined;
  /** The fleet's skills folder, when there is one (copied into the workspace by the runtime). */
  fleetSkills?: string | undefined;
}

export interface RuntimeInfo {
  state: RuntimeState;
  pid: number | undefined;
  /** Crash restarts since the process last ran a minute. */
  restarts: number;
  startedAt: number | undefined;
  lastExit: { code: number | null; signal: string | null; at: number } | undefined;
}

export interface SupervisorEvents {
  /** Each JSON log line a runtime writes. */
  onLine(agentId: string, line: Record<string, unknown>): void;
  /** A runtime process has exited, before any restart. */
  onExit(agentId: string, code: number | null, signal: string | null, crashed: boolean): void;
  /** Rebuilds an agent's spec (fresh secrets) before an operator starts it again. */
  respec?(agentId: string): Promise<AgentRuntimeSpec>;
  /** A runtime was told to stop (SIGTERM sent); `false` once its next process starts. */
  onStopping?(agentId: string, stopping: boolean): void;
}

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
