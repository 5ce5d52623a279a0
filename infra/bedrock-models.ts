// The Bedrock resources an agent's model choice needs: each primary or fallback model
// whose provider speaks bedrock-converse. Converse and ConverseStream are authorized as
// bedrock:InvokeModel and bedrock:InvokeModelWithResponseStream.
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';

/** Geography prefixes of Bedrock's cross-region inference profiles (`us.anthropic...`). */
const PROFILE_PREFIXES = ['us', 'us-gov', 'eu', 'apac', 'jp', 'au', 'ca', 'global'];

export interface ArnParts {
  partition: string;
  region: string;
  account: string;
}

/** Model ids of the agent's bedrock-converse models (primary and fallbacks). */
export function bedrockModelIds(config: FleetConfig, agentId: string): string[] {
  const model = resolveAgent(config, agentId).model;
  if (!model) return [];
  const ids = new Set<string>();
  for (const ref of [model.primary, ...model.fallbacks]) {
    const slash = ref.indexOf('/');
    if (config.models.providers[ref.slice(0, slash)]?.api === 'bedrock-converse') ids.add(ref.slice(slash + 1));
  }
  return [...ids];
}

/**
 * ARNs to allow for one model id: the foundation model in this region, or for an
 * inference profile the profile itself plus its model in the regions it routes to.
 */
export function bedrockModelArns(modelId: string, at: ArnParts): string[] {
  const dot = modelId.indexOf('.');
  const prefix = dot > 0 ? modelId.slice(0, dot) : '';
  if (PROFILE_PREFIXES.includes(prefix)) {
    return [
      `arn:${at.partition}:bedrock:${at.region}:${at.account}:inference-profile/${modelId}`,
      `arn:${at.partition}:bedrock:*::foundation-model/${modelId.slice(dot + 1)}`,
    ];
  }
  return [`arn:${at.partition}:bedrock:${at.region}::foundation-model/${modelId}`];
}
