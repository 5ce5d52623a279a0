// The deploy's preflight: what the fleet needs of each account quota it could cross, against
// what the account has, before anything is created — so a new account's small quotas stop
// the deploy with a line saying how to raise each, instead of a stack that fails and rolls
// back leaving its retained file system and buckets behind. Pure: the account's figures come
// in (readAccountFigures reads them through the AccountQuotas port), findings go out.
import { resolveAgent } from '../config/resolve.ts';
import type { FleetConfig } from '../config/schema.ts';
import type { AccountQuotas } from '../ports.ts';

/** A quota as Service Quotas names it, with its codes. */
export interface Quota {
  service: string;
  serviceCode: string;
  quotaCode: string;
  name: string;
  /** Account-wide (IAM): asked about, and raised, in us-east-1. */
  global?: boolean;
}

/** Every quota the preflight checks; the codes are Service Quotas'. */
export const QUOTAS = {
  lambdaConcurrency: { service: 'AWS Lambda', serviceCode: 'lambda', quotaCode: 'L-B99A9384', name: 'Concurrent executions' },
  fargateOnDemand: { service: 'AWS Fargate', serviceCode: 'fargate', quotaCode: 'L-3032A538', name: 'Fargate On-Demand vCPU resource count' },
  fargateSpot: { service: 'AWS Fargate', serviceCode: 'fargate', quotaCode: 'L-36FBB829', name: 'Fargate Spot vCPU resource count' },
  iamRoles: { service: 'IAM', serviceCode: 'iam', quotaCode: 'L-FE177D64', name: 'Roles per account', global: true },
  stacks: { service: 'AWS CloudFormation', serviceCode: 'cloudformation', quotaCode: 'L-0485CB21', name: 'Stack count' },
  vpcs: { service: 'Amazon VPC', serviceCode: 'vpc', quotaCode: 'L-F678F1CE', name: 'VPCs per Region' },
  internetGateways: { service: 'Amazon VPC', serviceCode: 'vpc', quotaCode: 'L-A4707A72', name: 'Internet gateways per Region' },
} as const satisfies Record<string, Quota>;

/** A figure read from the account, or why it could not be. */
export type Read<T> = { value: T } | { error: string };

export interface AccountFigures {
  /** `fleetReserved`: what the fleet's own functions reserve now (a redeploy gets it back). */
  lambda: Read<{ limit: number; unreserved: number; fleetReserved: number }>;
  fargateOnDemand: Read<number>;
  fargateSpot: Read<number>;
  iamRoles: Read<{ used: number; quota: number }>;
  stacks: Read<{ used: number; quota: number }>;
  vpcs: Read<{ used: number; quota: number }>;
  internetGateways: Read<{ used: number; quota: number }>;
}

/** What is deployed of the fleet already: what a deploy adds is what is not. */
export interface DeployedState {
  controlPlane: boolean;
  agents: string[];
  /** The CDK bootstrap stack (one more stack when missing). */
  toolkit: boolean;
}

export interface Finding {
  level: 'ok' | 'warning' | 'blocking';
  quota: Quota;
  text: string;
  /** How to raise it, where raising helps: the command, and the console page. */
  raise?: { command: string; console: string };
}

/** What the app reserves of the account's Lambda concurrency for a figure (infra/reserved-concurrency.ts). */
export interface ReservationPlan {
  reserved: Record<string, number>;
  needed: number;
  summary: string;
}

export interface PreflightResult {
  findings: Finding[];
  /** The figure synth gets as `lambdaConcurrency`; undefined when it could not be read (nothing is then reserved). */
  lambdaConcurrency: number | undefined;
}

const fmt = (n: number) => String(Math.round(n * 100) / 100);

/** The command and console page that raise `quota` to `desired` in `region`. */
export function raiseQuota(quota: Quota, desired: number, region: string): { command: string; console: string } {
  const where = quota.global ? 'us-east-1' : region;
  return {
    command: `aws service-quotas request-service-quota-increase --service-code ${quota.serviceCode} --quota-code ${quota.quotaCode} --desired-value ${Math.ceil(desired)} --region ${where}`,
    console: `https://${where}.console.aws.amazon.com/servicequotas/home/services/${quota.serviceCode}/quotas/${quota.quotaCode}`,
  };
}

