// A file a test puts into a running agent's workspace, made the agent's own: a root fleet's
// runtime runs in its box as BOX_UID (local/runtime-box.ts), and a file root writes there under
// the fleet's umask (0600, in a 0700 folder) is closed to it — as an operator's file written as
// root is, until the agent's next start gives the workspace to the box's user again
// (docs/runtime.md, "The local sandbox").
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { giveToBox } from '../../local/box-owner.ts';
import { BOX_GID, BOX_UID } from '../../local/runtime-box.ts';

/** Writes `content` at `relative` in `workspace` (folders made), then, as root, gives the workspace to the box's user. */
export function writeAgentFile(workspace: string, relative: string, content: string | Uint8Array): void {
  mkdirSync(dirname(join(workspace, relative)), { recursive: true });
  writeFileSync(join(workspace, relative), content);
  if (process.getuid?.() === 0) giveToBox(workspace, BOX_UID, BOX_GID);
}
