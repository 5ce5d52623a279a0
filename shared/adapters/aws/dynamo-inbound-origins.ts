// Inbound origins in the fleet's origins table: `origin:<inbound id>` holds the record, its
// relay count and its TTL. DynamoDB reaps expired items lazily, so a read also treats an
// expired one as absent; recording an origin again (a retried event) keeps its relay count.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { InboundOriginSchema } from '../../control/origins.ts';
import type { InboundOrigin, InboundOrigins } from '../../ports.ts';

const key = (id: string) => ({ pk: `origin:${id}` });

export class DynamoInboundOrigins implements InboundOrigins {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {}

  async get(id: string): Promise<InboundOrigin | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: key(id), ConsistentRead: true }));
    if (!Item || typeof Item.expiresAtMs !== 'number' || Item.expiresAtMs <= this.now()) return undefined;
    return InboundOriginSchema.parse(Item.origin);
  }

  async put(origin: InboundOrigin): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(origin.id),
        UpdateExpression: 'SET #origin = :origin, expiresAtMs = :ms, expiresAt = :ttl',
        ExpressionAttributeNames: { '#origin': 'origin' },
        // Through JSON, so no undefined field reaches the marshaller whatever its options.
        ExpressionAttributeValues: { ':origin': JSON.parse(JSON.stringify(origin)), ':ms': origin.expiresAt, ':ttl': Math.floor(origin.expiresAt / 1000) },
      }),
    );
  }

  async takeRelay(id: string, max: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: key(id),
          UpdateExpression: 'ADD relays :one',
          ConditionExpression: 'attribute_exists(pk) AND expiresAtMs > :now AND (attribute_not_exists(relays) OR relays < :max)',
          ExpressionAttributeValues: { ':one': 1, ':now': this.now(), ':max': max },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }
}
