// The sandbox for code the agent chooses, looked for as early as a start can: its probe waits
// on other processes (bubblewrap, or setpriv and a shell as a tool uid), so main.ts starts it
// right after reading the environment and loads the rest of the runtime meanwhile. Exec is
// still offered only once the answer is in (agent-runtime.ts awaits it before any tool exists).
import { mkdirSync } from 'node:fs';
import type { RuntimeEnv } from '../env.ts';
import { chooseSandbox, type SandboxChoice } from './choose-sandbox.ts';
import { toolAllowed } from '../tools/tool-policy.ts';

type Agent = RuntimeEnv['config']['agent'];

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

/** Starts looking for the sandbox when the agent needs one (needsSandbox); resolves to undefined when it does not. */
export function chooseSandboxAtStart(env: RuntimeEnv): Promise<SandboxChoice | undefined> {
  if (!needsSandbox(env.config.agent)) return Promise.resolve(undefined);
  // The probe runs inside the workspace (seeding, later, would make it anyway).
  mkdirSync(env.workspace, { recursive: true });
  return chooseSandbox(env.sandbox, env.workspace);
}
