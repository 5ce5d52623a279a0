// Operator alerts counted per key and window in the deliveries table (beside the delivery
// claims that deduplicate them: λ operator-alerts touches that table alone), by takeWindowSlot.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AlertRates } from '../../ports.ts';
import { takeWindowSlot } from './dynamo-window-counter.ts';

export class DynamoAlertRates implements AlertRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  take(key: string, windowStart: number, windowMs: number, max: number): Promise<number | undefined> {
    return takeWindowSlot(this.db, this.table, `alert-rate:${key}:${windowStart}`, windowStart, windowMs, max);
  }
}
