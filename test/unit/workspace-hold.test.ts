// Holding an agent while its workspace is moved (shared/control/workspace-hold.ts): taken
// only from rest unless --hibernate, never woken meanwhile — not by a message, the health
// tick, an always-on flag, a late compute ask or the dashboard — renewed by its holder,
// released on its own when the holder dies, and woken afterwards when it ran before or
// messages waited.
import { describe, expect, it } from 'vitest';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { handleComputeRequest } from '../../shared/control/compute-request.ts';
import { HEALTH_DEFAULTS, healthTick } from '../../shared/control/health.ts';
import { wakeIfAsleep } from '../../shared/control/lifecycle.ts';
import { HOLD_LEASE_MS, holdAgent, releaseHold, renewHold } from '../../shared/control/workspace-hold.ts';
import { lifecycleActions } from '../../shared/dashboard/actions.ts';
import { actionsFor } from '../../shared/dashboard/fleet-view.ts';
import { memoryLogger } from '../../shared/log.ts';
import { localWorkspaceHolds } from '../../local/workspace-holds.ts';

const MIN = 60_000;
let holds = 0;
/** As a CLI makes one: unique per hold. */
const newHoldId = () => `test-hold-${String(++holds).padStart(8, '0')}`;
const config = loadConfigFile('clawfleet.json');

function setup() {
  const clock = {
    t: 100 * MIN,
    now() {
      return this.t;
    },
  };
  const deps = { registry: new InMemoryAgentRegistry(), compute: new InMemoryAgentCompute(), depths: new InMemoryQueueDepths(), clock, log: memoryLogger() };
  return { deps, clock };
}
const stateOf = async (deps: ReturnType<typeof setup>['deps'], id = 'fran') => (await deps.registry.get(id))?.state;

