// A rate limit's counter in a DynamoDB table: one item per key and window, raised by a
// conditional update only while below the limit, so concurrent invocations never count past
// it. The item expires with its window. The relay, reaction and operator-alert limits count with it.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionalUpdate } from './dynamo-conditional-update.ts';

/** Takes one slot of `pk`'s window: the window's count with it, or undefined once it holds `max`. */
export async function takeWindowSlot(
  db: DynamoDBDocumentClient,
  table: string,
  pk: string,
  windowStart: number,
  windowMs: number,
  max: number,
): Promise<number | undefined> {
  const raised = await conditionalUpdate(db, {
    TableName: table,
    Key: { pk },
    UpdateExpression: 'ADD #count :one SET expiresAt = :ttl',
    ConditionExpression: 'attribute_not_exists(#count) OR #count < :max',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':one': 1, ':max': max, ':ttl': Math.floor((windowStart + windowMs) / 1000) },
    ReturnValues: 'UPDATED_NEW',
  });
  return raised ? Number(raised.Attributes?.count) : undefined;
}
