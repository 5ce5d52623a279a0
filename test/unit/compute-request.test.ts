// λ compute, the one holder of ECS power: it carries out well-formed requests for agents
// of its fleet, refuses everything else, and ends where the registry says however late or
// out of order Lambda delivers the asks.
import { describe, expect, it } from 'vitest';
import { InMemoryAgentCompute, InMemoryAgentRegistry, InMemoryQueueDepths } from '../../shared/adapters/memory/in-memory-lifecycle.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import {
  ComputeRequestRefused,
  ComputeRequestSchema,
  handleComputeRequest,
  MAX_SETTLE_ROUNDS,
  type ComputeRequest,
} from '../../shared/control/compute-request.ts';
import { hibernate, wakeIfAsleep, type LifecycleDeps } from '../../shared/control/lifecycle.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { AgentCompute, AgentState } from '../../shared/ports.ts';

const config = loadConfigFile('clawfleet.json');

function holder(state?: AgentState) {
  const registry = new InMemoryAgentRegistry();
  if (state) registry.records.set('fran', { agentId: 'fran', state, stateChangedAt: 1 });
  const compute = new InMemoryAgentCompute();
  const log = memoryLogger();
  return { registry, compute, log, deps: { config, registry, compute, log } };
}

/** The asking side, as the other functions have it: each call becomes a request, delivered later. */
class RecordingAsker implements AgentCompute {
  readonly asks: ComputeRequest[] = [];
  async setRunning(agentId: string, running: boolean) {
    this.asks.push(ComputeRequestSchema.parse({ v: 1, agentId, action: running ? 'run' : 'stop' }));
  }
  async restart(agentId: string) {
    this.asks.push(ComputeRequestSchema.parse({ v: 1, agentId, action: 'restart' }));
  }
}

const permutations = <T>(xs: T[]): T[][] =>
  xs.length <= 1 ? [xs] : xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));

