// The skills of one running agent, as each turn sees them: discovered again (SKILL.md read and
// its YAML parsed) only when the skill folders changed since the last turn, by a fingerprint of
// their listings and each SKILL.md's stat (skills-fingerprint.ts), so an unchanged set costs a
// listing and a stat per skill and a skill the agent or its user adds or edits is offered from
// the next turn on. Each skill left out is logged once with its reason, not at every turn.
import type { Logger } from '../../../shared/log.ts';
import { discoverSkills, type OfferedSkill, type SkillDiscovery, type SkillHost, type SkillSource } from '../../../shared/adapters/fs/skill-discovery.ts';
import { WORKSPACE_SKILLS_DIR } from '../../../shared/workspace/workspace-paths.ts';
import { FLEET_SKILLS_DIR } from './fleet-skills.ts';
import { skillsFingerprint } from './skills-fingerprint.ts';

/** The sources of an agent's skills in precedence order, both inside its workspace. */
export function agentSkillSources(workspace: string): SkillSource[] {
  return [
    { kind: 'workspace', root: workspace, dir: WORKSPACE_SKILLS_DIR },
    { kind: 'fleet', root: workspace, dir: FLEET_SKILLS_DIR },
  ];
}

export type DiscoverSkills = typeof discoverSkills;

export function agentSkills(
  workspace: string,
  allow: readonly string[] | undefined,
  host: SkillHost,
  log: Logger,
  discover: DiscoverSkills = discoverSkills,
): () => Promise<OfferedSkill[]> {
  const sources = agentSkillSources(workspace);
  const logged = new Set<string>();
  let last: { fingerprint: string; found: Promise<SkillDiscovery> } | undefined;
  return async () => {
    const fingerprint = skillsFingerprint(sources);
    if (last?.fingerprint !== fingerprint) {
      // Kept as a promise: turns of two sessions starting together share one discovery.
      const found = discover(sources, allow, host);
      last = { fingerprint, found };
      // A failed discovery is not kept: the next turn looks again.
      found.catch(() => {
        if (last?.found === found) last = undefined;
      });
    }
    const { offered, leftOut } = await last.found;
    for (const s of leftOut) {
      const key = `${s.path}\n${s.reason}`;
      if (logged.has(key)) continue;
      logged.add(key);
      log.info('skill left out', { skill: s.name, source: s.source, path: s.path, reason: s.reason });
    }
    return offered;
  };
}
