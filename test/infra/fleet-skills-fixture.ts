// A fleet with a skills/ folder beside its config, and allow lists that give each agent of the
// example a different set (one none): for the synth tests and the isolation matrix.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { EXAMPLE_CONFIG } from './synth-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

const skillMd = (front: string) => `---\n${front}\n---\n\nDo the thing.\n`;

/** A config folder with skills/: weather (with a script), notes (named in its front matter), and secret-tool. */
/** The config folder (its clawfleet.json is not written: synth takes the config as an object). */
export function fleetWithSkills(): string {
  const dir = tempDir('cf-fleet-skills-infra-');
  const skill = (folder: string, front: string, extra: Record<string, string> = {}) => {
    mkdirSync(join(dir, 'skills', folder, 'scripts'), { recursive: true });
    writeFileSync(join(dir, 'skills', folder, 'SKILL.md'), skillMd(front));
    for (const [path, text] of Object.entries(extra)) writeFileSync(join(dir, 'skills', folder, path), text, { mode: 0o755 });
  };
  skill('weather', 'name: weather\ndescription: Weather', { 'scripts/get.sh': '#!/bin/sh\necho sunny\n' });
  skill('note-taking', 'name: notes\ndescription: Notes');
  skill('secret-tool', 'name: secret-tool\ndescription: Only for jerry');
  return dir;
}

/** jerry two skills, fran one (by its front-matter name), grif none, ray every one. */
export const ALLOW: Record<string, string[] | undefined> = { jerry: ['secret-tool', 'weather'], fran: ['notes'], grif: [], ray: undefined };

export function configWithAllowLists(): FleetConfigInput {
  const config = structuredClone(EXAMPLE_CONFIG);
  for (const a of config.agents.list) if (ALLOW[a.id]) a.skills = ALLOW[a.id];
  return config;
}
