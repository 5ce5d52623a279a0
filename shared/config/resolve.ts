// What one agent's settings come to once agents.defaults is merged in, and the slice
// of the fleet config a runtime is given (its own agent and the providers it uses).
import * as z from '../zod.ts';
import { ClawfleetError } from '../errors.ts';
import { priceOf } from '../budget/prices.ts';
import { AgentSchema, ModelPriceSchema, ProviderSchema, RuntimeProfileSchema, type AgentConfig, type FleetConfig, type RuntimeProfile } from './schema.ts';
import { mergeTts } from './tts.ts';

export interface ModelChoice {
  primary: string;
  fallbacks: string[];
}

export interface ResolvedAgent extends Omit<AgentConfig, 'model' | 'runtime'> {
  model: ModelChoice | undefined;
  runtime: Partial<RuntimeProfile>;
}

function findAgent(config: FleetConfig, agentId: string): AgentConfig {
  const agent = config.agents.list.find((a) => a.id === agentId);
  if (!agent) throw new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in fleet "${config.fleet}"`);
  return agent;
}

/** The agent that takes what no binding matches: the one marked default, else the first. */
export function defaultAgentId(config: FleetConfig): string {
  return (config.agents.list.find((a) => a.default) ?? config.agents.list[0]!).id;
}

export function resolveAgent(config: FleetConfig, agentId: string): ResolvedAgent {
  const agent = findAgent(config, agentId);
  const defaults = config.agents.defaults ?? {};
  const model = agent.model ?? defaults.model;
  return {
    ...agent,
    model:
      model === undefined
        ? undefined
        : typeof model === 'string'
          ? { primary: model, fallbacks: [] }
          : { primary: model.primary, fallbacks: model.fallbacks ?? [] },
    runtime: { ...defaults.runtime, ...agent.runtime },
    tools: mergeToolPolicy(defaults.tools, agent.tools),
    heartbeat: agent.heartbeat ?? defaults.heartbeat,
    skills: agent.skills ?? defaults.skills,
    // Key by key: an agent that sets only a daily cap keeps the defaults' monthly one.
    budget: defaults.budget || agent.budget ? { ...defaults.budget, ...agent.budget } : undefined,
    tts: mergeTts(defaults.tts, agent.tts),
  };
}

/** The price of each of the agent's models that has one (models.prices, else the defaults). */
export function agentPrices(config: FleetConfig, agent: Pick<ResolvedAgent, 'model'>): Record<string, z.infer<typeof ModelPriceSchema>> {
  const refs = agent.model ? [agent.model.primary, ...agent.model.fallbacks] : [];
  return Object.fromEntries(
    refs.flatMap((ref) => {
      const price = priceOf(ref, config.models.prices);
      return price ? [[ref, price]] : [];
    }),
  );
}

/**
 * An agent's `tools` replaces the defaults' allow/deny lists as a whole (as before), but
 * `tools.exec` merges key by key: an agent that only denies a tool keeps the defaults'
 * exec sandbox and security settings rather than silently falling back to "full".
 */
function mergeToolPolicy(defaults: AgentConfig['tools'], own: AgentConfig['tools']): AgentConfig['tools'] {
  const base = own ?? defaults;
  const exec = defaults?.exec || own?.exec ? { ...defaults?.exec, ...own?.exec } : undefined;
  // tools.media (#16) likewise: an agent's own tools list does not drop the defaults' transcription.
  const media = defaults?.media || own?.media ? { ...defaults?.media, ...own?.media } : undefined;
  if (!base && !exec && !media) return undefined;
  return { ...base, ...(exec ? { exec } : {}), ...(media ? { media } : {}) };
}

/** Fargate's valid cpu/memory pairs; undefined when the pair is valid. */
export function fargateSizeProblem(cpus: number, memoryMb: number): string | undefined {
  const steps: Record<number, [min: number, max: number, step: number]> = {
    0.25: [512, 2048, 512],
    0.5: [1024, 4096, 1024],
    1: [2048, 8192, 1024],
    2: [4096, 16384, 1024],
    4: [8192, 30720, 1024],
    8: [16384, 61440, 4096],
    16: [32768, 122880, 8192],
  };
  const range = steps[cpus];
  if (!range) return `cpus ${cpus} is not a Fargate size`;
  const [min, max, step] = range;
  const ok = memoryMb >= min && memoryMb <= max && (memoryMb - min) % step === 0 && !(cpus === 0.25 && memoryMb === 1536);
  return ok ? undefined : `Fargate with ${cpus} vCPU takes ${min}–${max} MB in steps of ${step} MB (got ${memoryMb})`;
}

/** What a runtime is told about itself: no other agent's settings, no secret values. */
export const RuntimeConfigSchema = z.strictObject({
  fleet: z.string(),
  agent: z.extend(z.omit(AgentSchema, { model: true, runtime: true }), {
    model: z.strictObject({ primary: z.string(), fallbacks: z.array(z.string()) }),
    runtime: z.partial(RuntimeProfileSchema),
  }),
  providers: z.record(z.string(), ProviderSchema),
  /** The prices of the agent's models (#31), which a budget is counted with. */
  prices: z.optional(z.record(z.string(), ModelPriceSchema)),
});
export type RuntimeConfig = z.infer<typeof RuntimeConfigSchema>;

export function runtimeConfigFor(config: FleetConfig, agentId: string): RuntimeConfig {
  const agent = resolveAgent(config, agentId);
  if (!agent.model) throw new ClawfleetError('AGENT_NO_MODEL', `agent "${agentId}" has no model`);
  const providers: RuntimeConfig['providers'] = {};
  for (const ref of [agent.model.primary, ...agent.model.fallbacks]) {
    const name = ref.slice(0, ref.indexOf('/'));
    const provider = config.models.providers[name];
    if (provider) providers[name] = provider;
  }
  // Only a metered agent (one with a budget) needs its models' prices.
  const prices = agent.budget ? agentPrices(config, agent) : {};
  return { fleet: config.fleet, agent: { ...agent, model: agent.model }, providers, ...(Object.keys(prices).length ? { prices } : {}) };
}
