// Which skills an agent is offered: every folder with a SKILL.md in its sources, in
// OpenClaw's precedence (the agent's workspace skills/ first, then the fleet's), a name
// found twice taken from the first source, then the agent's allow list and each skill's
// requirements (programs on PATH, the OS). What is left out says why, for the log and
// for `clawfleet skills list`. Files are read only through the safe workspace readers.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isMissing, WorkspaceDir } from './beneath.ts';
import type { SkillRequirements } from '../../skills/skill-file.ts';

/** A folder of skill folders: `dir` relative to `root`, which no read leaves. */
export interface SkillSource {
  kind: 'workspace' | 'fleet';
  root: string;
  dir: string;
}

export interface OfferedSkill {
  name: string;
  description: string;
  source: SkillSource['kind'];
  /** The SKILL.md, relative to the source's root (the workspace, for a runtime). */
  path: string;
}

export interface LeftOutSkill {
  name: string;
  source: SkillSource['kind'];
  path: string;
  reason: string;
}

/** What requirements are checked against: the programs on PATH, the platform, and the environment exec gives commands. */
export interface SkillHost {
  hasBinary(name: string): boolean;
  platform: string;
  /** Whether exec's commands get this variable (tools.exec.env). */
  hasEnv(name: string): boolean;
}

export interface SkillDiscovery {
  offered: OfferedSkill[];
  leftOut: LeftOutSkill[];
}

/** Skills beyond this many in one source are left out (a prompt is not a directory listing). */
export const MAX_SKILLS_PER_SOURCE = 100;
const MAX_SKILL_FILE_BYTES = 256 * 1024;
/** Of each description, what the system prompt shows. */
export const MAX_DESCRIPTION_CHARS = 400;

/** A host looking at a PATH (the runtime's own, which its sandbox shares) on this platform. */
export function pathHost(path = process.env.PATH ?? '', platform: string = process.platform, execEnv: readonly string[] = []): SkillHost {
  const dirs = path.split(delimiter).filter((d) => d.startsWith('/'));
  const found = new Map<string, boolean>();
  return {
    platform,
    hasEnv: (name) => execEnv.includes(name),
    hasBinary(name) {
      // A bare program name only: "../x" or "/bin/sh" is not something PATH answers.
      if (!/^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/.test(name)) return false;
      let yes = found.get(name);
      if (yes === undefined) {
        yes = dirs.some((d) => {
          try {
            accessSync(join(d, name), constants.X_OK);
            return true;
          } catch {
            return false;
          }
        });
        found.set(name, yes);
      }
      return yes;
    },
  };
}

/** Why a skill's requirements are not met on `host`; undefined when they are. */
export function unmetRequirement(r: SkillRequirements, host: SkillHost): string | undefined {
  if (r.os && r.os.length > 0 && !r.os.includes(host.platform)) return `it is for ${r.os.join(' or ')}, and this runtime is ${host.platform}`;
  const missing = (r.bins ?? []).filter((b) => !host.hasBinary(b));
  if (missing.length > 0) return `${missing.map((b) => `"${b}"`).join(', ')} ${missing.length === 1 ? 'is' : 'are'} not on PATH`;
  if (r.anyBins && r.anyBins.length > 0 && !r.anyBins.some((b) => host.hasBinary(b))) return `none of ${r.anyBins.map((b) => `"${b}"`).join(', ')} is on PATH`;
  // Skill scripts run in the sandboxed exec, whose environment carries only the secret values
  // tools.exec.env names; a skill that needs another would be offered and then fail.
  const unset = (r.env ?? []).filter((v) => !host.hasEnv(v));
  if (unset.length > 0)
    return `it needs the environment value${unset.length === 1 ? '' : 's'} ${unset.join(', ')}, which exec does not give its commands (name ${unset.length === 1 ? 'it' : 'them'} in tools.exec.env, from this agent's secret)`;
  if (r.config && r.config.length > 0) return `it needs OpenClaw config (${r.config.join(', ')}), which clawfleet does not have`;
  return undefined;
}

function skillFolders(source: SkillSource): { folders: string[]; problem?: string } {
  let entries;
  try {
    entries = new WorkspaceDir(source.root).list(source.dir);
  } catch (err) {
    if (isMissing(err)) return { folders: [] };
    return { folders: [], problem: `${source.dir} cannot be listed (${(err as Error).message})` };
  }
  // Real folders only: a symlink planted in the workspace could point anywhere.
  const folders = entries
    .filter((e) => e.kind === 'folder' && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort();
  return { folders };
}

export async function discoverSkills(sources: SkillSource[], allow: readonly string[] | undefined, host: SkillHost): Promise<SkillDiscovery> {
  const offered: OfferedSkill[] = [];
  const leftOut: LeftOutSkill[] = [];
  const taken = new Map<string, SkillSource['kind']>();
  for (const source of sources) {
    const { folders, problem } = skillFolders(source);
    if (problem) leftOut.push({ name: '*', source: source.kind, path: source.dir, reason: problem });
    for (const [i, folder] of folders.entries()) {
      const path = `${source.dir}/${folder}/SKILL.md`;
      const out = (name: string, reason: string) => leftOut.push({ name, source: source.kind, path, reason });
      if (i >= MAX_SKILLS_PER_SOURCE) {
        out(folder, `${source.dir} holds more than ${MAX_SKILLS_PER_SOURCE} skills`);
        continue;
      }
      let text: string;
      try {
        const file = await new WorkspaceDir(source.root).readText(path, { maxBytes: MAX_SKILL_FILE_BYTES });
        if (file.truncated) {
          out(folder, `SKILL.md is larger than ${MAX_SKILL_FILE_BYTES / 1024} KB`);
          continue;
        }
        text = file.text;
      } catch (err) {
        out(folder, isMissing(err) ? 'the folder has no SKILL.md' : `SKILL.md was not read: ${(err as Error).message}`);
        continue;
      }
      let skill;
      try {
        // The YAML parser loads with the first SKILL.md, not with every start.
        const { parseSkillFile } = await import('../../skills/skill-file.ts');
        skill = parseSkillFile(text);
      } catch (err) {
        out(folder, `SKILL.md ${(err as Error).message}`);
        continue;
      }
      const name = skill.name ?? folder;
      const first = taken.get(name);
      if (first) {
        out(name, `a ${first} skill of the same name comes first`);
        continue;
      }
      taken.set(name, source.kind);
      if (allow && !allow.includes(name)) {
        out(name, "not in the agent's skills allow list");
        continue;
      }
      const unmet = unmetRequirement(skill.requires, host);
      if (unmet) {
        out(name, unmet);
        continue;
      }
      const description = skill.description.length > MAX_DESCRIPTION_CHARS ? `${skill.description.slice(0, MAX_DESCRIPTION_CHARS - 1)}…` : skill.description;
      offered.push({ name, description, source: source.kind, path });
    }
  }
  return { offered, leftOut };
}
