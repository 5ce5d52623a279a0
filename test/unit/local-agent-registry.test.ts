// The agent registry local mode runs the wake/hibernate/health cores on: the same cases
// against the in-memory fake and the SQLite adapter, then what only SQLite adds: it grows
// the agent status table of an older state file, and `clawfleet status` reads the same rows.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { SqliteAgentRegistry } from '../../shared/adapters/sqlite/sqlite-agent-registry.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { SqliteAgentStatus } from '../../shared/adapters/sqlite/sqlite-state.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { healthTick } from '../../shared/control/health.ts';
import { wakeIfAsleep } from '../../shared/control/lifecycle.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentRegistry } from '../../shared/ports.ts';
import { LOCAL_HEALTH } from '../../local/health-loop.ts';
import { tempDir } from '../support/temp-dirs.ts';

const registries: [string, () => AgentRegistry][] = [
  ['InMemoryAgentRegistry', () => new InMemoryAgentRegistry()],
  ['SqliteAgentRegistry', () => new SqliteAgentRegistry(openStateDatabase(':memory:'))],
];

describe.each(registries)('%s', (_name, make) => {
  it('moves an agent only from the states it is asked to move it from', async () => {
    const r = make();
    expect(await r.get('fran')).toBeUndefined();
    expect(await r.transition('fran', ['asleep'], 'waking', 1)).toBe(false);
    expect(await r.transition('fran', ['asleep', 'absent'], 'waking', 1)).toBe(true);
    expect(await r.transition('fran', ['asleep', 'absent'], 'waking', 2)).toBe(false);
    expect(await r.get('fran')).toMatchObject({ agentId: 'fran', state: 'waking', stateChangedAt: 1 });
  });

  it('refuses a transition whose activity guard no longer holds', async () => {
    const r = make();
    await r.transition('fran', ['absent'], 'awake', 1);
    await r.recordActivity('fran', 10);
    expect(await r.transition('fran', ['awake'], 'asleep', 20, { activityAt: 5 })).toBe(false);
    expect(await r.transition('fran', ['awake'], 'asleep', 20, { activityAt: 10 })).toBe(true);
  });

  it('counts restarts, marks a starting agent awake on its heartbeat, and leaves a sleeping one asleep', async () => {
    const r = make();
    await r.transition('fran', ['absent'], 'awake', 1);
    await r.transition('fran', ['awake'], 'restarting', 2);
    await r.recordHeartbeat('fran', 3, '0.3.0');
    expect(await r.get('fran')).toMatchObject({ state: 'awake', lastHeartbeatAt: 3, version: '0.3.0', restarts: 1 });
    await r.transition('fran', ['awake'], 'asleep', 4);
    await r.recordHeartbeat('fran', 5, '0.3.0');
    expect(await r.get('fran')).toMatchObject({ state: 'asleep', lastHeartbeatAt: 5 });
  });

  it('records the warnings a heartbeat reports: a later list replaces them, an empty one clears them, none keeps them', async () => {
    const r = make();
    await r.recordHeartbeat('fran', 1, '0.3.0', undefined, ['exec is off: no sandbox is available (bubblewrap (bwrap) is not installed)']);
    expect((await r.get('fran'))?.warnings).toEqual(['exec is off: no sandbox is available (bubblewrap (bwrap) is not installed)']);
    await r.recordHeartbeat('fran', 2, '0.3.0');
    expect((await r.get('fran'))?.warnings).toHaveLength(1);
    await r.recordHeartbeat('fran', 3, '0.3.0', undefined, ['exec runs UNSANDBOXED']);
    expect((await r.get('fran'))?.warnings).toEqual(['exec runs UNSANDBOXED']);
    await r.recordHeartbeat('fran', 4, '0.3.0', undefined, []);
    expect((await r.get('fran'))?.warnings ?? []).toEqual([]);
  });

  it('keeps the latest activity and the last error', async () => {
    const r = make();
    await r.recordActivity('fran', 10);
    await r.recordActivity('fran', 5);
    await r.recordError('fran', 11, 'model down');
    expect(await r.get('fran')).toMatchObject({ state: 'asleep', lastActivityAt: 10, lastError: 'model down' });
  });

  it('lets the wake core start a sleeping agent once, however many messages race to wake it', async () => {
    const registry = make();
    const compute = new InMemoryAgentCompute();
    const deps = { registry, compute, depths: new InMemoryQueueDepths(), clock: { now: () => 100 }, log: memoryLogger() };
    await registry.transition('fran', ['absent'], 'asleep', 1);
    const woke = await Promise.all([wakeIfAsleep('fran', deps, 'a'), wakeIfAsleep('fran', deps, 'b'), wakeIfAsleep('fran', deps, 'c')]);
    expect(woke.filter(Boolean)).toHaveLength(1);
    expect(compute.calls).toEqual([{ agentId: 'fran', action: 'start' }]);
  });
});

