// The runtime kind seam: `agents.list[].runtime.kind` → the module that runs an agent of that
// kind, loaded only when it is the one in use (a native start never parses the OpenClaw
// bridge). A third kind is one file here, one entry in shared/config/runtime-kinds.ts and
// its options' schema branch.
import { ConfigError } from '../../../shared/errors.ts';
import { DEFAULT_RUNTIME_KIND, kindPlacementProblem, type RuntimeKind } from '../../../shared/config/runtime-kinds.ts';
import type { RuntimeEnv } from '../env.ts';
import type { StartRuntime } from './runtime-kind.ts';

const KINDS: Record<RuntimeKind, () => Promise<StartRuntime>> = {
  native: async () => (await import('./native.ts')).startAgentRuntime,
  openclaw: async () => (await import('./openclaw.ts')).startOpenclawRuntime,
};

/** The kind's start, or a config error when the kind cannot run where this runtime runs. */
export function runtimeKindOf(env: RuntimeEnv): Promise<StartRuntime> {
  const kind = env.config.agent.runtime.kind ?? DEFAULT_RUNTIME_KIND;
  const load = KINDS[kind];
  if (!load) throw new ConfigError([{ path: 'agents.list[].runtime.kind', message: `unknown runtime kind "${String(kind)}"` }], 'runtime config');
  const problem = kindPlacementProblem(kind, env.transport.kind);
  if (problem) throw new ConfigError([{ path: `agents.list[${env.agentId}].runtime.kind`, message: problem }], 'runtime config');
  return load();
}
