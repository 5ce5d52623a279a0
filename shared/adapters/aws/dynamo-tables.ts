// DynamoDB adapters for the control plane's state. Every table is keyed by `pk` (string)
// and expires items through the `expiresAt` TTL attribute (epoch seconds). DynamoDB reaps
// expired items lazily, so reads also treat an expired item as absent.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ClaimResult, DeliveryLedger, InboundDedupe, RecordedSessionStats, SessionRecord, SessionRegistry } from '../../ports.ts';
import { readRecordedStats } from '../session-stats-item.ts';
import { conditionalUpdate } from './dynamo-conditional-update.ts';

const epochSeconds = (ms: number) => Math.floor(ms / 1000);
const expired = (item: Record<string, unknown> | undefined, now: number) => typeof item?.expiresAt === 'number' && item.expiresAt <= epochSeconds(now);

export class DynamoInboundDedupe implements InboundDedupe {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number,
  ) {}

  async seen(key: string): Promise<boolean> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: key }, ConsistentRead: true }));
    return Item !== undefined && !expired(Item, this.now());
  }

  async remember(key: string, expiresAt: number): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.table, Item: { pk: key, expiresAt: epochSeconds(expiresAt) } }));
  }
}

export class DynamoSessionRegistry implements SessionRegistry {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(sessionKey: string): Promise<SessionRecord | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: sessionKey }, ConsistentRead: true }));
    if (!Item) return undefined;
    return sessionFromItem(Item);
  }

  async put(record: Omit<SessionRecord, 'stats'>): Promise<void> {
    // An update, not a put: the item's stats (recordStats') are kept; a put without
    // blockedAt (the user wrote again) removes it.
    const blocked = record.blockedAt !== undefined;
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: record.sessionKey },
        UpdateExpression: `SET agentId = :agent, target = :target, updatedAt = :updated${blocked ? ', blockedAt = :blocked' : ' REMOVE blockedAt'}`,
        // A session never changes hands: routing derives the key from the agent id, so a
        // write that would move it to another agent is a bug, refused here as well.
        ConditionExpression: 'attribute_not_exists(pk) OR agentId = :agent',
        ExpressionAttributeValues: {
          ':agent': record.agentId,
          ':target': record.target,
          ':updated': record.updatedAt,
          ...(blocked ? { ':blocked': record.blockedAt } : {}),
        },
      }),
    );
  }

  async recordStats(sessionKey: string, agentId: string, stats: RecordedSessionStats): Promise<boolean> {
    const written = await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: { pk: sessionKey },
      UpdateExpression: 'SET stats = :stats, statsAt = :at',
      // Never creates a session, never touches another agent's, never goes back in time.
      ConditionExpression: 'attribute_exists(pk) AND agentId = :agent AND (attribute_not_exists(statsAt) OR statsAt <= :at)',
      ExpressionAttributeValues: { ':stats': stats, ':at': stats.at, ':agent': agentId },
    });
    return written !== undefined;
  }

  /**
   * A filtered scan: the table is keyed by session key only. Fine for the dashboard of a
   * personal fleet (hundreds of sessions); a GSI on agentId would be the next step.
   */
  async list(agentId: string, limit: number): Promise<SessionRecord[]> {
    const out: SessionRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({ TableName: this.table, FilterExpression: 'agentId = :agent', ExpressionAttributeValues: { ':agent': agentId }, ExclusiveStartKey }),
      );
      for (const Item of page.Items ?? []) {
        out.push(sessionFromItem(Item));
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return out.sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit);
  }
}

function sessionFromItem(Item: Record<string, unknown>): SessionRecord {
  const stats = readRecordedStats(Item.stats);
  return {
    sessionKey: Item.pk as string,
    agentId: Item.agentId as string,
    target: Item.target as SessionRecord['target'],
    updatedAt: Item.updatedAt as number,
    ...(typeof Item.blockedAt === 'number' ? { blockedAt: Item.blockedAt } : {}),
    ...(stats ? { stats } : {}),
  };
}

/** How long a delivered claim is remembered; redeliveries come within minutes. */
const DELIVERED_TTL_MS = 7 * 24 * 3600 * 1000;

export class DynamoDeliveryLedger implements DeliveryLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async claim(key: string, now: number, leaseMs: number): Promise<ClaimResult> {
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: key, state: 'sending', leaseUntil: now + leaseMs, expiresAt: epochSeconds(now + DELIVERED_TTL_MS) },
          ConditionExpression: 'attribute_not_exists(pk) OR (#state = :sending AND leaseUntil < :now)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':sending': 'sending', ':now': now },
        }),
      );
      return 'claimed';
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: key }, ConsistentRead: true }));
      return Item?.state === 'delivered' ? 'delivered' : 'in-flight';
    }
  }

  async complete(key: string, now: number): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: key },
        UpdateExpression: 'SET #state = :delivered, deliveredAt = :now',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':delivered': 'delivered', ':now': now },
      }),
    );
  }

  async release(key: string): Promise<void> {
    await this.db
      .send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: key },
          ConditionExpression: '#state = :sending',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':sending': 'sending' },
        }),
      )
      .catch((err) => {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      });
  }
}
