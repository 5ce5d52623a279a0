// AgentMetrics in the registry table: one item per agent and 15-minute bucket
// (`metrics:<agent>:<bucket start>`) with counters, the deepest queue seen, the inbound ids
// already counted (so a redelivered status envelope counts once) and the bucket's first
// turns. Items expire through the table's TTL; reads drop expired ones, as DynamoDB reaps
// lazily. Bucket keys are deterministic, so a day is one BatchGet of 96 keys per agent.
import { BatchGetCommand, type BatchGetCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BUCKET_MS, bucketStart, METRICS_RETENTION_MS, TURNS_PER_BUCKET } from '../../metrics/buckets.ts';
import type { ActivityBucket, AgentMetrics, TurnEvent } from '../../ports.ts';
import { conditionalUpdate } from './dynamo-conditional-update.ts';

/** The prefix of every metrics item's key of one agent (`clawfleet agents remove --aws` deletes them by it). */
export const agentMetricsKeyPrefix = (agentId: string) => `metrics:${agentId}:`;
const key = (agentId: string, start: number) => ({ pk: `${agentMetricsKeyPrefix(agentId)}${start}` });
const ttlSeconds = (start: number) => Math.floor((start + BUCKET_MS + METRICS_RETENTION_MS) / 1000);
const BATCH_GET_MAX = 100;

export class DynamoAgentMetrics implements AgentMetrics {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
  ) {}

  async recordTurn(event: TurnEvent): Promise<void> {
    const start = bucketStart(event.at);
    const id = `${event.inboundId}#${event.outcome}`;
    const counted = await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(event.agentId, start),
      UpdateExpression: 'ADD #turns :one, #errors :err, #seen :ids SET #expires = :ttl, #agent = :agent, #start = :start',
      ConditionExpression: 'attribute_not_exists(#seen) OR NOT contains(#seen, :id)',
      ExpressionAttributeNames: {
        '#turns': 'turns',
        '#errors': 'errors',
        '#seen': 'seen',
        '#expires': 'expiresAt',
        '#agent': 'agentId',
        '#start': 'bucketStart',
      },
      ExpressionAttributeValues: {
        ':one': 1,
        ':err': event.outcome === 'failed' ? 1 : 0,
        ':ids': new Set([id]),
        ':id': id,
        ':ttl': ttlSeconds(start),
        ':agent': event.agentId,
        ':start': start,
      },
    });
    if (!counted) return; // refused: counted already
    const { agentId: _a, ...turn } = event;
    // Refused: a busy bucket keeps its first turns only.
    await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(event.agentId, start),
      UpdateExpression: 'SET #recent = list_append(if_not_exists(#recent, :empty), :turn)',
      ConditionExpression: 'attribute_not_exists(#recent) OR size(#recent) < :cap',
      ExpressionAttributeNames: { '#recent': 'recent' },
      ExpressionAttributeValues: { ':empty': [], ':turn': [turn], ':cap': TURNS_PER_BUCKET },
    });
  }

  async recordQueueDepth(agentId: string, at: number, depth: number): Promise<void> {
    const start = bucketStart(at);
    // Refused: a deeper queue was seen already.
    await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(agentId, start),
      UpdateExpression: 'SET #depth = :d, #expires = :ttl, #agent = :agent, #start = :start',
      ConditionExpression: 'attribute_not_exists(#depth) OR #depth < :d',
      ExpressionAttributeNames: { '#depth': 'maxDepth', '#expires': 'expiresAt', '#agent': 'agentId', '#start': 'bucketStart' },
      ExpressionAttributeValues: { ':d': depth, ':ttl': ttlSeconds(start), ':agent': agentId, ':start': start },
    });
  }

  async activity(agentId: string, from: number, to: number): Promise<ActivityBucket[]> {
    const items = await this.buckets(agentId, from, to, ['bucketStart', 'turns', 'errors', 'maxDepth', 'expiresAt']);
    return items
      .map((i) => ({
        start: Number(i.bucketStart),
        turns: Number(i.turns ?? 0),
        errors: Number(i.errors ?? 0),
        maxQueueDepth: i.maxDepth === undefined ? undefined : Number(i.maxDepth),
      }))
      .sort((a, b) => a.start - b.start);
  }

  async recentTurns(agentId: string, from: number, limit: number): Promise<TurnEvent[]> {
    const items = await this.buckets(agentId, from, this.now() + BUCKET_MS, ['recent', 'expiresAt']);
    return items
      .flatMap((i) => (Array.isArray(i.recent) ? (i.recent as Omit<TurnEvent, 'agentId'>[]) : []))
      .map((t) => ({ ...t, agentId }))
      .filter((t) => t.at >= from)
      .sort((a, b) => b.at - a.at)
      .slice(0, limit);
  }

  private async buckets(agentId: string, from: number, to: number, fields: string[]): Promise<Record<string, unknown>[]> {
    const keys: { pk: string }[] = [];
    for (let start = bucketStart(from); start < to; start += BUCKET_MS) keys.push(key(agentId, start));
    const names = Object.fromEntries(fields.map((f, i) => [`#f${i}`, f]));
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < keys.length; i += BATCH_GET_MAX) {
      let request:
        | Record<string, { Keys: Record<string, unknown>[]; ProjectionExpression: string; ExpressionAttributeNames: Record<string, string> }>
        | undefined = {
        [this.table]: { Keys: keys.slice(i, i + BATCH_GET_MAX), ProjectionExpression: Object.keys(names).join(', '), ExpressionAttributeNames: names },
      };
      // BatchGet may hand back keys it did not get to; ask again for those (a few rounds at most).
      for (let round = 0; request && round < 5; round++) {
        const res: BatchGetCommandOutput = await this.db.send(new BatchGetCommand({ RequestItems: request }));
        out.push(...(res.Responses?.[this.table] ?? []));
        const left: { Keys?: Record<string, unknown>[] } | undefined = res.UnprocessedKeys?.[this.table];
        request = left?.Keys?.length ? { [this.table]: { ...request[this.table]!, Keys: left.Keys } } : undefined;
      }
    }
    const nowSeconds = Math.floor(this.now() / 1000);
    return out.filter((i) => typeof i.expiresAt !== 'number' || i.expiresAt > nowSeconds);
  }
}
