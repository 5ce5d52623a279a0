// The last push or pull of each agent's workspace in the registry table, item
// `workspace:<id>`: written by the operator's `clawfleet workspace`, read by the dashboard
// (which may already read the registry). An item that does not parse is read as none.
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { WorkspaceSyncSchema, type WorkspaceSync, type WorkspaceSyncLog } from '../../workspace/sync-log.ts';

const key = (agentId: string) => ({ pk: `workspace:${agentId}` });

export class DynamoWorkspaceSyncLog implements WorkspaceSyncLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async record(agentId: string, sync: WorkspaceSync): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { ...key(agentId), ...WorkspaceSyncSchema.parse(sync) } }));
  }

  async last(agentId: string): Promise<WorkspaceSync | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: key(agentId) }));
    const parsed = WorkspaceSyncSchema.safeParse(Item ?? {});
    return parsed.success ? parsed.data : undefined;
  }
}
