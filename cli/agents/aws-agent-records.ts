// What the control plane recorded of an agent in DynamoDB, for `clawfleet agents remove|prune
// --aws`: its registry item and metrics buckets (`<fleet>-registry`), its sessions
// (`<fleet>-sessions`), the origins of its inbound messages and the agent-to-agent rate
// counters of its pairs (`<fleet>-origins`). Found by scans (the tables are keyed by other
// things), deleted in batches of 25.
import { AGENT_KEY_PREFIX, agentRegistryKey, markAgentAsleep } from '../../shared/adapters/aws/dynamo-agent-registry.ts';
import { agentMetricsKeyPrefix } from '../../shared/adapters/aws/dynamo-agent-metrics.ts';
import { BatchWriteCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { tableNames } from '../../shared/config/names.ts';
import { awsErrorText } from '../aws-errors.ts';
import { CliError, EXIT } from '../command.ts';
import { StepFailed } from '../steps.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class AgentRecords {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly fleet: string,
  ) {}

  /** Ids with a registry item (`agent:<id>`). */
  async registeredAgents(): Promise<string[]> {
    return (await this.scan(tableNames(this.fleet).registry, 'begins_with(pk, :p)', { ':p': AGENT_KEY_PREFIX })).map((i) =>
      String(i.pk).slice(AGENT_KEY_PREFIX.length),
    );
  }

  /** Asleep in the registry, where it has an item: the health tick leaves a sleeping agent without work alone. */
  async markAsleep(agentId: string): Promise<void> {
    try {
      await markAgentAsleep(this.db, tableNames(this.fleet).registry, agentId, Date.now());
    } catch (err) {
      if (!/ConditionalCheckFailed|ResourceNotFound/.test((err as Error).name))
        throw new StepFailed(awsErrorText('cannot mark the agent asleep in the registry', err), 'run this again');
    }
  }

  /** Deletes every record naming the agent; how many of each. */
  async delete(agentId: string): Promise<{ registry: number; sessions: number; origins: number }> {
    const t = tableNames(this.fleet);
    const registry = await this.scan(t.registry, 'pk = :a OR begins_with(pk, :m)', { ':a': agentRegistryKey(agentId), ':m': agentMetricsKeyPrefix(agentId) });
    const sessions = await this.scan(t.sessions, 'agentId = :id', { ':id': agentId });
    // Relay counters are `relay-rate:<from>><to>:<window>`; ids hold neither ">" nor ":".
    const origins = await this.scan(
      t.origins,
      '#o.agentId = :id OR begins_with(pk, :from) OR contains(pk, :to)',
      { ':id': agentId, ':from': `relay-rate:${agentId}>`, ':to': `>${agentId}:` },
      { '#o': 'origin' },
    );
    for (const [table, items] of [
      [t.registry, registry],
      [t.sessions, sessions],
      [t.origins, origins],
    ] as const)
      await this.deleteItems(
        table,
        items.map((i) => String(i.pk)),
      );
    return { registry: registry.length, sessions: sessions.length, origins: origins.length };
  }

  private async scan(table: string, filter: string, values: Record<string, unknown>, names?: Record<string, string>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
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
        if ((err as Error).name === 'ResourceNotFoundException') return [];
        throw new CliError(EXIT.failed, awsErrorText(`cannot scan ${table}`, err));
      }
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  }

  private async deleteItems(table: string, keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 25) {
      let requests: Record<string, { DeleteRequest: { Key: Record<string, unknown> } }[]> | undefined = {
        [table]: keys.slice(i, i + 25).map((pk) => ({ DeleteRequest: { Key: { pk } } })),
      };
      for (let attempt = 0; requests && Object.keys(requests).length; attempt++) {
        if (attempt === 5) throw new StepFailed(`${table} kept refusing some deletes (throttled)`, 'run this again in a minute');
        try {
          const out = await this.db.send(new BatchWriteCommand({ RequestItems: requests }));
          requests = out.UnprocessedItems as typeof requests;
        } catch (err) {
          throw new StepFailed(awsErrorText(`cannot delete records from ${table}`, err), 'run this again');
        }
        if (requests && Object.keys(requests).length) await sleep(200 * 2 ** attempt);
      }
    }
  }
}
