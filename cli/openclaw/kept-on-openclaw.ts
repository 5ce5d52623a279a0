// `import-openclaw --runtime openclaw`: per agent, what its managed gateway starts without.
// The agent keeps running on OpenClaw, but clawfleet writes that gateway's config from
// clawfleet.json at every start and keeps its state in the agent's workspace
// (<workspace>/.openclaw-state/, runtime-image/src/kinds/openclaw.ts): the old install's
// sessions and databases are not moved there (their keys and stores are OpenClaw's own, tied
// to the old gateway), and OpenClaw settings clawfleet has no key for are not written. Said
// here, agent by agent, rather than found missing after the move.
import { join } from 'node:path';
import { isObj, type Obj } from './convert-types.ts';
import { locateAgents } from './state.ts';

/** OpenClaw's top-level settings the managed gateway's written config never carries, with why. */
const NOT_WRITTEN: [key: string, why: string][] = [
  [
    'plugins',
    'plugins (installed plugins and plugins.* settings): clawfleet has no plugin settings, so the gateway runs only OpenClaw’s bundled plugins at their defaults',
  ],
  [
    'skills',
    'skills.* settings (entries, keys, extra skill folders): not written; the agent’s own skills come with its workspace (--workspaces) and agents.list[].skills',
  ],
];

export interface KeptOnOpenclawOptions {
  /** OpenClaw's state directory (where its agents/<id>/ stores are). */
  openclawState: string;
  home: string | undefined;
  workspaceEnv?: string | undefined;
  /** Whether --workspaces copied (or will copy) the workspaces. */
  workspaces: boolean;
}

/** The report's lines: one block per agent, then what no agent's gateway carries. */
export function keptOnOpenclawReport(input: Obj, configPath: string, opts: KeptOnOpenclawOptions): string[] {
  let agents;
  try {
    agents = locateAgents(input, configPath, { stateDir: opts.openclawState, home: opts.home, workspaceEnv: opts.workspaceEnv });
  } catch (err) {
    return [`\nkept on OpenClaw: the agents' OpenClaw state could not be located (${(err as Error).message}); none of it is carried`];
  }
  const lines = ['\nkept on OpenClaw — per agent, what its managed gateway starts without:'];
  for (const a of agents) {
    const gatewayState = '<its workspace>/.openclaw-state/';
    lines.push(`  ${a.agentId}${a.rawId !== a.agentId ? ` (OpenClaw "${a.rawId}")` : ''}:`);
    const sessions = a.sessions;
    if (sessions.kind === 'none') lines.push(`    sessions: none found (looked in ${sessions.looked})`);
    else {
      const store = sessions.kind === 'sqlite' ? sessions.path : join(sessions.dir, 'sessions.json');
      lines.push(
        `    sessions: not carried — ${store} stays where it is; the managed gateway keeps its own state in ${gatewayState} and starts new sessions there${
          opts.workspaces ? ' (--workspaces converted them into clawfleet transcripts, which only runtime.kind "native" reads)' : ''
        }`,
      );
    }
    lines.push(
      opts.workspaces
        ? `    workspace: copied (--workspaces), memory files (MEMORY.md, memory/) included; OpenClaw's memory index is not carried: the gateway builds it again from those files`
        : `    workspace, memory: not copied — ${a.workspace} stays where it is (pass --workspaces to bring AGENTS.md, MEMORY.md, memory/ and skills/ into the agent's workspace); OpenClaw's memory index is not carried either`,
    );
  }
  const notWritten = NOT_WRITTEN.filter(([key]) => isObj(input[key]));
  for (const [, why] of notWritten) lines.push(`  every agent: ${why}`);
  if (isObj(input.mcp) && isObj(input.mcp.servers) && Object.keys(input.mcp.servers).length)
    lines.push('  every agent: MCP servers are carried (mcp.servers): its gateway runs its own copy, with the values from its own secret');
  return lines;
}
