// The per-pair agent-to-agent rate limit in the origins table: one counter item per ordered
// pair and window (`relay-rate:<from>><to>:<window start>`), counted by takeWindowSlot.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RelayRates } from '../../ports.ts';
import { takeWindowSlot } from './dynamo-window-counter.ts';

export class DynamoRelayRates implements RelayRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(fromAgentId: string, toAgentId: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    const count = await takeWindowSlot(this.db, this.table, `relay-rate:${fromAgentId}>${toAgentId}:${windowStart}`, windowStart, windowMs, max);
    return count !== undefined;
  }
}
