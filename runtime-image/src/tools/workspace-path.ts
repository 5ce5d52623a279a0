// Paths a tool may touch: inside the agent's workspace, after following symlinks, so
// neither "../" nor a link planted in the workspace reaches another agent's files.
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

class WorkspacePathError extends Error {
  override name = 'WorkspacePathError';
}

export function insideWorkspace(workspace: string, path: string): string {
  const root = realpathSync(workspace);
  const wanted = resolve(root, path);
  // Follow links on the longest part that exists; the rest is created by the tool.
  let existing = wanted;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const real = resolve(realpathSync(existing), relative(existing, wanted));
  const rel = relative(root, real);
  if (rel === '') return real;
  if (rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel)) {
    throw new WorkspacePathError(`"${path}" is outside the workspace`);
  }
  return real;
}
