// Operator alerts counted per key and window in the deliveries table (beside the delivery
// claims that deduplicate them: λ operator-alerts touches that table alone), each window's
// item expiring with it.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AlertRates } from '../../ports.ts';

export class DynamoAlertRates implements AlertRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(key: string, windowStart: number, windowMs: number, max: number): Promise<number | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: `alert-rate:${key}:${windowStart}` },
          UpdateExpression: 'ADD #count :one SET expiresAt = :ttl',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':max': max, ':ttl': Math.floor((windowStart + windowMs) / 1000) },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.count);
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }
}
