// Which secret values an agent needs, from its config alone: the names its own secret
// (clawfleet/<fleet>/agents/<id>) must hold. The runtime waits for them before it takes
// work (runtime-image/src/secrets/secret-wait.ts); `clawfleet secrets list` and `clawfleet deploy`
// report the ones missing (fleet-secrets.ts).
import type { RuntimeConfig } from '../config/resolve.ts';
import type { Placement } from '../config/runtime-kinds.ts';
import { searchKeyName } from '../config/schema.ts';
import { OPENCLAW_DEVICE_KEY } from './openclaw-device-key.ts';

type McpServers = NonNullable<RuntimeConfig['agent']['mcp']>['servers'];

/** The secret names MCP servers' configs refer to: a stdio server's env values, a URL server's headers. */
export function mcpSecretNames(servers: McpServers): string[] {
  return Object.values(servers).flatMap((s) => Object.values('command' in s ? (s.env ?? {}) : (s.headers ?? {})));
}

export interface NeededValue {
  name: string;
  /** What reads it, for messages: `the API key of provider "openai"`, `MCP server "graph"`. */
  usedBy: string;
  /** A random token clawfleet may make itself (the hooks and dashboard tokens); the rest only their issuers can. */
  generated?: boolean;
  /**
   * A value of a particular form, checked when read (a malformed one counts as missing, with
   * why) and made as that form: an OpenClaw device key (openclaw-device-key.ts).
   */
  form?: 'openclaw-device-key';
}

/**
 * Every secret name the agent's config refers to, with what needs it: its own `secrets`,
 * an external OpenClaw gateway's token, the API keys of the providers its models use
 * (unless `modelKeys` is off: the offline model, a model the caller supplies, or an
 * external OpenClaw gateway, which has its own), the values exec hands its commands
 * (`tools.exec.env`), the web search key, its MCP servers' credentials. A name may repeat.
 * On AWS (`placement`, default local) an external gateway's agent also needs its device key:
 * a task keeps nothing of its own between starts. Locally the runtime makes one in its state
 * when the secret has none.
 */
export function secretsNeeded(config: RuntimeConfig, opts: { modelKeys: boolean; placement?: Placement }): NeededValue[] {
  const out: NeededValue[] = [];
  for (const name of config.agent.secrets ?? []) out.push({ name, usedBy: 'agents.list[].secrets' });
  const openclaw = config.agent.runtime.kind === 'openclaw' ? config.agent.runtime.openclaw : undefined;
  // An operator's own OpenClaw gateway answers with its own models and keys; the agent's secret holds only the token to reach it.
  const external = openclaw?.mode === 'external';
  if (external && openclaw.tokenSecret) out.push({ name: openclaw.tokenSecret, usedBy: 'the OpenClaw gateway token (runtime.openclaw.tokenSecret)' });
  if (external && opts.placement === 'aws') {
    out.push({
      name: OPENCLAW_DEVICE_KEY,
      usedBy: "the agent's OpenClaw device key (clawfleet openclaw device)",
      generated: true,
      form: 'openclaw-device-key',
    });
  }
  if (opts.modelKeys && !external) {
    for (const ref of [config.agent.model.primary, ...config.agent.model.fallbacks]) {
      const providerName = ref.slice(0, ref.indexOf('/'));
      const key = config.providers[providerName]?.apiKeySecret;
      if (key) out.push({ name: key, usedBy: `the API key of provider "${providerName}"` });
    }
  }
  for (const [variable, name] of Object.entries(config.agent.tools?.exec?.env ?? {})) out.push({ name, usedBy: `exec's ${variable} (tools.exec.env)` });
  const search = config.agent.tools?.web?.search;
  if (search) out.push({ name: searchKeyName(search), usedBy: 'web_search (tools.web.search)' });
  const transcription = config.agent.tools?.media?.audio?.apiKeySecret;
  if (transcription) out.push({ name: transcription, usedBy: 'voice transcription (tools.media.audio)' });
  const speech = config.agent.tts?.apiKeySecret;
  if (speech) out.push({ name: speech, usedBy: 'spoken replies (tts)' });
  for (const [id, server] of Object.entries(config.agent.mcp?.servers ?? {})) {
    for (const name of mcpSecretNames({ [id]: server })) out.push({ name, usedBy: `MCP server "${id}"` });
  }
  return out;
}
