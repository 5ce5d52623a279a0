// Inbound origins in the fleet's origins table: `origin:<inbound id>` holds the record, its
// relay count, its status reaction's state (#31) and its TTL. DynamoDB reaps expired items lazily, so a read also treats an
// expired one as absent; recording an origin again (a retried event) keeps its relay count.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { InboundOriginSchema } from '../../control/origins.ts';
import type { InboundOrigin, InboundOrigins, StatusFrom, StatusState } from '../../ports.ts';
import { conditionalUpdate } from './dynamo-conditional-update.ts';

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

  async advanceStatus(id: string, to: StatusState, from: readonly StatusFrom[]): Promise<boolean> {
    // "unset": no attribute yet.
    const named = from.filter((s) => s !== 'unset');
    const allowed = [
      ...(from.includes('unset') ? ['attribute_not_exists(statusReaction)'] : []),
      ...(named.length ? [`statusReaction IN (${named.map((_, i) => `:f${i}`).join(', ')})`] : []),
    ];
    if (allowed.length === 0) return false;
    const written = await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(id),
      UpdateExpression: 'SET statusReaction = :to',
      ConditionExpression: `attribute_exists(pk) AND expiresAtMs > :now AND (${allowed.join(' OR ')})`,
      ExpressionAttributeValues: { ':to': to, ':now': this.now(), ...Object.fromEntries(named.map((s, i) => [`:f${i}`, s])) },
    });
    return written !== undefined;
  }

  async takeRelay(id: string, max: number): Promise<boolean> {
    const written = await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(id),
      UpdateExpression: 'ADD relays :one',
      ConditionExpression: 'attribute_exists(pk) AND expiresAtMs > :now AND (attribute_not_exists(relays) OR relays < :max)',
      ExpressionAttributeValues: { ':one': 1, ':now': this.now(), ':max': max },
    });
    return written !== undefined;
  }
}
