// Fleets of 1, 20 and the largest synthesize within CloudFormation's limits (1,000 agents in
// `npm run test:heavy`; how long that takes and the largest template are measured by
// bench/synth.ts, docs/benchmarks.md), the control plane grows only where a quota says it must,
// and a change to one agent's own settings changes that agent's stack and no other.
import { describe, expect, it } from 'vitest';
import { MAX_AGENTS_WITH_METRIC_DIMENSION } from '../../infra/constructs/control-functions.ts';
import { subnetPlan } from '../../infra/fleet-subnets.ts';
import type { FleetConfigInput } from '../../shared/config/schema.ts';
import { ACCOUNTS_PER_TELEGRAM_SECRET } from '../../shared/secrets/telegram-secrets.ts';
import { EXAMPLE_CONFIG, fleetOf, synthFleet } from './synth-fleet.ts';

/** The largest fleet synthesized: 60 in `npm test` (a minute and more on 2 loaded cores), 1,000 in `npm run test:heavy`. */
const LARGEST = Number(process.env.SCALE_FLEET_AGENTS ?? 60);

/** Resource counts of a template by type. */
const byType = (t: Record<string, any>) => {
  const counts: Record<string, number> = {};
  for (const r of Object.values<{ Type: string }>(t.Resources)) counts[r.Type] = (counts[r.Type] ?? 0) + 1;
  return counts;
};

describe('fleet size', () => {
  it.each([1, 20, LARGEST])(
    'a fleet of %i agents synthesizes to one stack per agent, each far under 500 resources',
    (n) => {
      const fleet = synthFleet(fleetOf(n), {}, { nag: n <= 20 });
      expect(fleet.templates.size).toBe(n + 1);
      // Each agent's heartbeat is a schedule in its own stack.
      for (const [name, t] of fleet.templates) {
        if (name !== 'big-control-plane') expect(Object.values<any>(t.Resources).filter((r) => r.Type === 'AWS::Scheduler::Schedule').length, name).toBe(1);
      }
      for (const [name, t] of fleet.templates) {
        // CloudFormation allows 500; the control plane holds about 120, an agent's stack far fewer.
        expect(Object.keys(t.Resources).length, name).toBeLessThan(150);
        // CloudFormation's template body limit for a template uploaded to S3 is 1 MB.
        expect(JSON.stringify(t).length, name).toBeLessThan(1_000_000);
      }

      // The control plane grows with the fleet only where a quota makes it: a telegram secret per
      // 400 bots, a second subnet group past 400 agents, no per-agent metric dimension past 900.
      const cp = byType(fleet.templates.get('big-control-plane')!);
      const one = byType(synthFleet(fleetOf(1), {}, { nag: false }).templates.get('big-control-plane')!);
      const grows = [
        'AWS::SecretsManager::Secret',
        'AWS::EC2::Subnet',
        'AWS::EC2::RouteTable',
        'AWS::EC2::SubnetRouteTableAssociation',
        'AWS::EC2::Route',
        'AWS::Logs::MetricFilter',
      ];
      const fixed = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([type]) => !grows.includes(type)));
      expect(fixed(cp)).toEqual(fixed(one));
      expect(cp['AWS::SecretsManager::Secret']).toBe(one['AWS::SecretsManager::Secret']! - 1 + Math.ceil(n / ACCOUNTS_PER_TELEGRAM_SECRET));
      expect(cp['AWS::EC2::Subnet']).toBe(subnetPlan(n).subnets);
      // The mount targets stay in the first group's two subnets; each agent's service runs in every subnet.
      expect(cp['AWS::EFS::MountTarget']).toBe(2);
      const [service] = Object.values<any>(fleet.templates.get('big-agent-a0')!.Resources).filter((r) => r.Type === 'AWS::ECS::Service');
      expect(service.Properties.NetworkConfiguration.AwsvpcConfiguration.Subnets).toHaveLength(subnetPlan(n).subnets);
      const dimensioned = Object.values<any>(fleet.templates.get('big-control-plane')!.Resources).filter(
        (r) => r.Type === 'AWS::Logs::MetricFilter' && r.Properties.MetricTransformations[0].Dimensions,
      );
      expect(dimensioned.length > 0).toBe(n <= MAX_AGENTS_WITH_METRIC_DIMENSION);
    }, // 1,000 agents take minutes to synthesize on two cores: the heavy run's own time, not a guess of speed.
    60 * 60_000,
  );

  it('sizes the subnets from the agent count: the first two /24s up to 400 agents, two /20s beside them past that, and refuses a fleet both cannot hold', () => {
    expect(subnetPlan(400)).toMatchObject({ groups: [{ name: 'public', cidrMask: 24 }], subnets: 2, needed: 502, holds: 502 });
    expect(subnetPlan(401)).toMatchObject({ groups: [{ name: 'public' }, { name: 'runtimes', cidrMask: 20 }], subnets: 4, holds: 8684 });
    expect(subnetPlan(1000)).toMatchObject({ subnets: 4, needed: 1252 });
    expect(subnetPlan(1000).problem).toBeUndefined();
    expect(subnetPlan(7000).problem).toMatch(/7000 agents need 8752 addresses in the fleet's subnets, which hold 8684/);
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
