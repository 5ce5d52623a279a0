// The last push or pull of each agent's workspace in local mode: one small file per agent,
// <state>/workspace-syncs/<id>.json, outside the workspace (the agent's code cannot write
// it) and replaced whole (a temporary renamed into place). Read as a regular file only.
import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceSyncSchema, type WorkspaceSync, type WorkspaceSyncLog } from '../../workspace/sync-log.ts';

const AGENT_ID = /^[a-z][a-z0-9-]{0,23}$/;
const MAX_BYTES = 64 * 1024;

/** A small regular file's text; a link, FIFO or device in its place is refused without blocking. */
function readRecord(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`${path} is not a regular file`);
    const buf = Buffer.alloc(Math.min(st.size, MAX_BYTES));
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

export class FileWorkspaceSyncLog implements WorkspaceSyncLog {
  private readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'workspace-syncs');
  }

  private path(agentId: string): string {
    if (!AGENT_ID.test(agentId)) throw new Error(`"${agentId}" is not an agent id`);
    return join(this.dir, `${agentId}.json`);
  }

  async record(agentId: string, sync: WorkspaceSync): Promise<void> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = this.path(agentId);
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(WorkspaceSyncSchema.parse(sync))}\n`, { mode: 0o600 });
    renameSync(temp, path);
  }

  async last(agentId: string): Promise<WorkspaceSync | undefined> {
    try {
      const parsed = WorkspaceSyncSchema.safeParse(JSON.parse(readRecord(this.path(agentId))));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}