describe('holding an agent for a workspace transfer', () => {
  it('refuses an agent that runs unless --hibernate, and then stops it', async () => {
    const { deps } = setup();
    await deps.registry.recordHeartbeat('fran', 1, 'v');
    await expect(holdAgent('fran', { hibernate: false, holdId: newHoldId() }, deps)).rejects.toMatchObject({
      code: 'AGENT_AWAKE',
      message: expect.stringMatching(/fran is awake: .*--hibernate/),
    });
    expect(deps.compute.calls).toEqual([]);
    expect(await stateOf(deps)).toBe('awake');
    const hold = await holdAgent('fran', { hibernate: true, holdId: newHoldId() }, deps);
    expect(hold.from).toBe('awake');
    expect(await stateOf(deps)).toBe('held');
    expect(deps.compute.calls).toEqual([{ agentId: 'fran', action: 'stop' }]);
  });

  it('takes a sleeping (or never started) agent without --hibernate, and refuses a second holder', async () => {
    const { deps } = setup();
    await holdAgent('fran', { hibernate: false, holdId: newHoldId() }, deps);
    await expect(holdAgent('fran', { hibernate: true, holdId: newHoldId() }, deps)).rejects.toMatchObject({ code: 'AGENT_HELD' });
  });

  it('is never woken meanwhile: not by a message, the health tick (work waiting, always on), a late compute ask or the dashboard', async () => {
    const { deps } = setup();
    for (const id of ['jerry', 'fran']) await holdAgent(id, { hibernate: false, holdId: newHoldId() }, deps); // jerry is alwaysOn in the example
    deps.depths.depths.set('fran', 3);
    expect(await wakeIfAsleep('fran', deps, 'message')).toBe(false);
    const ticks = await healthTick(config, deps);
    expect(ticks).toMatchObject({ jerry: 'none', fran: 'none' });
    // A wake asked before the hold, delivered after it: λ compute follows the registry.
    const holder = { config, registry: deps.registry, compute: new InMemoryAgentCompute(), log: memoryLogger() };
    expect((await handleComputeRequest({ v: 1, agentId: 'fran', action: 'run' }, holder)).outcome).toBe('stopped');
    expect(holder.compute.running.has('fran')).toBe(false);
    expect(actionsFor('held')).toEqual([]);
    await expect(lifecycleActions(deps).act('fran', 'wake')).rejects.toMatchObject({
      code: 'ACTION_NOT_AVAILABLE',
      message: expect.stringMatching(/being transferred/),
    });
    expect(deps.compute.calls.filter((c) => c.action !== 'stop')).toEqual([]);
    expect(await stateOf(deps, 'jerry')).toBe('held');
  });

  it('is released by the health tick once its holder stops renewing it, and woken if work waited', async () => {
    const { deps, clock } = setup();
    const hold = await holdAgent('fran', { hibernate: false, holdId: newHoldId() }, deps);
    clock.t += HOLD_LEASE_MS - MIN;
    expect(await renewHold(hold, deps)).toBe(true); // renewed: the lease starts again
    clock.t += HOLD_LEASE_MS - MIN;
    expect((await healthTick(config, deps)).fran).toBe('none');
    deps.depths.depths.set('fran', 1);
    clock.t += 2 * MIN;
    expect((await healthTick(config, deps, HEALTH_DEFAULTS)).fran).toBe('released');
    expect(await stateOf(deps)).toBe('waking');
    expect(await renewHold(hold, deps)).toBe(false);
    expect(await releaseHold(hold, deps)).toBe('lost');
  });

  it('is no longer the first holder’s once it lapsed and another transfer took it: its renewal sees the loss, its release leaves the new hold alone', async () => {
    const { deps, clock } = setup();
    const first = await holdAgent('fran', { hibernate: false, holdId: newHoldId() }, deps);
    clock.t += HOLD_LEASE_MS + MIN; // the first CLI stalled past its lease
    expect((await healthTick(config, deps, HEALTH_DEFAULTS)).fran).toBe('released');
    const second = await holdAgent('fran', { hibernate: false, holdId: newHoldId() }, deps);
    expect(await renewHold(first, deps)).toBe(false);
    expect(await releaseHold(first, deps)).toBe('lost');
    expect(await deps.registry.get('fran')).toMatchObject({ state: 'held', holdId: second.id });
    expect(await renewHold(second, deps)).toBe(true);
    expect(await releaseHold(second, deps)).toBe('asleep');
  });

  it('locally too: the fleet renews and releases only for the CLI whose id took the hold, not for one whose hold lapsed and was retaken', async () => {
    const { deps, clock } = setup();
    const holds = localWorkspaceHolds(deps);
    expect(await holds.act('fran', 'hold', { holdId: 'first-cli-0000001' })).toEqual({ state: 'held', from: 'absent' });
    clock.t += HOLD_LEASE_MS + MIN;
    expect((await healthTick(config, deps, HEALTH_DEFAULTS)).fran).toBe('released');
    expect(await holds.act('fran', 'hold', { holdId: 'second-cli-000002' })).toEqual({ state: 'held', from: 'asleep' });
    expect(await holds.act('fran', 'renew', { holdId: 'first-cli-0000001' })).toEqual({ held: false });
    expect(await holds.act('fran', 'release', { holdId: 'first-cli-0000001' })).toEqual({ outcome: 'lost' });
    await expect(holds.act('fran', 'release', {})).rejects.toMatchObject({ code: 'HOLD_INVALID' });
    expect(await deps.registry.get('fran')).toMatchObject({ state: 'held', holdId: 'second-cli-000002' });
    expect(await holds.act('fran', 'renew', { holdId: 'second-cli-000002' })).toEqual({ held: true });
    expect(await holds.act('fran', 'release', { holdId: 'second-cli-000002' })).toEqual({ outcome: 'asleep' });
  });

  it('refuses a hold id that is not one a CLI makes', async () => {
    const { deps } = setup();
    await expect(holdAgent('fran', { hibernate: false, holdId: 'short' }, deps)).rejects.toMatchObject({ code: 'HOLD_INVALID' });
    expect(await stateOf(deps)).toBeUndefined();
  });

  it('on release wakes an agent that ran before, or that has messages waiting, and leaves a sleeping one asleep', async () => {
    const awake = setup();
    await awake.deps.registry.recordHeartbeat('fran', 1, 'v');
    expect(await releaseHold(await holdAgent('fran', { hibernate: true, holdId: newHoldId() }, awake.deps), awake.deps)).toBe('woken');
    expect(awake.deps.compute.calls.map((c) => c.action)).toEqual(['stop', 'start']);

    const asleep = setup();
    expect(await releaseHold(await holdAgent('fran', { hibernate: false, holdId: newHoldId() }, asleep.deps), asleep.deps)).toBe('asleep');
    expect(await stateOf(asleep.deps)).toBe('asleep');

    const waiting = setup();
    const hold = await holdAgent('fran', { hibernate: false, holdId: newHoldId() }, waiting.deps);
    waiting.deps.depths.depths.set('fran', 2);
    expect(await releaseHold(hold, waiting.deps)).toBe('woken');
  });
});
