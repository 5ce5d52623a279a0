// `clawfleet skills list --agent <id>`: the skills an agent would be offered, from its local
// workspace's skills/ and the fleet's skills/ beside the config, and why any is left out
// (the allow list, a program missing on this machine, a SKILL.md that does not parse).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fleetSkillsDir } from '../shared/config/fleet-skills-dir.ts';
import { skillAccess } from '../shared/config/skill-tools.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import { discoverSkills, pathHost, type SkillSource } from '../shared/adapters/fs/skill-discovery.ts';
import { WORKSPACE_SKILLS_DIR } from '../shared/workspace/workspace-paths.ts';
import { execWanted } from '../shared/tools/sandbox-needs.ts';
import { toolAllowed } from '../shared/tools/tool-policy.ts';
import { commonOptions, EXIT, parse, str, table, type Command, choose } from './command.ts';
import { loadFleetConfig, requireAgent } from './fleet-config.ts';

const HELP = `Usage: clawfleet skills list --agent <id> [--config clawfleet.json] [--state .clawfleet]

Lists the skills the agent is offered and those left out, with the reason: from its
workspace's skills/ (local mode's <state>/workspaces/<id>/skills; first) and the fleet's
skills/ folder beside the config. Required programs are looked for on this machine's PATH,
which is what a local runtime sees; an agent on AWS sees its image's.

  --agent <id>      the agent
  --config <path>   the fleet config (default clawfleet.json)
  --state <dir>     local mode's state directory (default .clawfleet)`;

export const skillsCommand: Command = {
  async run(args, io) {
    const [sub, ...rest] = args;
    if (sub === '--help' || sub === '-h') return (io.out(HELP), EXIT.ok);
    choose(sub, ['list'], HELP);
    const p = parse(rest, { config: commonOptions.config, state: commonOptions.state, agent: { type: 'string' } }, HELP, io);
    if (!p) return EXIT.ok;
    const configPath = resolve(io.cwd, str(p.values.config)!);
    const config = loadFleetConfig(configPath, io);
    const agentId = requireAgent(config, str(p.values.agent), HELP);
    const agent = resolveAgent(config, agentId);
    const allow = agent.skills;

    const workspace = join(resolve(io.cwd, str(p.values.state)!), 'workspaces', agentId);
    const fleet = fleetSkillsDir(configPath);
    const sources: SkillSource[] = [
      { kind: 'workspace', root: workspace, dir: WORKSPACE_SKILLS_DIR },
      { kind: 'fleet', root: resolve(fleet, '..'), dir: 'skills' },
    ];
    // As the runtime decides it; exec counts as offered where the policy allows it (a runtime
    // also needs a sandbox for it, which this machine's CLI cannot tell for the agent's).
    const access = skillAccess({ read: toolAllowed(agent.tools)('read'), exec: execWanted(agent), execEnv: agent.tools?.exec?.env });
    const found = await discoverSkills(
      sources.filter((s) => existsSync(s.root)),
      allow,
      pathHost(io.env.PATH, undefined, access.offered ? access.env : []),
    );
    const offered = access.offered ? found.offered : [];
    const leftOut = access.offered ? found.leftOut : [...found.offered.map((s) => ({ ...s, reason: access.why })), ...found.leftOut];
    const notes = [
      `workspace skills: ${existsSync(join(workspace, WORKSPACE_SKILLS_DIR)) ? join(workspace, WORKSPACE_SKILLS_DIR) : `none (${join(workspace, WORKSPACE_SKILLS_DIR)} does not exist)`}`,
      `fleet skills: ${existsSync(fleet) ? fleet : `none (${fleet} does not exist)`}`,
      `allow list: ${allow ? (allow.length ? allow.join(', ') : '(empty: no skill)') : 'none (every skill found)'}`,
    ];
    if (offered.length === 0 && leftOut.length === 0) {
      io.out(`${notes.join('\n')}\n\nagent ${agentId} has no skills`);
      return EXIT.ok;
    }
    const rows = [['SKILL', 'SOURCE', 'OFFERED', 'DESCRIPTION OR WHY NOT']];
    for (const s of offered) rows.push([s.name, s.source, 'yes', s.description.length > 70 ? `${s.description.slice(0, 69)}…` : s.description]);
    for (const s of leftOut) rows.push([s.name, s.source, 'no', s.reason]);
    io.out(`${notes.join('\n')}\n\n${table(rows)}`);
    return EXIT.ok;
  },
};
