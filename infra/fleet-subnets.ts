// How many addresses the runtimes of a fleet need, and the subnets that hold them: CIDR math
// from the agent count. Each running task (an agent's runtime, or one of its one-off tasks
// while the runtime is stopped) takes one address of a public subnet; with one task per agent
// at most and a quarter spare, a fleet needs 1.25 addresses per agent. The VPC's first group,
// two /24s (251 usable each: AWS keeps 5), holds the workspaces' mount targets and a fleet of
// up to 400 agents; a larger fleet gets a second group of two /20s, made after the first so
// nothing existing is replaced (a replaced subnet would take the mount targets and the
// running tasks' addresses with it). Agent stacks run their tasks in every subnet of both.
import type { FleetConfig } from '../shared/config/schema.ts';

export const VPC_CIDR = '10.0.0.0/16';
/** One subnet of each group in each of two availability zones. */
export const AVAILABILITY_ZONES = 2;
/** Addresses AWS keeps in every subnet (network, router, DNS, future, broadcast). */
const AWS_RESERVED = 5;
/** Addresses each agent may need at once, with a quarter spare for placement that is not even across the two zones. */
const ADDRESSES_PER_AGENT = 1.25;

export interface SubnetGroup {
  /** CDK's subnet group name: `public` holds the mount targets. */
  name: 'public' | 'runtimes';
  cidrMask: number;
}

/** The first group, always there: the mount targets, and a small fleet's tasks. */
const PUBLIC: SubnetGroup = { name: 'public', cidrMask: 24 };
/** The second, for fleets the first cannot hold: two /20s, 8,182 addresses. */
const RUNTIMES: SubnetGroup = { name: 'runtimes', cidrMask: 20 };

const usable = (g: SubnetGroup) => AVAILABILITY_ZONES * (2 ** (32 - g.cidrMask) - AWS_RESERVED);

export interface SubnetPlan {
  groups: SubnetGroup[];
  /** Subnets the runtimes run in (every subnet of every group). */
  subnets: number;
  /** Addresses the fleet needs, and what the subnets hold. */
  needed: number;
  holds: number;
}

/** The subnets a fleet of `agentCount` agents runs in; `problem` when even both groups are too small. */
export function subnetPlan(agentCount: number): SubnetPlan & { problem?: string } {
  // The mount targets take one address of a public subnet each.
  const needed = Math.ceil(agentCount * ADDRESSES_PER_AGENT) + AVAILABILITY_ZONES;
  const groups = needed <= usable(PUBLIC) ? [PUBLIC] : [PUBLIC, RUNTIMES];
  const holds = groups.reduce((sum, g) => sum + usable(g), 0);
  const plan = { groups, subnets: groups.length * AVAILABILITY_ZONES, needed, holds };
  return needed <= holds
    ? plan
    : { ...plan, problem: `${agentCount} agents need ${needed} addresses in the fleet's subnets, which hold ${holds} (two /24 and two /20 subnets)` };
}

export const fleetSubnetPlan = (config: FleetConfig) => subnetPlan(config.agents.list.length);
