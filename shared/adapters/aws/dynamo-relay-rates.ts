// The per-pair agent-to-agent rate limit in the origins table: one counter item per ordered
// pair and window (`relay-rate:<from>><to>:<window start>`), raised by a conditional update
// only while below the limit, so concurrent outbox invocations never count past it. The
// item expires with its window.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RelayRates } from '../../ports.ts';

export class DynamoRelayRates implements RelayRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(fromAgentId: string, toAgentId: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `relay-rate:${fromAgentId}>${toAgentId}:${windowStart}` },
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