/** Reads every figure the preflight needs; a figure that cannot be read is kept as its error. */
export async function readAccountFigures(port: AccountQuotas, fleetFunctions: string[]): Promise<AccountFigures> {
  const read = async <T>(f: () => Promise<T>): Promise<Read<T>> => {
    try {
      return { value: await f() };
    } catch (err) {
      const e = err as { name?: string; message?: string };
      return { error: `${e.name ?? 'Error'}${e.message && e.message !== e.name ? `: ${e.message}` : ''}` };
    }
  };
  const quota = (q: Quota) => read(() => port.serviceQuota(q.serviceCode, q.quotaCode));
  const [lambda, fargateOnDemand, fargateSpot, iamRoles, stackQuota, stackCount, network, vpcQuota, igwQuota] = await Promise.all([
    read(async () => ({ ...(await port.lambdaConcurrency()), fleetReserved: await port.reservedConcurrency(fleetFunctions) })),
    quota(QUOTAS.fargateOnDemand),
    quota(QUOTAS.fargateSpot),
    read(() => port.iamRoles()),
    quota(QUOTAS.stacks),
    read(() => port.stackCount()),
    read(() => port.networkCounts()),
    quota(QUOTAS.vpcs),
    quota(QUOTAS.internetGateways),
  ]);
  const pair = (used: Read<number>, limit: Read<number>): Read<{ used: number; quota: number }> =>
    'error' in used ? used : 'error' in limit ? limit : { value: { used: used.value, quota: limit.value } };
  const networkPart = (k: 'vpcs' | 'internetGateways'): Read<number> => ('error' in network ? network : { value: network.value[k] });
  return {
    lambda,
    fargateOnDemand,
    fargateSpot,
    iamRoles,
    stacks: pair(stackCount, stackQuota),
    vpcs: pair(networkPart('vpcs'), vpcQuota),
    internetGateways: pair(networkPart('internetGateways'), igwQuota),
  };
}

export interface PreflightOptions {
  region: string;
  /** The app's reservation plan for a figure (planReservedConcurrency with the config). */
  reservations(available: number | undefined): ReservationPlan;
  /** A `lambdaConcurrency` the operator gave with --context: used as given. */
  givenLambdaConcurrency?: number | undefined;
  /** False when the operator said `reservedConcurrency=false`: nothing to raise for. */
  reservedConcurrency: boolean;
}

/** Every finding the config alone decides (IAM roles wait for the templates: rolesFinding). */
export function preflight(config: FleetConfig, deployed: DeployedState, figures: AccountFigures, opts: PreflightOptions): PreflightResult {
  const lambda = lambdaFinding(figures.lambda, opts);
  const findings = [
    lambda.finding,
    ...fargateFindings(config, figures, opts.region),
    countFinding(
      QUOTAS.stacks,
      figures.stacks,
      (deployed.controlPlane ? 0 : 1) + config.agents.list.filter((a) => !deployed.agents.includes(a.id)).length + (deployed.toolkit ? 0 : 1),
      'stacks (the control plane, one per agent, and the CDK bootstrap stack)',
      opts.region,
    ),
    countFinding(QUOTAS.vpcs, figures.vpcs, deployed.controlPlane ? 0 : 1, 'VPC (the control plane’s)', opts.region),
    countFinding(QUOTAS.internetGateways, figures.internetGateways, deployed.controlPlane ? 0 : 1, 'internet gateway (its VPC’s)', opts.region),
  ];
  return { findings, lambdaConcurrency: lambda.concurrency };
}

function unread(quota: Quota, error: string, check: string, extra = ''): Finding {
  return { level: 'warning', quota, text: `could not be read (${error}); not checked${extra}. Check it by hand: ${check}` };
}

function lambdaFinding(figure: AccountFigures['lambda'], opts: PreflightOptions): { finding: Finding; concurrency: number | undefined } {
  const q = QUOTAS.lambdaConcurrency;
  if (opts.givenLambdaConcurrency !== undefined) {
    const plan = opts.reservations(opts.givenLambdaConcurrency);
    return {
      finding: { level: 'ok', quota: q, text: `lambdaConcurrency=${opts.givenLambdaConcurrency} as given with --context: ${plan.summary}` },
      concurrency: opts.givenLambdaConcurrency,
    };
  }
  if ('error' in figure) {
    const plan = opts.reservations(undefined);
    return {
      finding: unread(q, figure.error, 'aws lambda get-account-settings', `, so nothing is reserved (${plan.summary.replace(/^reserved concurrency: /, '')})`),
      concurrency: undefined,
    };
  }
  const { limit, unreserved, fleetReserved } = figure.value;
  // The quota less what functions outside the fleet reserve: what the fleet may reserve from.
  const available = unreserved + fleetReserved;
  const plan = opts.reservations(available);
  const others = limit !== available ? `; ${limit - available} of the account's ${limit} are reserved by other functions` : '';
  const told = `; synth is told lambdaConcurrency=${available}`;
  if (Object.keys(plan.reserved).length || available >= plan.needed || !opts.reservedConcurrency)
    return { finding: { level: 'ok', quota: q, text: `${plan.summary}${others}${told}` }, concurrency: available };
  return {
    finding: {
      level: 'warning',
      quota: q,
      text:
        `${plan.summary}${others}${told}. The fleet deploys, its functions sharing what is unreserved: a flood of webhook or dashboard requests can then hold back outbox and cron-dispatch. ` +
        `A quota of ${limit - available + plan.needed} lets it reserve`,
      raise: raiseQuota(q, limit - available + plan.needed, opts.region),
    },
    concurrency: available,
  };
}

