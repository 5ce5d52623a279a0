// The agent registry in the registry table, one item per agent (`agent:<id>`). State
// changes are conditional updates, so concurrent control-plane functions agree on who acts.
import { conditionalUpdate } from './dynamo-conditional-update.ts';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AgentRecord, AgentRegistry, AgentState, McpServerState, TransitionGuard } from '../../ports.ts';

/** The registry table's key of an agent's item, and the prefix every such key has. */
export const AGENT_KEY_PREFIX = 'agent:';
export const agentRegistryKey = (agentId: string) => `${AGENT_KEY_PREFIX}${agentId}`;
const key = (agentId: string) => ({ pk: agentRegistryKey(agentId) });

export class DynamoAgentRegistry implements AgentRegistry {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  async get(agentId: string): Promise<AgentRecord | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: key(agentId), ConsistentRead: true }));
    if (!Item) return undefined;
    const { pk: _pk, ...rest } = Item;
    // Activity can be recorded before any state: such an agent has never been started.
    return { state: 'asleep', stateChangedAt: 0, ...(rest as Partial<AgentRecord>), agentId };
  }

  async transition(agentId: string, from: (AgentState | 'absent')[], to: AgentState, now: number, guard?: TransitionGuard): Promise<boolean> {
    const states = from.filter((s): s is AgentState => s !== 'absent');
    const countsRestart = to === 'restarting' || to === 'unhealthy';
    // DynamoDB refuses values the expressions do not use, so add each only where needed.
    const values: Record<string, unknown> = { ':to': to, ':now': now, ':agent': agentId, ...(countsRestart ? { ':zero': 0, ':one': 1 } : {}) };
    states.forEach((s, i) => (values[`:s${i}`] = s));
    const stateCond = [
      // 'absent': no state recorded yet (activity or errors may have been).
      ...(from.includes('absent') ? ['attribute_not_exists(#state)'] : []),
      ...(states.length ? [`#state IN (${states.map((_, i) => `:s${i}`).join(', ')})`] : []),
    ].join(' OR ');
    let cond = `(${stateCond})`;
    if (guard && 'activityAt' in guard) {
      if (guard.activityAt === undefined) cond += ' AND attribute_not_exists(lastActivityAt)';
      else {
        cond += ' AND lastActivityAt = :activity';
        values[':activity'] = guard.activityAt;
      }
    }
    // A hold is renewed or released only by the transfer that took it (its id on the item);
    // taking one records the id, and any move out of `held` forgets it.
    const holdId = guard?.holdId;
    const checksHold = holdId !== undefined && states.includes('held');
    const setsHold = holdId !== undefined && to === 'held';
    if (checksHold) {
      values[':held'] = 'held';
      cond += ' AND (#state <> :held OR holdId = :hold)';
    }
    if (checksHold || setsHold) values[':hold'] = holdId;
    const setHold = setsHold ? ', holdId = :hold' : '';
    const removeHold = to === 'held' ? '' : ' REMOVE holdId';
    const updated = await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(agentId),
      UpdateExpression:
        'SET #state = :to, stateChangedAt = :now, agentId = :agent' +
        (countsRestart ? ', restarts = if_not_exists(restarts, :zero) + :one' : '') +
        setHold +
        removeHold,
      ConditionExpression: cond,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: values,
    });
    return updated !== undefined;
  }

  async recordHeartbeat(agentId: string, now: number, version: string, mcp?: Record<string, McpServerState>, warnings?: string[]): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(agentId),
        UpdateExpression:
          'SET lastHeartbeatAt = :now, version = :version, agentId = :agent, #state = if_not_exists(#state, :awake), stateChangedAt = if_not_exists(stateChangedAt, :now)' +
          (mcp ? ', mcp = :mcp' : '') +
          (warnings ? ', warnings = :warnings' : ''),
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':now': now,
          ':version': version,
          ':agent': agentId,
          ':awake': 'awake',
          ...(mcp ? { ':mcp': mcp } : {}),
          ...(warnings ? { ':warnings': warnings } : {}),
        },
      }),
    );
    // A heartbeat proves a starting agent is up; a sleeping one is on its way down and stays asleep.
    await this.transition(agentId, ['waking', 'restarting', 'unhealthy'], 'awake', now);
  }

  async recordActivity(agentId: string, now: number): Promise<void> {
    // A refusal is a later activity recorded already.
    await conditionalUpdate(this.db, {
      TableName: this.table,
      Key: key(agentId),
      UpdateExpression: 'SET lastActivityAt = :now, agentId = :agent',
      ConditionExpression: 'attribute_not_exists(lastActivityAt) OR lastActivityAt < :now',
      ExpressionAttributeValues: { ':now': now, ':agent': agentId },
    });
  }

  async recordError(agentId: string, now: number, error: string): Promise<void> {
    await this.db.send(
      new UpdateCommand({
        TableName: this.table,
        Key: key(agentId),
        UpdateExpression: 'SET lastError = :error, lastErrorAt = :now, agentId = :agent',
        ExpressionAttributeValues: { ':error': error.slice(0, 1000), ':now': now, ':agent': agentId },
      }),
    );
  }
}

/**
 * Asleep, where the agent has an item at all (`clawfleet agents remove --aws` before it stops
 * the agent's service: the health tick leaves a sleeping agent without work alone). False when
 * there is no item; whatever state it was in, it is asleep afterwards. A function beside the
 * registry rather than a method of it, so the Lambda bundles, which never call it, leave it out.
 */
export async function markAgentAsleep(db: DynamoDBDocumentClient, table: string, agentId: string, now: number): Promise<boolean> {
  const updated = await conditionalUpdate(db, {
    TableName: table,
    Key: key(agentId),
    UpdateExpression: 'SET #state = :asleep, stateChangedAt = :now',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':asleep': 'asleep', ':now': now },
  });
  return updated !== undefined;
}
