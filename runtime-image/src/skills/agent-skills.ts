// The skills of one running agent: looked for again at each turn (a skill the agent or its
// user adds to skills/ is offered from the next turn on), with each skill left out logged
// once with its reason rather than at every turn.
import type { Logger } from '../../../shared/log.ts';
import { discoverSkills, type OfferedSkill, type SkillHost, type SkillSource } from './discover.ts';
import { FLEET_SKILLS_DIR } from './fleet-skills.ts';

export const WORKSPACE_SKILLS_DIR = 'skills';

/** The sources of an agent's skills in precedence order, both inside its workspace. */
export function agentSkillSources(workspace: string): SkillSource[] {
  return [
    { kind: 'workspace', root: workspace, dir: WORKSPACE_SKILLS_DIR },
    { kind: 'fleet', root: workspace, dir: FLEET_SKILLS_DIR },
  ];
}

export function agentSkills(workspace: string, allow: readonly string[] | undefined, host: SkillHost, log: Logger): () => Promise<OfferedSkill[]> {
  const logged = new Set<string>();
  return async () => {
    const { offered, leftOut } = await discoverSkills(agentSkillSources(workspace), allow, host);
    for (const s of leftOut) {
      const key = `${s.path}\n${s.reason}`;
      if (logged.has(key)) continue;
      logged.add(key);
      log.info('skill left out', { skill: s.name, source: s.source, path: s.path, reason: s.reason });
    }
    return offered;
  };
}
