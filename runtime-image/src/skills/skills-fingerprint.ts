// What says whether an agent's skills changed since they were last discovered: each source's
// listing and, per skill folder, its SKILL.md's identity and change time. A SKILL.md edited in
// place changes its ctime (which no write can leave as it was), a skill added or removed changes
// a listing; anything else (a script beside it) is read by the model when it uses the skill.
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import type { SkillSource } from '../../../shared/adapters/fs/skill-discovery.ts';

export function skillsFingerprint(sources: readonly SkillSource[]): string {
  const parts: string[] = [];
  for (const source of sources) {
    const ws = new WorkspaceDir(source.root);
    let names: string[];
    try {
      names = ws
        .list(source.dir)
        .filter((e) => !e.name.startsWith('.'))
        .map((e) => `${e.kind === 'folder' ? 'd' : 'o'}:${e.name}`)
        .sort();
    } catch (err) {
      parts.push(`${source.dir}!${(err as { errno?: string; code?: string }).errno ?? (err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
      continue;
    }
    parts.push(`${source.dir}/`);
    for (const name of names) {
      if (!name.startsWith('d:')) {
        parts.push(name);
        continue;
      }
      try {
        // Not following a link: a SKILL.md replaced by a link is a change too (discovery refuses links).
        const st = ws.stat(`${source.dir}/${name.slice(2)}/SKILL.md`);
        parts.push(st ? `${name}=${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.mode}` : `${name}!ENOENT`);
      } catch (err) {
        parts.push(`${name}!${(err as { errno?: string }).errno ?? 'unreadable'}`);
      }
    }
  }
  return parts.join('\n');
}
