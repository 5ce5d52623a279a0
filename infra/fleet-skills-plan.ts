// The fleet's skills on AWS (#19): for each agent, the skill folders of the skills/ folder
// beside the config that its allow list admits, packed into one bundle
// (shared/config/fleet-skills-bundle.ts) that its stack ships as a CDK file asset and its task
// role alone may read. Admission is decided as the runtime decides it
// (shared/adapters/fs/skill-discovery.ts: a SKILL.md's name, else its folder's, the first
// folder of a name winning, against agents.list[].skills); requirements are the runtime's to check, on its own PATH. What cannot
// be shipped as it is refuses the synth, all at once: a link that leads out of the folder, a
// name no file system path should hold, a limit passed.
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { type BundledFile, encodeFleetSkillsBundle, FLEET_SKILLS_LIMITS, unsafeNameProblem } from '../shared/config/fleet-skills-bundle.ts';
import { fleetSkillsDir } from '../shared/config/fleet-skills-dir.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import { DEFAULT_RUNTIME_KIND } from '../shared/config/runtime-kinds.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import type { ConfigIssue } from '../shared/errors.ts';
import { parseSkillFile } from '../shared/skills/skill-file.ts';

export interface AgentFleetSkills {
  /** The packed bundle; undefined when the allow list admits none of the fleet's skills. */
  bundle: Uint8Array | undefined;
  /** The skill folders it holds. */
  skills: string[];
  /** Links inside the folder, left out as local mode leaves them out. */
  skipped: string[];
}

export interface FleetSkillsPlan {
  /** By agent id; empty when the fleet has no skills/ folder. */
  agents: Map<string, AgentFleetSkills>;
  issues: ConfigIssue[];
}

export function planFleetSkills(config: FleetConfig, configPath: string): FleetSkillsPlan {
  const dir = fleetSkillsDir(configPath);
  const agents = new Map<string, AgentFleetSkills>();
  let root: string;
  try {
    root = realpathSync(dir);
  } catch {
    return { agents, issues: [] };
  }
  const issues: ConfigIssue[] = [];
  // The folder's own entries first: a link among them that leads out is refused whoever would get it.
  for (const name of readdirSync(root).sort()) checkLink(root, join(root, name), dir, issues);
  const named = skillNames(root);
  const byAllowList = new Map<string, AgentFleetSkills>();
  for (const agent of config.agents.list) {
    const resolved = resolveAgent(config, agent.id);
    // Fleet skills are the native runtime's; an openclaw agent loads skills as OpenClaw does
    // (its workspace's skills/, OpenClaw's bundled ones), filtered by the same allow list in its
    // gateway's config — a bundle it never reads would only be an asset and a grant for nothing.
    if ((resolved.runtime.kind ?? DEFAULT_RUNTIME_KIND) !== 'native') continue;
    const allow = resolved.skills;
    const key = JSON.stringify(allow ?? null);
    let planned = byAllowList.get(key);
    if (!planned) {
      const folders = [...named].filter(([name]) => !allow || allow.includes(name)).map(([, folder]) => folder);
      planned = pack(root, dir, folders, issues);
      byAllowList.set(key, planned);
    }
    agents.set(agent.id, planned);
  }
  return { agents, issues: dedupe(issues) };
}

/**
 * Each skill's name and folder, as discovery names them: real folders (not links) with a
 * SKILL.md that parses, in folder order, the first of a name kept. A folder whose SKILL.md does
 * not parse is not shipped: the runtime would leave it out anyway (clawfleet skills list says why).
 */
function skillNames(root: string): Map<string, string> {
  const named = new Map<string, string>();
  const folders = readdirSync(root, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  for (const folder of folders) {
    const file = join(root, folder, 'SKILL.md');
    let name: string | undefined;
    try {
      if (!lstatSync(file).isFile()) continue;
      name = parseSkillFile(readFileSync(file, 'utf8')).name ?? folder;
    } catch {
      continue;
    }
    if (!named.has(name)) named.set(name, folder);
  }
  return named;
}

function pack(root: string, shown: string, folders: string[], issues: ConfigIssue[]): AgentFleetSkills {
  const files: BundledFile[] = [];
  const skipped: string[] = [];
  let entries = 0;
  let total = 0;
  const before = issues.length;
  const walk = (abs: string, rel: string, depth: number) => {
    for (const name of readdirSync(abs).sort()) {
      const path = `${rel}/${name}`;
      const at = join(abs, name);
      const problem = unsafeNameProblem(name);
      if (problem) {
        issues.push({ path: join(shown, rel), message: `${problem}: rename it, a fleet skill's files must have plain names` });
        continue;
      }
      if (++entries > FLEET_SKILLS_LIMITS.entries) {
        issues.push({ path: shown, message: `the skills its agents get hold more than ${FLEET_SKILLS_LIMITS.entries} files and folders` });
        return;
      }
      const st = lstatSync(at);
      if (st.isSymbolicLink()) {
        if (checkLink(root, at, shown, issues)) skipped.push(`${path}: a symbolic link`);
      } else if (st.isDirectory()) {
        if (depth >= FLEET_SKILLS_LIMITS.depth) issues.push({ path: join(shown, path), message: `is nested deeper than ${FLEET_SKILLS_LIMITS.depth} folders` });
        else walk(at, path, depth + 1);
      } else if (st.isFile()) {
        if (st.size > FLEET_SKILLS_LIMITS.fileBytes) {
          issues.push({ path: join(shown, path), message: `is larger than ${FLEET_SKILLS_LIMITS.fileBytes >> 20} MB, the most a fleet skill's file may be` });
          continue;
        }
        total += st.size;
        files.push({ path: path.slice(1), executable: (st.mode & 0o100) !== 0, data: readFileSync(at) });
      } else {
        skipped.push(`${path}: not a regular file`);
      }
    }
  };
  for (const folder of folders) {
    const problem = unsafeNameProblem(folder);
    if (problem) issues.push({ path: shown, message: `${problem}: rename that skill's folder, a fleet skill's files must have plain names` });
    else walk(join(root, folder), `/${folder}`, 0);
  }
  if (total > FLEET_SKILLS_LIMITS.totalBytes)
    issues.push({ path: shown, message: `the skills one agent gets hold more than ${FLEET_SKILLS_LIMITS.totalBytes >> 20} MB` });
  const ok = issues.length === before && files.length > 0;
  return { bundle: ok ? encodeFleetSkillsBundle(files) : undefined, skills: folders, skipped };
}

/**
 * For a link at `at`: true when it stays inside the skills folder (then it is left out, as
 * local mode's copy leaves it out); a link that leads out of it, or nowhere, is an issue.
 */
function checkLink(root: string, at: string, shown: string, issues: ConfigIssue[]): boolean {
  if (!lstatSync(at).isSymbolicLink()) return true;
  let target: string;
  try {
    target = realpathSync(at);
  } catch {
    issues.push({ path: join(shown, relative(root, at)), message: 'is a symbolic link that leads nowhere: remove it' });
    return false;
  }
  if (target === root || target.startsWith(root + sep)) return true;
  issues.push({
    path: join(shown, relative(root, at)),
    message: `is a symbolic link out of the skills folder (to ${target}): a deployment ships only what is inside it; copy the file in instead`,
  });
  return false;
}

function dedupe(issues: ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const key = `${i.path}\n${i.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
