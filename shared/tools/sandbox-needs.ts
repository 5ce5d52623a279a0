// What an agent's config asks of the sandbox, decided alike by the runtime at its start
// (whether to look for one), `clawfleet skills` (whether exec is there for a skill) and the
// security audit (which agents need one on this machine).
import type { RuntimeConfig } from '../config/resolve.ts';
import { toolAllowed } from './tool-policy.ts';

type Agent = RuntimeConfig['agent'];

/** Whether the config lets the agent have exec at all (allowed, and not denied by tools.exec.security). */
export function execWanted(agent: Pick<Agent, 'tools'>): boolean {
  return toolAllowed(agent.tools)('exec') && (agent.tools?.exec?.security ?? 'full') !== 'deny';
}

/** The stdio MCP servers whose config asks for the sandbox. */
export function sandboxedServers(agent: Pick<Agent, 'mcp'>): string[] {
  return Object.entries(agent.mcp?.servers ?? {})
    .filter(([, s]) => 'command' in s && s.sandbox === true)
    .map(([id]) => id);
}

/** Whether something the agent runs needs the sandbox: exec (unless explicitly unsandboxed), a sandboxed MCP server, the browser. */
export function needsSandbox(agent: Pick<Agent, 'tools' | 'mcp'>): boolean {
  const browser = agent.tools?.browser?.enabled === true && toolAllowed(agent.tools)('browser');
  return (execWanted(agent) && agent.tools?.exec?.sandbox !== 'off') || sandboxedServers(agent).length > 0 || browser;
}
