// Pairings in the registry table: `pairing:<account>:<peer>` holds the record and
// `pairing-code:<code>` points at it, so a code can be approved without a scan. The cap on
// pending pairings per account is a fixed set of slots, `pairing-slot:<account>:<n>`, each
// taken by one pending sender with a conditional put until it lapses or is approved: no
// scan, and concurrent webhook invocations can never seat more senders than there are slots.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, ScanCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { PairingRecord, PairingStore } from '../../ports.ts';

const recordKey = (accountId: string, peerId: string) => `pairing:telegram:${accountId}:${peerId}`;
const codeKey = (code: string) => `pairing-code:${code}`;
const slotKey = (accountId: string, slot: number) => `pairing-slot:telegram:${accountId}:${slot}`;
const ttl = (ms: number) => Math.floor(ms / 1000);

// The table's TTL attribute is `expiresAt` in epoch seconds (set only while pending);
// the record's own expiry is kept in milliseconds as `expiresAtMs`.
function toItem(record: PairingRecord): Record<string, unknown> {
  const { expiresAt, ...rest } = record;
  return { pk: recordKey(record.accountId, record.peerId), ...rest, expiresAtMs: expiresAt, expiresAt: ttl(expiresAt) };
}

function fromItem(item: Record<string, unknown>): PairingRecord {
  const { pk: _pk, expiresAt: _ttl, expiresAtMs, approvedAt: _a, slot: _s, ...rest } = item;
  return { ...(rest as Omit<PairingRecord, 'expiresAt'>), expiresAt: expiresAtMs as number };
}

export class DynamoPairingStore implements PairingStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(accountId: string, peerId: string): Promise<PairingRecord | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: recordKey(accountId, peerId) }, ConsistentRead: true }));
    return Item ? fromItem(Item) : undefined;
  }

  async createPending(record: PairingRecord, opts: { maxPerAccount?: number } = {}): Promise<PairingRecord | 'full'> {
    let slot: number | undefined;
    if (opts.maxPerAccount !== undefined) {
      slot = await this.takeSlot(record, opts.maxPerAccount);
      if (slot === undefined) return 'full';
    }
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          // A pending record lapses with DynamoDB TTL too; an approved one has none.
          Item: { ...toItem(record), ...(slot !== undefined ? { slot } : {}) },
          ConditionExpression: 'attribute_not_exists(pk) OR (#status = :pending AND expiresAtMs <= :now)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending', ':now': record.createdAt },
        }),
      );
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
      return (await this.get(record.accountId, record.peerId)) ?? record;
    }
    await this.db.send(
      new PutCommand({
        TableName: this.table,
        Item: { pk: codeKey(record.code), accountId: record.accountId, peerId: record.peerId, expiresAt: ttl(record.expiresAt) },
      }),
    );
    return record;
  }

  /** The first slot that is free, lapsed, or already this sender's; undefined if every one holds another live sender. */
  private async takeSlot(record: PairingRecord, slots: number): Promise<number | undefined> {
    for (let slot = 0; slot < slots; slot++) {
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk: slotKey(record.accountId, slot), peerId: record.peerId, expiresAtMs: record.expiresAt, expiresAt: ttl(record.expiresAt) },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAtMs <= :now OR peerId = :peer',
            ExpressionAttributeValues: { ':now': record.createdAt, ':peer': record.peerId },
          }),
        );
        return slot;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      }
    }
    return undefined;
  }

  async approve(code: string, now: number): Promise<PairingRecord | undefined> {
    const { Item: pointer } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: codeKey(code) }, ConsistentRead: true }));
    if (!pointer) return undefined;
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: recordKey(pointer.accountId as string, pointer.peerId as string) },
          UpdateExpression: 'SET #status = :approved, approvedAt = :now REMOVE expiresAt',
          ConditionExpression: '#status = :pending AND code = :code AND expiresAtMs > :now',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':approved': 'approved', ':pending': 'pending', ':code': code, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      );
      await this.db.send(new DeleteCommand({ TableName: this.table, Key: { pk: codeKey(code) } }));
      // An approved sender waits no more: their slot is free for the next one.
      if (typeof Attributes?.slot === 'number') await this.freeSlot(pointer.accountId as string, Attributes.slot, pointer.peerId as string);
      return Attributes ? fromItem(Attributes) : undefined;
    } catch (err) {
      if (err instanceof ConditionalCheckFailedException) return undefined;
      throw err;
    }
  }

  async listPending(now: number): Promise<PairingRecord[]> {
    return this.scanPairings('#status = :pending AND expiresAtMs > :now', { ':pending': 'pending', ':now': now }, false);
  }

  /** Every sender approved to talk to a bot (they do not lapse): what `clawfleet destroy` keeps. */
  async listApproved(): Promise<PairingRecord[]> {
    const approved = await this.scanPairings('#status = :approved', { ':approved': 'approved' }, true);
    return approved.sort((a, b) => `${a.accountId}:${a.peerId}`.localeCompare(`${b.accountId}:${b.peerId}`));
  }

  /** Every page of the pairing items (`pairing:…`) whose status passes the filter. */
  private async scanPairings(statusFilter: string, values: Record<string, unknown>, consistentRead: boolean): Promise<PairingRecord[]> {
    const out: PairingRecord[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new ScanCommand({
          TableName: this.table,
          FilterExpression: `begins_with(pk, :prefix) AND ${statusFilter}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':prefix': 'pairing:', ...values },
          ...(consistentRead ? { ConsistentRead: true } : {}),
          ExclusiveStartKey,
        }),
      );
      out.push(...(page.Items ?? []).map(fromItem));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return out;
  }

  private async freeSlot(accountId: string, slot: number, peerId: string): Promise<void> {
    await this.db
      .send(
        new DeleteCommand({
          TableName: this.table,
          Key: { pk: slotKey(accountId, slot) },
          ConditionExpression: 'peerId = :peer',
          ExpressionAttributeValues: { ':peer': peerId },
        }),
      )
      .catch((err) => {
        // Taken by another sender since (this one's had lapsed): theirs now, leave it.
        if (!(err instanceof ConditionalCheckFailedException)) throw err;
      });
  }
}
