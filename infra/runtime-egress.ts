// Which TCP ports the agent runtimes may connect out to, from the fleet config: HTTPS (AWS
// APIs, the image registry, logs, model providers, MCP servers, web pages), HTTP where an
// agent may fetch the web (web_fetch or the browser follow http:// links), and any other port
// a configured URL names (a provider's baseUrl, an MCP url server, a search, transcription or
// speech endpoint, an external OpenClaw gateway). Nothing else: the runtimes' security group allows
// these and NFS to the workspaces file system, not every port (fleet-network.ts).
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { TTS_DEFAULTS } from '../shared/config/tts.ts';
import { toolAllowed } from '../shared/tools/tool-policy.ts';

export interface EgressPort {
  port: number;
  /** Why the runtimes need it, for the rule's description. */
  why: string;
}

/** A security group holds 60 rules each way by default; the fleet's ports stay well under it. */
export const MAX_EGRESS_PORTS = 50;

const DEFAULT_PORTS: Record<string, number> = { 'https:': 443, 'wss:': 443, 'http:': 80, 'ws:': 80 };

/** The TCP port a URL connects to: its own, or its scheme's. */
function portOf(url: string): number | undefined {
  try {
    const u = new URL(url);
    return u.port ? Number(u.port) : DEFAULT_PORTS[u.protocol];
  } catch {
    return undefined;
  }
}

/** The ports, each once, lowest first, with the first reason found for each. */
export function runtimeEgressPorts(config: FleetConfig): EgressPort[] {
  const ports = new Map<number, string>([[443, 'HTTPS: AWS APIs, the image registry, model providers, MCP servers, web pages']]);
  const add = (url: string | undefined, why: string) => {
    const port = url === undefined ? undefined : portOf(url);
    if (port !== undefined && !ports.has(port)) ports.set(port, why);
  };
  for (const [name, provider] of Object.entries(config.models.providers)) add(provider.baseUrl, `model provider "${name}"`);
  for (const { id } of config.agents.list) {
    const agent = resolveAgent(config, id);
    const allowed = toolAllowed(agent.tools);
    if ((allowed('web_fetch') || (agent.tools?.browser?.enabled && allowed('browser'))) && !ports.has(80)) ports.set(80, 'HTTP: web pages fetched by agents');
    for (const [server, spec] of Object.entries(agent.mcp?.servers ?? {})) if ('url' in spec) add(spec.url, `MCP server "${server}" of ${id}`);
    add(agent.tools?.web?.search?.baseUrl, `web search of ${id}`);
    add(agent.tools?.media?.audio?.baseUrl, `transcription of ${id}`);
    if (agent.tts) add(agent.tts.baseUrl ?? TTS_DEFAULTS.baseUrl, `speech (tts) of ${id}`);
    if (agent.runtime.openclaw?.mode === 'external') add(agent.runtime.openclaw.url, `the OpenClaw gateway of ${id}`);
  }
  return [...ports].map(([port, why]) => ({ port, why })).sort((a, b) => a.port - b.port);
}
