// Fleets of 1, 20 and 200 agents synthesize within CloudFormation's limits, and a change
// to one agent's own settings changes that agent's stack and no other.
import { describe, expect, it } from 'vitest';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { EXAMPLE_CONFIG, fleetOf, synthFleet } from './synth-fleet.ts';

/** The largest fleet synthesized: 60 in `npm test` (a minute and more on 2 loaded cores), 200 in `npm run test:heavy`. */
const LARGEST = Number(process.env.SCALE_FLEET_AGENTS ?? 60);

describe('fleet size', () => {
  it.each([1, 20, LARGEST])('a fleet of %i agents synthesizes to one stack per agent, each far under 500 resources', (n) => {
    const fleet = synthFleet(fleetOf(n), {}, { nag: n <= 20 });
    expect(fleet.templates.size).toBe(n + 1);
    // Each agent's heartbeat is a schedule in its own stack.
    for (const [name, t] of fleet.templates) {
      if (name !== 'big-control-plane') expect(Object.values<any>(t.Resources).filter((r) => r.Type === 'AWS::Scheduler::Schedule').length, name).toBe(1);
    }
    for (const [name, t] of fleet.templates) {
      // CloudFormation allows 500; the control plane holds 100 with the media bucket (#16), an agent's stack far fewer.
      expect(Object.keys(t.Resources).length, name).toBeLessThan(150);
      // CloudFormation's template body limit for a template uploaded to S3 is 1 MB.
      expect(JSON.stringify(t).length, name).toBeLessThan(1_000_000);
    }
    // The control plane does not grow with the fleet.
    expect(Object.keys(fleet.templates.get('big-control-plane')!.Resources).length).toBe(
      Object.keys(synthFleet(fleetOf(1), {}, { nag: false }).templates.get('big-control-plane')!.Resources).length,
    );
  });
});

describe('one agent’s change', () => {
  const changed = (edit: (agent: FleetConfigInput['agents']['list'][number]) => object): FleetConfigInput => ({
    ...EXAMPLE_CONFIG,
    agents: { ...EXAMPLE_CONFIG.agents, list: EXAMPLE_CONFIG.agents.list.map((a) => (a.id === 'fran' ? { ...a, ...edit(a) } : a)) },
  });
  const differing = (a: Map<string, unknown>, b: Map<string, unknown>) => [...a.keys()].filter((k) => JSON.stringify(a.get(k)) !== JSON.stringify(b.get(k)));

  it.each([
    ['its runtime size', () => ({ runtime: { cpus: 1, memoryMb: 2048 } })],
    ['its model', () => ({ model: 'anthropic/claude-sonnet-4-5' })],
    ['its tools and secret names', () => ({ tools: { deny: ['exec'] }, secrets: ['GRAPH_TOKEN'] })],
    ['its image', () => ({ runtime: { image: 'ghcr.io/example/runtime:2' } })],
  ])('to %s changes only that agent’s stack', (_what, edit) => {
    const before = synthFleet(EXAMPLE_CONFIG, {}, { nag: false }).templates;
    const after = synthFleet(changed(edit), {}, { nag: false }).templates;
    expect(differing(before, after)).toEqual(['demo-agent-fran']);
  });

  it('to its heartbeat changes its stack (the schedule) and the control plane (cron-dispatch reads the heartbeat settings), no other agent’s', () => {
    const before = synthFleet(EXAMPLE_CONFIG, {}, { nag: false }).templates;
    const after = synthFleet(
      changed(() => ({ heartbeat: { every: '1h' } })),
      {},
      { nag: false },
    ).templates;
    expect(differing(before, after).sort()).toEqual(['demo-agent-fran', 'demo-control-plane']);
  });

  it('to its binding reaches the control plane, which routes by it', () => {
    const before = synthFleet(EXAMPLE_CONFIG, {}, { nag: false }).templates;
    const rebound = { ...EXAMPLE_CONFIG, bindings: EXAMPLE_CONFIG.bindings!.map((b) => (b.agentId === 'fran' ? { ...b, agentId: 'grif' } : b)) };
    expect(differing(before, synthFleet(rebound, {}, { nag: false }).templates)).toEqual(['demo-control-plane']);
  });
});
