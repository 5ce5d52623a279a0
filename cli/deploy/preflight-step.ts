// `clawfleet deploy`'s preflight, for its step and for --plan: which of the fleet's stacks
// exist, the account's figures (through the AccountQuotas port), the findings
// (shared/deploy/preflight.ts), and the reserved concurrency the app will be told to size
// (infra/reserved-concurrency.ts). After synth, the IAM roles the new stacks' templates make.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { planReservedConcurrency } from '../../infra/reserved-concurrency.ts';
import { agentStackName, controlPlaneStackName, functionName } from '../../shared/config/names.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { findingLines, preflight, readAccountFigures, type AccountFigures, type DeployedState, type PreflightResult } from '../../shared/deploy/preflight.ts';
import type { AccountQuotas } from '../../shared/ports.ts';
import { TOOLKIT_STACK, type DeployAccountPort } from './aws-account.ts';

export interface QuotaCheck extends PreflightResult {
  deployed: DeployedState;
  figures: AccountFigures;
  /** The findings as printed, one or more lines each. */
  lines: string[];
  blocking: number;
  warnings: number;
}

/** What the operator's --context says of reserved concurrency: a figure to use as given, or none at all. */
export function concurrencyContext(context: string[]): { lambdaConcurrency?: number; reservedConcurrency: boolean } {
  const value = (key: string) => context.findLast((c) => c.startsWith(`${key}=`))?.slice(key.length + 1);
  const given = value('lambdaConcurrency');
  return {
    ...(given !== undefined && /^\d+$/.test(given) ? { lambdaConcurrency: Number(given) } : {}),
    reservedConcurrency: value('reservedConcurrency') !== 'false',
  };
}

export async function checkQuotas(config: FleetConfig, account: DeployAccountPort, quotas: AccountQuotas, context: string[]): Promise<QuotaCheck> {
  const fleet = config.fleet;
  const exists = async (name: string) => (await account.stack(name)) !== undefined;
  const agents = await Promise.all(config.agents.list.map(async (a) => ((await exists(agentStackName(fleet, a.id))) ? a.id : undefined)));
  const deployed: DeployedState = {
    controlPlane: await exists(controlPlaneStackName(fleet)),
    agents: agents.filter((a): a is string => a !== undefined),
    toolkit: await exists(TOOLKIT_STACK),
  };
  const given = concurrencyContext(context);
  // The functions this config reserves for: what they reserve now is the fleet's own to reserve again.
  const reserving = Object.keys(planReservedConcurrency(config, Number.MAX_SAFE_INTEGER).reserved).map((h) => functionName(fleet, h));
  const figures = await readAccountFigures(quotas, reserving);
  const result = preflight(config, deployed, figures, {
    region: account.aws.region,
    reservations: (available) => planReservedConcurrency(config, available, given.reservedConcurrency),
    givenLambdaConcurrency: given.lambdaConcurrency,
    reservedConcurrency: given.reservedConcurrency,
  });
  return {
    ...result,
    deployed,
    figures,
    lines: result.findings.flatMap(findingLines),
    blocking: result.findings.filter((f) => f.level === 'blocking').length,
    warnings: result.findings.filter((f) => f.level === 'warning').length,
  };
}

/** The IAM roles each stack of a synthesized cloud assembly makes, by stack name. */
export function assemblyRoles(dir: string): Map<string, number> {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
    artifacts?: Record<string, { type?: string; properties?: { stackName?: string; templateFile?: string } }>;
  };
  const roles = new Map<string, number>();
  for (const [id, a] of Object.entries(manifest.artifacts ?? {})) {
    if (a.type !== 'aws:cloudformation:stack' || !a.properties?.templateFile) continue;
    const template = JSON.parse(readFileSync(join(dir, a.properties.templateFile), 'utf8')) as { Resources?: Record<string, { Type?: string }> };
    roles.set(a.properties.stackName ?? id, Object.values(template.Resources ?? {}).filter((r) => r.Type === 'AWS::IAM::Role').length);
  }
  return roles;
}
