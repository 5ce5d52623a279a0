// What the control plane recorded of one agent in DynamoDB, for `clawfleet agents remove|prune
// --aws`: its registry item and metrics buckets (`<fleet>-registry`), its sessions
// (`<fleet>-sessions`), the origins of its inbound messages and the agent-to-agent rate
// counters of its pairs (`<fleet>-origins`). Found by scans (the tables are keyed by other
// things), by the keys their owners export; deleted in batches of 25.
import { BatchWriteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableNames } from '../../config/names.ts';
import type { RemovalRecords } from '../../deploy/agent-removal-ports.ts';
import { AGENT_KEY_PREFIX, agentRegistryKey, markAgentAsleep } from './dynamo-agent-registry.ts';
import { agentMetricsKeyPrefix } from './dynamo-agent-metrics.ts';
import { relayRateKeyFrom, relayRateKeyTo } from './dynamo-relay-rates.ts';

/** A call on one table failed: which table, what was asked, and the SDK's error as its cause (none when throttling outlasted the retries). */
export class AgentRecordsCallFailed extends Error {
  override name = 'AgentRecordsCallFailed';
  constructor(
    readonly table: string,
    readonly action: 'scan' | 'delete' | 'throttled',
    cause?: unknown,
  ) {
    super(
      action === 'throttled'
        ? `${table} kept refusing some deletes (throttled)`
        : action === 'scan'
          ? `cannot scan ${table}`
          : `cannot delete records from ${table}`,
      { cause },
    );
  }
}

const BATCH_WRITE_MAX = 25;
const DELETE_ATTEMPTS = 5;
const isGone = (err: unknown) => (err as Error).name === 'ResourceNotFoundException';

export class DynamoAgentRecords implements RemovalRecords {
  private readonly tables: ReturnType<typeof tableNames>;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    fleet: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ) {
    this.tables = tableNames(fleet);
  }

  /** Ids with a registry item (`agent:<id>`); none when the table is gone. */
  async registeredAgents(): Promise<string[]> {
    const keys = await this.scan(this.tables.registry, 'begins_with(pk, :p)', { ':p': AGENT_KEY_PREFIX });
    return keys.map((pk) => pk.slice(AGENT_KEY_PREFIX.length));
  }

  /** Asleep in the registry, where it has an item; false when it has none, or the table is gone. */
  async markAsleep(agentId: string, now: number): Promise<boolean> {
    try {
      return await markAgentAsleep(this.db, this.tables.registry, agentId, now);
    } catch (err) {
      if (isGone(err)) return false;
      throw err;
    }
  }

  /** Deletes every record naming the agent (and none of an agent whose id it prefixes); how many of each. */
  async delete(agentId: string): Promise<{ registry: number; sessions: number; origins: number }> {
    const t = this.tables;
    const registry = await this.scan(t.registry, 'pk = :a OR begins_with(pk, :m)', { ':a': agentRegistryKey(agentId), ':m': agentMetricsKeyPrefix(agentId) });
    // A session's and an origin's agent are attributes of their items (DynamoSessionRegistry, DynamoInboundOrigins).
    const sessions = await this.scan(t.sessions, 'agentId = :id', { ':id': agentId });
    const origins = await this.scan(
      t.origins,
      '#o.agentId = :id OR begins_with(pk, :from) OR contains(pk, :to)',
      { ':id': agentId, ':from': relayRateKeyFrom(agentId), ':to': relayRateKeyTo(agentId) },
      { '#o': 'origin' },
    );
    await this.deleteKeys(t.registry, registry);
    await this.deleteKeys(t.sessions, sessions);
    await this.deleteKeys(t.origins, origins);
    return { registry: registry.length, sessions: sessions.length, origins: origins.length };
  }

  /** The keys of the items that match; none when the table is gone. */
  private async scan(table: string, filter: string, values: Record<string, unknown>, names?: Record<string, string>): Promise<string[]> {
    const keys: string[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      let page;
      try {
        page = await this.db.send(
          new ScanCommand({
            TableName: table,
            FilterExpression: filter,
            ExpressionAttributeValues: values,
            ExpressionAttributeNames: names,
            ProjectionExpression: 'pk',
            ExclusiveStartKey,
          }),
        );
      } catch (err) {
        if (isGone(err)) return [];
        throw new AgentRecordsCallFailed(table, 'scan', err);
      }
      keys.push(...(page.Items ?? []).map((i) => String(i.pk)));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return keys;
  }

  /** In batches; what a batch leaves unprocessed (throttling) is asked again, backing off, a few times. */
  private async deleteKeys(table: string, keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += BATCH_WRITE_MAX) {
      let requests: Record<string, { DeleteRequest: { Key: Record<string, unknown> } }[]> | undefined = {
        [table]: keys.slice(i, i + BATCH_WRITE_MAX).map((pk) => ({ DeleteRequest: { Key: { pk } } })),
      };
      for (let attempt = 0; requests && Object.keys(requests).length; attempt++) {
        if (attempt === DELETE_ATTEMPTS) throw new AgentRecordsCallFailed(table, 'throttled');
        try {
          const out = await this.db.send(new BatchWriteCommand({ RequestItems: requests }));
          requests = out.UnprocessedItems as typeof requests;
        } catch (err) {
          throw new AgentRecordsCallFailed(table, 'delete', err);
        }
        if (requests && Object.keys(requests).length) await this.sleep(200 * 2 ** attempt);
      }
    }
  }
}
