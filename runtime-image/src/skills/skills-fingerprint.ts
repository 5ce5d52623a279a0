// What says whether an agent's skills changed since they were last discovered: each source's
// listing and, per skill folder, its SKILL.md's identity and change time. A SKILL.md edited in
// place changes its ctime (which no write can leave as it was), a skill added or removed changes
// a listing; anything else (a script beside it) is read by the model when it uses the skill.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SkillSource } from './discover.ts';

export function skillsFingerprint(sources: readonly SkillSource[]): string {
  const parts: string[] = [];
  for (const source of sources) {
    const dir = join(source.root, source.dir);
    let names: string[];
    try {
      names = readdirSync(dir, { withFileTypes: true })
        .filter((e) => !e.name.startsWith('.'))
        .map((e) => `${e.isDirectory() ? 'd' : 'o'}:${e.name}`)
        .sort();
    } catch (err) {
      parts.push(`${source.dir}!${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      continue;
    }
    parts.push(`${source.dir}/`);
    for (const name of names) {
      if (!name.startsWith('d:')) {
        parts.push(name);
        continue;
      }
      try {
        // lstat: a SKILL.md replaced by a link is a change too (discovery refuses links).
        const st = lstatSync(join(dir, name.slice(2), 'SKILL.md'), { bigint: true });
        parts.push(`${name}=${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.mode}`);
      } catch (err) {
        parts.push(`${name}!${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      }
    }
  }
  return parts.join('\n');
}
