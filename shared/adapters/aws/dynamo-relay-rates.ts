// The per-pair agent-to-agent rate limit in the origins table: one counter item per ordered
// pair and window (`relay-rate:<from>><to>:<window start>`), counted by takeWindowSlot.
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RelayRates } from '../../ports.ts';
import { takeWindowSlot } from './dynamo-window-counter.ts';

/** How a pair's counter keys begin and what they hold after the receiver (`clawfleet agents remove --aws` finds an agent's by them); ids hold neither ">" nor ":". */
export const relayRateKeyFrom = (fromAgentId: string) => `relay-rate:${fromAgentId}>`;
export const relayRateKeyTo = (toAgentId: string) => `>${toAgentId}:`;
const relayRateKey = (fromAgentId: string, toAgentId: string, windowStart: number) => `${relayRateKeyFrom(fromAgentId)}${toAgentId}:${windowStart}`;

export class DynamoRelayRates implements RelayRates {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async take(fromAgentId: string, toAgentId: string, windowStart: number, windowMs: number, max: number): Promise<boolean> {
    const count = await takeWindowSlot(this.db, this.table, relayRateKey(fromAgentId, toAgentId, windowStart), windowStart, windowMs, max);
    return count !== undefined;
  }
}
