// What a turn pays to know its skills: discovery (each SKILL.md read and its YAML parsed), the
// fingerprint that now stands in for it while nothing changed (listings and a stat per
// SKILL.md), and the cached call a turn makes (agent-skills.ts), for a workspace with N skills
// of its own and N from the fleet.
//   npx tsx bench/skills-per-turn.ts [skills] [calls]
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../shared/log.ts';
import { agentSkills, agentSkillSources } from '../runtime-image/src/skills/agent-skills.ts';
import { discoverSkills, pathHost } from '../shared/adapters/fs/skill-discovery.ts';
import { skillsFingerprint } from '../runtime-image/src/skills/skills-fingerprint.ts';

const SKILLS = Number(process.argv[2] ?? 20);
const CALLS = Number(process.argv[3] ?? 200);
const workspace = mkdtempSync(join(tmpdir(), 'cf-bench-skills-'));
for (const dir of ['skills', 'fleet-skills']) {
  for (let i = 0; i < SKILLS; i++) {
    mkdirSync(join(workspace, dir, `skill-${i}`, 'scripts'), { recursive: true });
    writeFileSync(
      join(workspace, dir, `skill-${i}`, 'SKILL.md'),
      `---\nname: ${dir}-skill-${i}\ndescription: >\n  What skill ${i} does, in a sentence or two as ClawHub skills write it.\nmetadata:\n  openclaw:\n    emoji: "🔧"\n    requires:\n      bins: [sh]\n---\n\n# Skill ${i}\n\n${'Step by step instructions. '.repeat(40)}\n`,
    );
  }
}
const host = pathHost();
const sources = agentSkillSources(workspace);

async function time(f: () => unknown, n: number): Promise<string> {
  await f(); // the first call loads what it loads (the YAML parser)
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await f();
    out.push(performance.now() - t);
  }
  out.sort((a, b) => a - b);
  return `median ${out[out.length >> 1]!.toFixed(3)} ms   p90 ${out[Math.floor(out.length * 0.9)]!.toFixed(3)} ms`;
}

console.log(`skills per turn: ${SKILLS} workspace + ${SKILLS} fleet skills, ${CALLS} calls each, Node ${process.version}`);
console.log(
  `${'discovery (read + parse every SKILL.md), the old per-turn cost'.padEnd(64)} ${await time(() => discoverSkills(sources, undefined, host), CALLS)}`,
);
console.log(`${'fingerprint (listings + a stat per SKILL.md)'.padEnd(64)} ${await time(() => skillsFingerprint(sources), CALLS)}`);
const skills = agentSkills(
  workspace,
  undefined,
  host,
  createLogger({}, () => {}),
);
console.log(`${'a turn now, nothing changed (fingerprint + cached result)'.padEnd(64)} ${await time(skills, CALLS)}`);
