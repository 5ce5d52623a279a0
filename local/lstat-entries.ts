// The entries of a directory, each with what lstat saw of it: the first step of the walks that
// hand a root fleet's workspaces to the box's user (box-owner.ts) and tighten the state
// directory's modes (state-modes.ts). lstat never follows a symlink; an entry gone between
// the listing and the lstat is left out.
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** Each entry below `dir` (its name, its path through `dir`, its lstat), skipping those gone meanwhile. */
export function* lstatEntries(dir: string): Generator<{ name: string; path: string; seen: Stats }> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let seen: Stats;
    try {
      seen = lstatSync(path);
    } catch {
      continue; // gone meanwhile
    }
    yield { name, path, seen };
  }
}
