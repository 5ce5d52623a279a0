// Which CPU an agent's Fargate task runs on. Graviton (arm64) costs about 20% less per
// vCPU-hour and GB-hour than x86_64, so it is the default. Spot is the exception: AWS's
// own pages disagree on whether Fargate Spot runs ARM64 tasks (the ECS API reference for
// CapacityProviderStrategyItem says it does on platform 1.4.0+, the Developer Guide's
// Fargate capacity provider page says Spot takes X86_64 only), so a Spot agent that names
// no architecture gets the one both agree on; naming arm64 with spot is the user's call.
import type { RuntimeProfile } from './schema.ts';

export type CpuArchitecture = NonNullable<RuntimeProfile['architecture']>;

export function runtimeArchitecture(runtime: Partial<RuntimeProfile>): CpuArchitecture {
  return runtime.architecture ?? (runtime.spot ? 'x86_64' : 'arm64');
}
