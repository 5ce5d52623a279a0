// What applying a manifest to a destination would do, decided before a byte is written:
// each file is new (written), already there with the same content (left alone), there with
// other content (replaced only when forced), or in the way of something that can never be
// written (a folder where the file goes, a path under a symlink or under a file). Any
// conflict stops the whole transfer, so a destination is never left half-applied.
import type { ManifestFile } from './manifest.ts';

export type TargetState =
  | { kind: 'absent' }
  | { kind: 'file'; size: number; sha256: string }
  /** Something that is not a regular file at the path; `blocks` when even --force cannot replace it. */
  | { kind: 'other'; what: string; blocks: boolean };

export interface WritePlan {
  /** New files. */
  create: ManifestFile[];
  /** Files whose content differs from what is there; replaced (only ever with force). */
  replace: ManifestFile[];
  /** Already there, byte for byte: nothing to do (a resumed transfer skips these). */
  same: ManifestFile[];
  conflicts: { path: string; reason: string }[];
}

export function planWrites(files: readonly ManifestFile[], targets: ReadonlyMap<string, TargetState>, force: boolean): WritePlan {
  const plan: WritePlan = { create: [], replace: [], same: [], conflicts: [] };
  for (const f of files) {
    const t = targets.get(f.path) ?? { kind: 'absent' };
    if (t.kind === 'absent') plan.create.push(f);
    else if (t.kind === 'file') {
      if (t.sha256 === f.sha256 && t.size === f.size) plan.same.push(f);
      else if (force) plan.replace.push(f);
      else plan.conflicts.push({ path: f.path, reason: 'exists with other content (--force replaces it)' });
    } else if (t.blocks || !force) plan.conflicts.push({ path: f.path, reason: `${t.what}${t.blocks ? '' : ' (--force replaces it)'}` });
    else plan.replace.push(f);
  }
  return plan;
}

/** The conflicts as lines for an error, the first `max` of them. */
export function conflictLines(conflicts: WritePlan['conflicts'], max = 20): string {
  const lines = conflicts.slice(0, max).map((c) => `  ${c.path}: ${c.reason}`);
  if (conflicts.length > max) lines.push(`  … and ${conflicts.length - max} more`);
  return lines.join('\n');
}
