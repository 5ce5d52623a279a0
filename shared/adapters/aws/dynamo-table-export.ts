// Every item of a DynamoDB table, page by page, as plain JavaScript values — what `clawfleet
// destroy` writes out of the registry and sessions tables before the stacks go. A consistent
// scan of a table nothing writes to any more (the agents are stopped, the webhooks gone).
import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export class DynamoTableExport {
  constructor(private readonly db: DynamoDBDocumentClient) {}

  /** Hands each item to `onItem`; the count, or 'absent' when there is no such table. */
  async scan(table: string, onItem: (item: Record<string, unknown>) => void): Promise<number | 'absent'> {
    let count = 0;
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    try {
      do {
        const page = await this.db.send(new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey }));
        for (const item of page.Items ?? []) {
          onItem(item);
          count++;
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
    } catch (err) {
      if ((err as Error).name === 'ResourceNotFoundException') return 'absent';
      throw err;
    }
    return count;
  }
}
