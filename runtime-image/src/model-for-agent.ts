// Builds the agent's model client from its config and its own secrets. A provider that
// names an API key secret which this agent's secret lacks is a startup error naming it.
import type { RuntimeConfig } from '../../shared/config/resolve.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { piAiModel, type ModelClient } from './model.ts';

export function modelForAgent(config: RuntimeConfig, secrets: Record<string, string>, secretId: string): ModelClient {
  const ref = config.agent.model.primary;
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
  return piAiModel({ providerName, provider, modelId: ref.slice(slash + 1), apiKey });
}
