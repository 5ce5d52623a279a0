import { describe, expect, it } from 'vitest';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { healthTick } from '../../shared/control/health.ts';
import { hibernate, wakeIfAsleep } from '../../shared/control/lifecycle.ts';
import { memoryLogger } from '../../shared/log.ts';

const MIN = 60_000;

function setup(now = 100 * MIN) {
  const clock = {
    t: now,
    now() {
      return this.t;
    },
  };
  const deps = { registry: new InMemoryAgentRegistry(), compute: new InMemoryAgentCompute(), depths: new InMemoryQueueDepths(), clock, log: memoryLogger() };
  return { deps, clock, config: loadConfigFile('clawfleet.json') };
}

describe('wake and hibernate', () => {
  it('wakes a sleeping agent once, however many messages race to wake it', async () => {
    const { deps } = setup();
    const woke = await Promise.all([wakeIfAsleep('fran', deps, 'm'), wakeIfAsleep('fran', deps, 'm'), wakeIfAsleep('fran', deps, 'm')]);
    expect(woke.filter(Boolean)).toHaveLength(1);
    expect(deps.compute.calls).toEqual([{ agentId: 'fran', action: 'start' }]);
    expect((await deps.registry.get('fran'))?.state).toBe('waking');
  });

  it('does not hibernate an agent whose activity changed since it was judged idle', async () => {
    const { deps } = setup();
    await deps.registry.recordHeartbeat('fran', 1, 'v');
    await deps.registry.recordActivity('fran', 5);
    await deps.registry.recordActivity('fran', 6); // a message arrived after the check
    expect(await hibernate('fran', 5, deps)).toBe(false);
    expect(deps.compute.calls).toEqual([]);
  });

  it('wakes an agent straight back up when a message slipped in while it was put to sleep', async () => {
    const { deps } = setup();
    await deps.registry.recordHeartbeat('fran', 1, 'v');
    deps.depths.depths.set('fran', 1);
    expect(await hibernate('fran', undefined, deps)).toBe(true);
    expect(deps.compute.calls.map((c) => c.action)).toEqual(['stop', 'start']);
    expect((await deps.registry.get('fran'))?.state).toBe('waking');
  });
});

describe('the health tick', () => {
  it('hibernates an idle agent, and leaves an always-on one alone', async () => {
    const { deps, clock, config } = setup();
    for (const id of ['jerry', 'fran']) await deps.registry.recordHeartbeat(id, clock.t - 31 * MIN, 'v');
    for (const id of ['jerry', 'fran']) await deps.registry.recordActivity(id, clock.t - 31 * MIN);
    // Both still heartbeat; only their work stopped 31 minutes ago (fran's idle timeout is 30).
    for (const id of ['jerry', 'fran']) await deps.registry.recordHeartbeat(id, clock.t - 10_000, 'v');
    const actions = await healthTick(config, deps);
    expect(actions).toMatchObject({ fran: 'hibernated', jerry: 'none' });
    expect(deps.compute.calls).toEqual([{ agentId: 'fran', action: 'stop' }]);
  });

  it('does not hibernate an idle agent while its queue holds messages', async () => {
    const { deps, clock, config } = setup();
    await deps.registry.recordHeartbeat('fran', clock.t - 10_000, 'v');
    await deps.registry.recordActivity('fran', clock.t - 60 * MIN);
    deps.depths.depths.set('fran', 2);
    expect((await healthTick(config, deps)).fran).toBe('none');
  });

  it('wakes a sleeping agent that has messages waiting, and an always-on agent found asleep', async () => {
    const { deps, config } = setup();
    deps.depths.depths.set('grif', 1);
    const actions = await healthTick(config, deps);
    expect(actions).toMatchObject({ grif: 'woken', jerry: 'woken', fran: 'none', ray: 'none' });
  });

  it('restarts an agent that stopped heartbeating, without touching the others', async () => {
    const { deps, clock, config } = setup();
    await deps.registry.recordHeartbeat('jerry', clock.t - 4 * MIN, 'v');
    await deps.registry.recordHeartbeat('fran', clock.t - 20_000, 'v');
    await deps.registry.recordActivity('fran', clock.t - 20_000);
    const actions = await healthTick(config, deps);
    expect(actions).toMatchObject({ jerry: 'restarted', fran: 'none' });
    expect(deps.compute.calls).toEqual([{ agentId: 'jerry', action: 'restart' }]);
    expect(await deps.registry.get('jerry')).toMatchObject({ state: 'restarting', restarts: 1 });
    expect(deps.log.lines.some((l) => l.metric === 'RuntimeRestarts' && l.agentId === 'jerry')).toBe(true);
    // Its next heartbeat marks it awake again.
    await deps.registry.recordHeartbeat('jerry', clock.t + 1_000, 'v');
    expect((await deps.registry.get('jerry'))?.state).toBe('awake');
  });

  it('restarts an agent that was asked to start but never came up', async () => {
    const { deps, clock, config } = setup();
    await wakeIfAsleep('ray', deps, 'm');
    clock.t += 6 * MIN;
    expect((await healthTick(config, deps)).ray).toBe('restarted');
    expect((await deps.registry.get('ray'))?.state).toBe('unhealthy');
  });
});