/** The vCPUs the fleet's tasks run on one capacity (Spot or on demand). */
function vcpus(config: FleetConfig, spot: boolean) {
  const agents = config.agents.list
    .map((a) => ({ id: a.id, runtime: resolveAgent(config, a.id).runtime }))
    .filter((a) => (a.runtime.spot === true) === spot)
    .map((a) => ({ id: a.id, cpus: a.runtime.cpus ?? 0.25, alwaysOn: a.runtime.alwaysOn === true }));
  const alwaysOn = agents.filter((a) => a.alwaysOn);
  const hibernating = agents.filter((a) => !a.alwaysOn).sort((a, b) => b.cpus - a.cpus);
  const sum = (xs: { cpus: number }[]) => xs.reduce((s, a) => s + a.cpus, 0);
  return { agents, alwaysOn, largest: hibernating[0], run: sum(alwaysOn) + (hibernating[0]?.cpus ?? 0), all: sum(agents) };
}

/**
 * Fargate vCPUs: blocking when the always-on agents and the largest hibernating one cannot run
 * at once (an always-on service never becomes stable, and the stack fails; or no other agent
 * can ever wake); a warning when all agents awake at once would not fit — the largest awake
 * set that is plausible, since a cron job or a broadcast can wake every agent in one minute —
 * as the agents past it wait until others hibernate.
 */
function fargateFindings(config: FleetConfig, figures: AccountFigures, region: string): Finding[] {
  return ([false, true] as const).flatMap((spot) => {
    const q = spot ? QUOTAS.fargateSpot : QUOTAS.fargateOnDemand;
    const need = vcpus(config, spot);
    if (!need.agents.length) return [];
    const figure = spot ? figures.fargateSpot : figures.fargateOnDemand;
    if ('error' in figure) return [unread(q, figure.error, `aws service-quotas get-service-quota --service-code ${q.serviceCode} --quota-code ${q.quotaCode}`)];
    const quota = figure.value;
    const list = (xs: { id: string; cpus: number }[]) => xs.map((a) => `${a.id} ${fmt(a.cpus)}`).join(', ');
    const running = [
      need.alwaysOn.length ? `always on: ${list(need.alwaysOn)}` : '',
      need.largest ? `the largest that hibernates: ${list([need.largest])}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    const shared = 'other Fargate tasks in this account and region count against it too';
    if (quota < need.run)
      return [
        {
          level: 'blocking',
          quota: q,
          text: `the quota is ${fmt(quota)} vCPUs; the fleet needs ${fmt(need.run)} running at once (${running}), and ${fmt(need.all)} with all ${need.agents.length} awake; ${shared}`,
          raise: raiseQuota(q, need.all, region),
        },
      ];
    if (quota < need.all)
      return [
        {
          level: 'warning',
          quota: q,
          text: `all ${need.agents.length} agents awake at once (a cron job or a broadcast wakes them together) need ${fmt(need.all)} vCPUs, the quota is ${fmt(quota)}: past it an agent waits to wake until another hibernates; ${shared}`,
          raise: raiseQuota(q, need.all, region),
        },
      ];
    return [{ level: 'ok', quota: q, text: `all ${need.agents.length} agents awake at once need ${fmt(need.all)} vCPUs of ${fmt(quota)}; ${shared}` }];
  });
}

/** A quota counted in things the deploy adds: blocking when they do not fit. */
function countFinding(q: Quota, figure: Read<{ used: number; quota: number }>, adds: number, what: string, region: string): Finding {
  if ('error' in figure) return unread(q, figure.error, `aws service-quotas get-service-quota --service-code ${q.serviceCode} --quota-code ${q.quotaCode}`);
  const { used, quota } = figure.value;
  const text = `${used} of ${quota} in use; the deploy adds ${adds} ${what}`;
  if (used + adds > quota) return { level: 'blocking', quota: q, text: `${text}, ${used + adds - quota} too many`, raise: raiseQuota(q, used + adds, region) };
  return { level: 'ok', quota: q, text };
}

/** IAM roles, once the templates say how many the new stacks make. */
export function rolesFinding(figure: AccountFigures['iamRoles'], adds: number, region: string): Finding {
  const q = QUOTAS.iamRoles;
  if ('error' in figure) return unread(q, figure.error, 'aws iam get-account-summary (Roles, RolesQuota)');
  return countFinding(q, figure, adds, 'roles (counted in the new stacks’ templates)', region);
}

/** A finding as the deploy prints it: a mark, the quota's name and codes, what was found; how to raise it beneath. */
export function findingLines(f: Finding): string[] {
  const mark = f.level === 'ok' ? '✓' : f.level === 'warning' ? '!' : '✗';
  const lines = [`${mark} ${f.quota.service} "${f.quota.name}" (${f.quota.serviceCode} ${f.quota.quotaCode}): ${f.text}`];
  if (f.raise) lines.push(`    raise it: ${f.raise.command}`, `    or in the console: ${f.raise.console}`);
  return lines;
}
