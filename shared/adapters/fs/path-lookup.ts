// Finding a program the way a shell does: the first executable regular file of that name in
// the directories of a PATH. The exec allowlist resolves programs on the sandbox's PATH with
// it, and the runtime finds bubblewrap on its own.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Whether `file` is a regular file this process may execute. */
export function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The program `name` on `path` (a PATH value), or undefined where no directory holds it. */
export function findOnPath(name: string, path: string): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const file = join(dir, name);
    if (isExecutableFile(file)) return file;
  }
  return undefined;
}
