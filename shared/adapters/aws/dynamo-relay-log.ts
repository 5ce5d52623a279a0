// Relayed agent messages in the registry table (`relay:<id>`), kept for a day: long
// enough for any answer, short enough that the table does not grow.
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RelayLog, RelayRecord } from '../../ports.ts';

const DAY_S = 24 * 3600;

export class DynamoRelayLog implements RelayLog {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(id: string): Promise<RelayRecord | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: `relay:${id}` }, ConsistentRead: true }));
    if (!Item || (typeof Item.expiresAt === 'number' && Item.expiresAt * 1000 <= Date.now())) return undefined;
    const { pk: _pk, expiresAt: _e, ...rest } = Item;
    return rest as RelayRecord;
  }

  async put(record: RelayRecord): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { pk: `relay:${record.id}`, ...record, expiresAt: Math.floor(record.at / 1000) + DAY_S } }));
  }
}
