// The fleet's skills (a skills/ folder beside clawfleet.json, operator content) copied into
// the agent's workspace as fleet-skills/ at each start: the model reads them with its file
// tools and runs their scripts with exec, both of which see only the workspace. The copy is
// replaced whole, so an update reaches every agent at its next start and an agent's edits to
// it do not outlive a restart (its own skills/ is where an agent keeps skills of its own).
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { decodeFleetSkillsBundle, FLEET_SKILLS_LIMITS } from '../../../shared/config/fleet-skills-bundle.ts';

/** The fleet skills' folder in the workspace. */
export const FLEET_SKILLS_DIR = 'fleet-skills';

const LIMITS = FLEET_SKILLS_LIMITS;

export interface FleetSkillsCopy {
  files: number;
  /** What was not copied, and why (a link, a special file, a limit). */
  skipped: string[];
}

/**
 * Replaces <workspace>/fleet-skills with a copy of `from` (operator content, read by path).
 * Only folders and regular files are copied (links and special files are named in `skipped`);
 * nothing is written through anything already in the workspace: the old copy is removed
 * first (a link is removed, never its target), and every folder and file is made beneath the
 * workspace without following a link, each file created exclusively.
 */
export function copyFleetSkills(from: string, workspace: string): FleetSkillsCopy {
  const ws = new WorkspaceDir(workspace);
  ws.remove(FLEET_SKILLS_DIR, { recursive: true });
  ws.mkdirp(FLEET_SKILLS_DIR);
  const skipped: string[] = [];
  let files = 0;
  let entries = 0;
  let bytes = 0;
  const copy = (src: string, rel: string, depth: number) => {
    for (const name of readdirSync(src).sort()) {
      const shown = rel ? `${rel}/${name}` : name;
      if (++entries > LIMITS.entries) {
        skipped.push(`${shown}: more than ${LIMITS.entries} entries`);
        return;
      }
      const st = lstatSync(join(src, name));
      if (st.isDirectory()) {
        if (depth >= LIMITS.depth) {
          skipped.push(`${shown}: nested deeper than ${LIMITS.depth} folders`);
          continue;
        }
        ws.mkdirp(`${FLEET_SKILLS_DIR}/${shown}`);
        copy(join(src, name), shown, depth + 1);
      } else if (st.isFile()) {
        if (st.size > LIMITS.fileBytes || bytes + st.size > LIMITS.totalBytes) {
          skipped.push(`${shown}: over the size limit (${LIMITS.fileBytes >> 20} MB a file, ${LIMITS.totalBytes >> 20} MB in all)`);
          continue;
        }
        bytes += st.size;
        // The file's mode bits come along (a script stays executable), without set-id bits.
        ws.writeNew(`${FLEET_SKILLS_DIR}/${shown}`, readFileSync(join(src, name)), { mode: st.mode & 0o755 });
        files++;
      } else {
        skipped.push(`${shown}: ${st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}`);
      }
    }
  };
  copy(from, '', 0);
  return { files, skipped };
}

/**
 * AWS: the bundle of fleet skills this agent was given (shared/config/fleet-skills-bundle.ts)
 * unpacked into `into`, a folder of the runtime's own state that is replaced whole, from which
 * copyFleetSkills then copies them into the workspace as local mode copies the fleet's folder.
 * Every path is checked by the decoder; each file and folder is created exclusively.
 */
export function unpackFleetSkills(bytes: Uint8Array, into: string): { files: number } {
  const files = decodeFleetSkillsBundle(bytes);
  rmSync(into, { recursive: true, force: true });
  mkdirSync(into, { recursive: true, mode: 0o755 });
  for (const f of files) {
    mkdirSync(join(into, dirname(f.path)), { recursive: true, mode: 0o755 });
    writeFileSync(join(into, f.path), f.data, { flag: 'wx', mode: f.executable ? 0o755 : 0o644 });
  }
  return { files: files.length };
}
