// The workspace sync log in memory, for unit tests.
import { WorkspaceSyncSchema, type WorkspaceSync, type WorkspaceSyncLog } from '../../workspace/sync-log.ts';

export class InMemoryWorkspaceSyncLog implements WorkspaceSyncLog {
  readonly syncs = new Map<string, WorkspaceSync>();

  async record(agentId: string, sync: WorkspaceSync): Promise<void> {
    this.syncs.set(agentId, WorkspaceSyncSchema.parse(sync));
  }

  async last(agentId: string): Promise<WorkspaceSync | undefined> {
    return this.syncs.get(agentId);
  }
}
