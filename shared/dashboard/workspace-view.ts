// The agent page's workspace figures, from where each mode knows them: on AWS the last push
// or pull's record (the dashboard's function does not mount EFS, and no runtime reports the
// workspace's size), locally the workspace measured now plus that record.
import type { WorkspaceSyncLog } from '../workspace/sync-log.ts';
import type { WorkspaceView } from './view.ts';

export function workspaceFromSyncLog(log: WorkspaceSyncLog): (agentId: string) => Promise<WorkspaceView> {
  return async (agentId) => {
    const last = await log.last(agentId);
    return last ? { size: { files: last.workspaceFiles, bytes: last.workspaceBytes, asOf: 'last-sync', complete: true }, lastSync: last } : {};
  };
}

/** Locally: `measure` is the workspace now (undefined when it does not exist yet). */
export function measuredWorkspace(
  measure: (agentId: string) => { files: number; bytes: number; complete: boolean } | undefined,
  log: WorkspaceSyncLog,
): (agentId: string) => Promise<WorkspaceView> {
  return async (agentId) => {
    const size = measure(agentId);
    return { size: size && { ...size, asOf: 'now' }, lastSync: await log.last(agentId) };
  };
}
