// Spend (#31) in the fleet's spend table, keyed by `pk`:
// - `count:<agent>#<YYYY-MM>`: the control plane's count of a month: `spent`, one `dDD` per UTC
//   day, and `alerted`, the alarms told. Raised by λ outbox in a transaction with the claim of
//   the usage report it counts, `usage:<agent>#<envelope id>` (expiring), so a report delivered
//   twice counts once.
// - `<agent>#<YYYY-MM>`: the runtime's own ledger of that month (shared/budget/ledger.ts's state
//   and a version), which only that agent's runtime writes: its task role may touch no key but
//   those that start with its id and "#" (IAM dynamodb:LeadingKeys), never a count.
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { emptyTotals, type SpendTotals } from '../../budget/budget.ts';
import { emptyMonth, reserveIn, settleIn, type LedgerMonth, type ReserveRequest, type SettleRequest } from '../../budget/ledger.ts';
import { periodsAt } from '../../budget/periods.ts';
import type { SpendCounts, SpendLedger } from '../../ports.ts';
import { conditionalUpdate } from './dynamo-conditional-update.ts';

/** How long a counted report's id is remembered: longer than an outbox record is retried (its queue keeps it 14 days). */
const USAGE_ID_TTL_MS = 15 * 24 * 3600_000;
/** A month's ledger is kept this long after the month ends (nothing reads it then). */
const LEDGER_KEPT_MS = 35 * 24 * 3600_000;

const epochSeconds = (ms: number) => Math.floor(ms / 1000);

/** The key of an agent's ledger month: its id first, as the runtime's IAM condition requires. */
export const ledgerKey = (agentId: string, month: string) => `${agentId}#${month}`;
export const countKey = (agentId: string, month: string) => `count:${agentId}#${month}`;
export const usageKey = (agentId: string, usageId: string) => `usage:${agentId}#${usageId}`;

export class DynamoSpendCounts implements SpendCounts {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async add(agentId: string, usageId: string, micros: number, at: number) {
    const p = periodsAt(at);
    let counted = true;
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: this.table,
                Item: { pk: usageKey(agentId, usageId), at, expiresAt: epochSeconds(at + USAGE_ID_TTL_MS) },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Update: {
                TableName: this.table,
                Key: { pk: countKey(agentId, p.month) },
                UpdateExpression: 'ADD spent :m, #day :m',
                ExpressionAttributeNames: { '#day': `d${p.dayOfMonth}` },
                ExpressionAttributeValues: { ':m': micros },
              },
            },
          ],
        }),
      );
    } catch (err) {
      // The claim's condition failed: this report was counted before.
      if (!(err instanceof TransactionCanceledException && err.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed')) throw err;
      counted = false;
    }
    return { counted, totals: await this.totals(agentId, at) };
  }

  async totals(agentId: string, at: number): Promise<SpendTotals> {
    const p = periodsAt(at);
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: countKey(agentId, p.month) }, ConsistentRead: true }));
    const empty = emptyTotals(at);
    if (!Item) return empty;
    const alerted = Item.alerted instanceof Set ? [...(Item.alerted as Set<string>)].sort() : [];
    return { ...empty, dayMicros: Number(Item[`d${p.dayOfMonth}`] ?? 0), monthMicros: Number(Item.spent ?? 0), alerted };
  }

  async markAlerted(agentId: string, key: string, at: number) {
    const written = await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: { pk: countKey(agentId, periodsAt(at).month) },
      UpdateExpression: 'ADD alerted :keys',
      ConditionExpression: 'attribute_not_exists(alerted) OR NOT contains(alerted, :key)',
      ExpressionAttributeValues: { ':keys': new Set([key]), ':key': key },
    });
    return written !== undefined;
  }
}

/** How often one step retries after losing the race for the item to another writer. */
const MAX_CONTENDED_TRIES = 25;

export class DynamoSpendLedger implements SpendLedger {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /**
   * Reads the month (consistently), applies `step`, and writes the result only if nobody wrote
   * since the read (the version it read); otherwise reads again. A step that changes nothing
   * writes nothing.
   */
  private async apply<T>(agentId: string, month: string, at: number, step: (state: LedgerMonth) => { state: LedgerMonth; result: T }): Promise<T> {
    const pk = ledgerKey(agentId, month);
    for (let tries = 1; ; tries++) {
      const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk }, ConsistentRead: true }));
      const before = (Item?.state as LedgerMonth | undefined) ?? emptyMonth(month);
      const { state, result } = step(structuredClone(before));
      if (JSON.stringify(state) === JSON.stringify(before)) return result;
      const version = typeof Item?.ver === 'number' ? Item.ver : 0;
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk, ver: version + 1, state, expiresAt: epochSeconds(periodsAt(at).monthResetsAt + LEDGER_KEPT_MS) },
            ConditionExpression: Item ? 'ver = :ver' : 'attribute_not_exists(pk)',
            ...(Item ? { ExpressionAttributeValues: { ':ver': version } } : {}),
          }),
        );
        return result;
      } catch (err) {
        if (!(err instanceof ConditionalCheckFailedException) || tries >= MAX_CONTENDED_TRIES) throw err;
        // Another session wrote first: a short, jittered pause, then read what it wrote.
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 20 * Math.min(tries, 5)));
      }
    }
  }

  reserve(agentId: string, req: ReserveRequest) {
    return this.apply(agentId, periodsAt(req.at).month, req.at, (s) => {
      const { state, outcome } = reserveIn(s, req);
      return { state, result: outcome };
    });
  }

  settle(agentId: string, req: SettleRequest) {
    return this.apply(agentId, req.month, req.at, (s) => {
      const { state, settled } = settleIn(s, req);
      return { state, result: settled };
    });
  }

  async month(agentId: string, month: string) {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: ledgerKey(agentId, month) }, ConsistentRead: true }));
    return (Item?.state as LedgerMonth | undefined) ?? emptyMonth(month);
  }
}