describe('the SQLite registry in local mode', () => {
  it('grows the agent status table of an older state file, keeping what it held', async () => {
    const path = join(tempDir('cf-registry-'), 'state.db');
    const old = new Database(path);
    old.exec('CREATE TABLE agent_status (agent_id TEXT PRIMARY KEY, last_heartbeat INTEGER, last_error TEXT, last_error_at INTEGER)');
    old.prepare('INSERT INTO agent_status VALUES (?, ?, ?, ?)').run('fran', 42, 'runtime exited (SIGKILL)', 43);
    old.close();
    const db = openStateDatabase(path);
    const registry = new SqliteAgentRegistry(db);
    expect(await registry.get('fran')).toMatchObject({ state: 'asleep', lastHeartbeatAt: 42, lastError: 'runtime exited (SIGKILL)' });
    // As in DynamoDB, a record without a state is 'absent' to a transition.
    expect(await registry.transition('fran', ['absent'], 'waking', 50)).toBe(true);
    // Opening it again adds nothing twice.
    expect(() => new SqliteAgentRegistry(db)).not.toThrow();
  });

  it('writes the same rows `clawfleet status` reads', async () => {
    const db = openStateDatabase(':memory:');
    const registry = new SqliteAgentRegistry(db);
    const status = new SqliteAgentStatus(db);
    await registry.recordHeartbeat('fran', 7, '0.3.0');
    await registry.recordError('fran', 8, 'turn failed');
    expect(status.get('fran')).toMatchObject({ lastHeartbeat: 7, lastError: 'turn failed', lastErrorAt: 8 });
    status.heartbeat('fran', 9);
    expect(await registry.get('fran')).toMatchObject({ lastHeartbeatAt: 9, state: 'awake' });
  });

  it('never hibernates an idle agent locally unless its config sets idleTimeoutMinutes', async () => {
    const config = parseConfig({
      fleet: 'demo',
      agents: {
        defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
        list: [{ id: 'fran' }, { id: 'ray', runtime: { idleTimeoutMinutes: 10 } }],
      },
      models: { providers: { openai: { api: 'openai-completions' } } },
    });
    const registry = new SqliteAgentRegistry(openStateDatabase(':memory:'));
    const compute = new InMemoryAgentCompute();
    let now = 0;
    const deps = { registry, compute, depths: new InMemoryQueueDepths(), clock: { now: () => now }, log: memoryLogger() };
    for (const id of ['fran', 'ray']) await registry.transition(id, ['absent'], 'awake', 0);
    now = 11 * 60_000;
    for (const id of ['fran', 'ray']) await registry.recordHeartbeat(id, now, '0.3.0');
    expect(await healthTick(config, deps, LOCAL_HEALTH)).toEqual({ fran: 'none', ray: 'hibernated' });
    expect(compute.calls).toEqual([{ agentId: 'ray', action: 'stop' }]);
    // And a sleeping agent with a message waiting is woken on the next tick.
    deps.depths.depths.set('ray', 1);
    expect(await healthTick(config, deps, LOCAL_HEALTH)).toEqual({ fran: 'none', ray: 'woken' });
  });
});