describe('the compute holder', () => {
  it('starts, stops and restarts an agent as asked when the registry agrees', async () => {
    for (const [state, action, expected] of [
      ['waking', 'run', 'start'],
      ['asleep', 'stop', 'stop'],
      ['restarting', 'restart', 'restart'],
      ['unhealthy', 'restart', 'restart'],
    ] as const) {
      const h = holder(state);
      const result = await handleComputeRequest({ v: 1, agentId: 'fran', action }, h.deps);
      expect(h.compute.calls, `${state} ${action}`).toEqual([{ agentId: 'fran', action: expected }]);
      expect(result.outcome).toBe({ start: 'started', stop: 'stopped', restart: 'restarted' }[expected]);
      expect(h.log.lines.filter((l) => l.msg === 'compute request superseded by the registry')).toEqual([]);
    }
  });

  it('does what the registry says when a request was overtaken by a later transition, and says so', async () => {
    // A hibernate's stop arriving after a message woke the agent again: it keeps running.
    const woken = holder('waking');
    expect((await handleComputeRequest({ v: 1, agentId: 'fran', action: 'stop' }, woken.deps)).outcome).toBe('started');
    expect(woken.compute.calls).toEqual([{ agentId: 'fran', action: 'start' }]);
    expect(woken.log.lines).toEqual([
      expect.objectContaining({ msg: 'compute request superseded by the registry', agentId: 'fran', asked: 'stop', state: 'waking', did: 'started' }),
    ]);
    // A wake or restart arriving after the agent was put back to sleep: it stays asleep.
    for (const action of ['run', 'restart'] as const) {
      const slept = holder('asleep');
      expect((await handleComputeRequest({ v: 1, agentId: 'fran', action }, slept.deps)).outcome).toBe('stopped');
      expect(slept.compute.calls).toEqual([{ agentId: 'fran', action: 'stop' }]);
    }
    // An agent without a record has never been started: asleep.
    const fresh = holder();
    await handleComputeRequest({ v: 1, agentId: 'fran', action: 'run' }, fresh.deps);
    expect(fresh.compute.calls).toEqual([{ agentId: 'fran', action: 'stop' }]);
  });

  it('ends where the last transition left the agent, in whatever order Lambda delivers the asks', async () => {
    // hibernate → a message slips in → wake: two asks (stop, run) racing to the holder.
    const registry = new InMemoryAgentRegistry();
    const asker = new RecordingAsker();
    const depths = new InMemoryQueueDepths();
    const lifecycle: LifecycleDeps = { registry, compute: asker, depths, clock: { now: () => 10 }, log: memoryLogger() };
    await registry.recordHeartbeat('fran', 1, 'v');
    depths.depths.set('fran', 1);
    await hibernate('fran', undefined, lifecycle);
    // …then an operator puts it to sleep, and a new message wakes it once more.
    await registry.transition('fran', ['waking'], 'asleep', 11);
    await asker.setRunning('fran', false);
    await wakeIfAsleep('fran', lifecycle, 'message');
    expect(asker.asks.map((a) => a.action)).toEqual(['stop', 'run', 'stop', 'run']);
    expect((await registry.get('fran'))?.state).toBe('waking');

    for (const order of permutations(asker.asks)) {
      const compute = new InMemoryAgentCompute();
      for (const ask of order) await handleComputeRequest(ask, { config, registry, compute, log: memoryLogger() });
      expect(compute.running.has('fran'), order.map((a) => a.action).join(',')).toBe(true);
    }
  });

  it('puts a newer state back when an older ask’s change lands after it, asks running side by side', async () => {
    // Ask A (run) reads `waking`; before its ECS call lands, the agent is hibernated and ask
    // B (stop) runs from start to end; then A's desired count 1 lands, last. Without the
    // re-read A would leave an asleep agent running, which nothing would ever stop.
    const registry = new InMemoryAgentRegistry();
    registry.records.set('fran', { agentId: 'fran', state: 'waking', stateChangedAt: 1 });
    const ecs = new InMemoryAgentCompute();
    const log = memoryLogger();
    let interleaved = false;
    const slowFirstWrite: AgentCompute = {
      async setRunning(agentId, running) {
        if (!interleaved) {
          interleaved = true;
          await registry.transition('fran', ['waking'], 'asleep', 2);
          await handleComputeRequest({ v: 1, agentId: 'fran', action: 'stop' }, { config, registry, compute: ecs, log });
          expect(ecs.running.has('fran')).toBe(false);
        }
        await ecs.setRunning(agentId, running);
      },
      restart: (agentId) => ecs.restart(agentId),
    };
    const a = await handleComputeRequest({ v: 1, agentId: 'fran', action: 'run' }, { config, registry, compute: slowFirstWrite, log });
    expect(ecs.calls.map((c) => c.action)).toEqual(['stop', 'start', 'stop']);
    expect(ecs.running.has('fran')).toBe(false);
    expect(a).toMatchObject({ outcome: 'stopped', state: 'asleep' });
    expect(log.lines).toEqual(
      expect.arrayContaining([expect.objectContaining({ msg: 'compute followed a newer registry state', agentId: 'fran', was: 'waking', now: 'asleep' })]),
    );
  });

  it('gives up, to be retried, on a registry that keeps changing under it', async () => {
    let flips = 0;
    const flipping = { get: async () => ({ agentId: 'fran', state: (flips++ % 2 === 0 ? 'waking' : 'asleep') as AgentState, stateChangedAt: 1 }) };
    const compute = new InMemoryAgentCompute();
    await expect(
      handleComputeRequest({ v: 1, agentId: 'fran', action: 'run' }, { config, registry: flipping, compute, log: memoryLogger() }),
    ).rejects.toMatchObject({ code: 'COMPUTE_UNSETTLED' });
    expect(compute.calls.length).toBe(MAX_SETTLE_ROUNDS + 1);
  });

  it('refuses a request for an agent of no fleet of its own, touching nothing', async () => {
    const h = holder('waking');
    for (const agentId of ['mallory', 'jerryx']) {
      await expect(handleComputeRequest({ v: 1, agentId, action: 'run' }, h.deps)).rejects.toMatchObject({
        name: 'ComputeRequestRefused',
        code: 'AGENT_UNKNOWN',
      });
    }
    expect(h.compute.calls).toEqual([]);
  });

  it('refuses anything but the minimal request — extra fields, other actions, other versions, odd ids — touching nothing', async () => {
    const h = holder('waking');
    const forged: unknown[] = [
      null,
      'run fran',
      [],
      {},
      { v: 1, agentId: 'fran' },
      { v: 2, agentId: 'fran', action: 'run' },
      { v: 1, agentId: 'fran', action: 'delete' },
      { v: 1, agentId: 'fran', action: 'run', desiredCount: 5 },
      { v: 1, agentId: 'fran', action: 'run', cluster: 'clawfleet-prod' },
      { v: 1, agentId: 'fran', action: 'restart', taskDefinition: 'arn:aws:ecs:us-east-1:111122223333:task-definition/evil:1' },
      { v: 1, agentId: '../jerry', action: 'run' },
      { v: 1, agentId: 'Fran', action: 'run' },
      { v: 1, agentId: 'x'.repeat(25), action: 'run' },
      { v: 1, agentId: ['fran'], action: 'run' },
    ];
    for (const input of forged) {
      const err = await handleComputeRequest(input, h.deps).catch((e: unknown) => e);
      expect(err, JSON.stringify(input)).toBeInstanceOf(ComputeRequestRefused);
      expect((err as ComputeRequestRefused).code).toBe('COMPUTE_REQUEST_INVALID');
      expect((err as Error).message).toMatch(/^not a compute request: /);
    }
    expect(h.compute.calls).toEqual([]);
  });
});
