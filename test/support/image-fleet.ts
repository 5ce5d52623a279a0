// The fleet the image tests synthesize, deploy and run: one agent per image stage — fran on
// the runtime stage, bram with the browser (the browser stage), olly of runtime.kind
// "openclaw" (the openclaw stage) — on this machine's CPU architecture (an arm64 task's
// image cannot be built or run on an x86_64 machine without emulation, and the other way).
import type { FleetConfigInput } from '../../shared/config/schema.ts';

export const IMAGE_FLEET = 'imgt';
export const HOST_ARCHITECTURE = process.arch === 'arm64' ? 'arm64' : 'x86_64';

/** Which agent runs which stage. */
export const STAGE_AGENTS = { runtime: 'fran', browser: 'bram', openclaw: 'olly' } as const;
export type ImageStage = keyof typeof STAGE_AGENTS;
export const IMAGE_STAGES = Object.keys(STAGE_AGENTS) as ImageStage[];

export interface ImageFleetOptions {
  fleet?: string;
  /** The fake model's OpenAI-compatible base URL, as the runtime inside the container reaches it. */
  modelBaseUrl?: string;
  /** The fake Bot API, as the control plane reaches it. */
  telegramApiRoot?: string;
  /** Telegram chat ids allowed to talk to the agents. */
  allowFrom?: string[];
  /** Whose agents to include (default: every stage's); fran, the default agent, always. */
  stages?: ImageStage[];
  /** Loopback or private hosts bram's browser may open (tools.web.fetch.allowPrivateHosts): the test's pages. */
  pageHosts?: string[];
}

export function imageFleetConfig(options: ImageFleetOptions = {}): FleetConfigInput {
  const web = options.pageHosts ? { web: { fetch: { allowPrivateHosts: options.pageHosts } } } : {};
  const agents = [
    { id: 'fran', name: 'Fran', default: true },
    { id: 'bram', name: 'Bram', runtime: { cpus: 1, memoryMb: 2048 }, tools: { browser: { enabled: true }, ...web } },
    { id: 'olly', name: 'Olly', runtime: { kind: 'openclaw' as const, cpus: 1, memoryMb: 2048 } },
  ].filter((a) => a.id === 'fran' || (options.stages ?? IMAGE_STAGES).some((s) => STAGE_AGENTS[s] === a.id));
  return {
    fleet: options.fleet ?? IMAGE_FLEET,
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512, architecture: HOST_ARCHITECTURE, idleTimeoutMinutes: 30 } },
      list: agents,
    },
    models: {
      providers: {
        openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY', ...(options.modelBaseUrl ? { baseUrl: options.modelBaseUrl } : {}) },
      },
    },
    // Each agent its own bot: <ID>_BOT_TOKEN in the control plane's Telegram secret.
    bindings: agents.map((a) => ({ agentId: a.id, match: { channel: 'telegram' as const, accountId: a.id } })),
    channels: {
      telegram: {
        ...(options.telegramApiRoot ? { apiRoot: options.telegramApiRoot } : {}),
        ...(options.allowFrom ? { allowFrom: options.allowFrom } : {}),
        accounts: Object.fromEntries(agents.map((a) => [a.id, { botTokenSecret: `${a.id.toUpperCase()}_BOT_TOKEN` }])),
      },
    },
  };
}
