// The users' reactions per chat (#31) in the origins table: one counter item per chat and window
// (`reaction-rate:<chat>:<window start>`), raised by a conditional update only while below the
// limit, so concurrent webhook invocations never count past it. The item expires with its window.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReactionRates } from '../../ports.ts';

export class DynamoReactionRates implements ReactionRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(chat: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `reaction-rate:${chat}:${windowStart}` },
          UpdateExpression: 'ADD #count :one SET expiresAt = :ttl',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': max, ':ttl': Math.floor((windowStart + windowMs) / 1000) },
        }),
      );
      return true;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return false;
      throw err;
    }
  }
}
