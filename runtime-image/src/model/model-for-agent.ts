// Builds the agent's model from its config and its own secrets: the primary model, then
// its fallbacks, each behind retries (model-chain.ts). A provider that names an API key
// secret which this agent's secret lacks is a startup error naming the secret (never a value).
import type { RuntimeConfig } from '../../../shared/config/resolve.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import { modelChain, type ModelAttempt, type RetryPolicy } from './model-chain.ts';
import { piAiModel, type ModelClient } from './model.ts';
import { meteredModel, type SpendMeter } from '../spend/metered-model.ts';

export interface ModelForAgentOptions {
  retry?: RetryPolicy;
  onFailure?: (a: ModelAttempt) => void;
  contextWindow?: number;
  timeoutMs?: number;
  /** A metered agent's (#31): each model's calls are held against the budget, capped, reported and settled. */
  meter?: SpendMeter | undefined;
}

/** The agent's configured model refs, primary first: what `/model` may switch among. */
export function modelRefs(config: RuntimeConfig): string[] {
  return [config.agent.model.primary, ...config.agent.model.fallbacks];
}

/**
 * The agent's model: its primary, then its fallbacks — or, with `first` (a session's `/model`
 * choice, one of those refs), that one first and the others after it as fallbacks.
 */
export function modelForAgent(
  config: RuntimeConfig,
  secrets: Record<string, string>,
  secretId: string,
  opts: ModelForAgentOptions = {},
  first?: string,
): ModelClient {
  const configured = modelRefs(config);
  const refs = first && configured.includes(first) ? [first, ...configured.filter((r) => r !== first)] : configured;
  const models = refs.map((ref) => {
    const slash = ref.indexOf('/');
    const providerName = ref.slice(0, slash);
    const provider = config.providers[providerName];
    if (!provider) throw new ClawfleetError('PROVIDER_UNKNOWN', `model "${ref}" names provider "${providerName}", which the runtime config lacks`);
    let apiKey: string | undefined;
    if (provider.apiKeySecret) {
      apiKey = secrets[provider.apiKeySecret];
      if (apiKey === undefined) {
        throw new ClawfleetError('SECRET_MISSING', `secret "${secretId}" has no value "${provider.apiKeySecret}" (the API key of provider "${providerName}")`);
      }
    }
    const modelId = ref.slice(slash + 1);
    const imageInput = (provider.imageModels ?? []).some((m) => m === '*' || m === modelId);
    const model = piAiModel({
      providerName,
      provider,
      modelId,
      apiKey,
      contextWindow: opts.contextWindow,
      timeoutMs: opts.timeoutMs,
      imageInput,
      capOutput: !!opts.meter,
    });
    return opts.meter ? meteredModel(model, ref, opts.meter) : model;
  });
  return modelChain(models, opts.retry, { onFailure: opts.onFailure });
}

/** The provider APIs an agent's models use, to load their modules ahead of the first turn. */
export function providerApis(config: RuntimeConfig): RuntimeConfig['providers'][string]['api'][] {
  const refs = [config.agent.model.primary, ...config.agent.model.fallbacks];
  return [...new Set(refs.flatMap((r) => config.providers[r.slice(0, r.indexOf('/'))]?.api ?? []))];
}
