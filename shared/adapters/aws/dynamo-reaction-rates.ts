// The users' reactions per chat (#31) in the origins table: one counter item per chat and window
// (`reaction-rate:<chat>:<window start>`), counted by takeWindowSlot.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ReactionRates } from '../../ports.ts';
import { takeWindowSlot } from './dynamo-window-counter.ts';

export class DynamoReactionRates implements ReactionRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(chat: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    const count = await takeWindowSlot(this.db, this.table, `reaction-rate:${chat}:${windowStart}`, windowStart, windowMs, max);
    return count !== undefined;
  }
}
