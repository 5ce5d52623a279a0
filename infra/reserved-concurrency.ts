// How much Lambda concurrency the control plane reserves, as a pure function of the fleet config
// and what the account can give: the CDK app sizes the functions with it, and `clawfleet deploy`
// (its plan and preflight) can show the same figures without loading CDK.
import type { FleetConfig } from '../shared/config/schema.ts';

/**
 * What Lambda keeps unreserved in every account: a function's reservation is refused if it
 * would leave the account fewer than 100 unreserved executions (Lambda Developer Guide,
 * "Configuring reserved concurrency").
 */
export const LAMBDA_UNRESERVED_MINIMUM = 100;

/**
 * The functions that reserve concurrency, what each reserves, and whether the fleet deploys
 * it. A reservation is both a floor and a ceiling: on the public URLs the ceiling caps a
 * flood (refused with 429, which Telegram retries) before it takes the account's
 * concurrency from outbox and cron-dispatch; λ compute's single one makes ECS changes mostly
 * happen one at a time (correctness does not depend on it).
 */
const RESERVATIONS: readonly { name: string; reserve: number; deployed: (config: FleetConfig) => boolean }[] = [
  // An update takes tens of milliseconds, so 10 instances answer hundreds a second.
  { name: 'telegram-webhook', reserve: 10, deployed: (config) => config.channels.telegram !== undefined },
  { name: 'hooks', reserve: 5, deployed: (config) => config.hooks !== undefined },
  // One operator's browser (a page, its refreshes and actions).
  { name: 'dashboard', reserve: 5, deployed: () => true },
  { name: 'compute', reserve: 1, deployed: () => true },
];

export interface ReservedConcurrencyPlan {
  /** Per function name, what it reserves; empty when nothing is reserved. */
  reserved: Record<string, number>;
  /** What the fleet's functions would reserve, all together. */
  wanted: number;
  /** The least account concurrency that lets them: wanted + Lambda's unreserved minimum. */
  needed: number;
  /** The account concurrency the plan was made for; undefined when it was not given. */
  available: number | undefined;
  /** One line for the synth output and the deploy plan: what is reserved, or why nothing is. */
  summary: string;
}

/**
 * The reservations for this fleet on an account that can give `available` concurrent
 * executions to it (the account's ConcurrentExecutions quota, less what functions outside the
 * fleet reserve). All or nothing: either every function gets its reservation and Lambda keeps
 * its 100, or none reserves (everything shares the pool) — a deploy never asks for more than
 * the account can give. Unknown (`undefined`) reserves nothing too: a new account's quota is
 * often 10, and a refused reservation fails the control plane's first deploy.
 */
export function planReservedConcurrency(config: FleetConfig, available: number | undefined, allowed = true): ReservedConcurrencyPlan {
  const deployed = RESERVATIONS.filter((r) => r.deployed(config));
  const wanted = deployed.reduce((sum, r) => sum + r.reserve, 0);
  const needed = wanted + LAMBDA_UNRESERVED_MINIMUM;
  const list = deployed.map((r) => `${r.name} ${r.reserve}`).join(', ');
  const none = (why: string): ReservedConcurrencyPlan => ({ reserved: {}, wanted, needed, available, summary: `reserved concurrency: none (${why})` });
  if (!allowed) return none('reservedConcurrency=false');
  if (available === undefined)
    return none(`the account's Lambda concurrency was not given; with -c lambdaConcurrency=<n> of at least ${needed} the fleet reserves ${list}`);
  if (available < needed)
    return none(
      `the account gives ${available} concurrent executions; reserving ${wanted} (${list}) needs ${needed}, since Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM} unreserved. ` +
        'Raise the quota "Concurrent executions" (Service Quotas, AWS Lambda) to reserve',
    );
  return {
    reserved: Object.fromEntries(deployed.map((r) => [r.name, r.reserve])),
    wanted,
    needed,
    available,
    summary: `reserved concurrency: ${list} (${wanted} of the account's ${available}; ${available - wanted} left unreserved)`,
  };
}
