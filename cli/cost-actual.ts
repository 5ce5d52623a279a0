// `clawfleet cost --actual`: the deployed fleet's bill per agent beside its estimate — last
// month and this month so far, from Cost Explorer by the fleet's cost allocation tags
// (shared/cost/actual-cost.ts decides what to ask and how to read it). When the tags are not
// active in billing, or Cost Explorer is off, it says exactly what to do instead.
import { COST_TAGS } from '../shared/config/names.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { agentCostRows, billIsEmpty, costSpan, tagAdvice, type AgentCostRow } from '../shared/cost/actual-cost.ts';
import { CostReportsUnavailable, type CostReports } from '../shared/ports.ts';
import { awsSettings } from './aws-env.ts';
import { awsErrorText } from './aws-errors.ts';
import { CliError, EXIT, table, type CliIO } from './command.ts';
import type { CostEstimate } from './cost-estimate.ts';
import type { AwsSettings } from './aws-env.ts';

/** What `--actual` reads, and today's date; tests give their own. */
export interface CostDeps {
  reports?(aws: AwsSettings): CostReports;
  today?(): string;
}

const UNAVAILABLE: Record<CostReportsUnavailable['reason'], string> = {
  'not-enabled':
    'Cost Explorer is not enabled for this account: enable it once in the Billing and Cost Management console ("Cost Explorer", then "Launch Cost Explorer"); its data appears within 24 hours',
  'no-data': 'Cost Explorer has no data for this period yet (an account or Cost Explorer enabled within the last 24 hours): try again tomorrow',
  denied:
    'these credentials may not read the bill: they need ce:GetCostAndUsage and ce:ListCostAllocationTags (in an AWS Organization, a member account reads its bill only if the management account lets it)',
};

export async function printActualCost(config: FleetConfig, e: CostEstimate, io: CliIO, deps: CostDeps): Promise<number> {
  const reports = await costReports(io, deps);
  const span = costSpan(deps.today?.() ?? new Date().toISOString().slice(0, 10));
  const fleet = config.fleet;
  try {
    const advice = tagAdvice(await reports.tagStatus(Object.values(COST_TAGS)));
    if (advice) {
      io.err(`clawfleet cost --actual: the bill cannot be read per agent yet.\n${advice}`);
      return EXIT.failed;
    }
    const bill = await reports.monthlyCostsByTag({
      start: span.start,
      end: span.end,
      filter: { key: COST_TAGS.fleet, value: fleet },
      groupBy: COST_TAGS.agent,
    });
    const estimates: Record<string, number> = Object.fromEntries(e.agents.map((a) => [a.id, a.configured]));
    estimates[''] = e.total - e.computeConfigured;
    const rows = agentCostRows(
      e.agents.map((a) => a.id),
      estimates,
      span,
      bill.periods,
    );
    const current = bill.periods.find((p) => p.start.startsWith(span.thisMonth));
    const last = bill.periods.find((p) => p.start.startsWith(span.lastMonth));
    const figure = (n: number | undefined) => (n === undefined ? '—' : bill.currency === 'USD' ? `$${n.toFixed(2)}` : `${n.toFixed(2)} ${bill.currency}`);
    const head = [
      'AGENT',
      'ESTIMATE/MONTH',
      `${span.lastMonth}${last?.estimated ? ' (not final)' : ''}`,
      span.end.endsWith('-01') ? `${span.thisMonth} (no full day yet)` : `${span.thisMonth} so far (not final)`,
    ];
    const sum = (pick: (r: AgentCostRow) => number | undefined) => rows.reduce((s, r) => s + (pick(r) ?? 0), 0);
    io.out(
      `Actual cost of fleet "${fleet}" from the bill (Cost Explorer, unblended, ${bill.currency}): resources tagged ${COST_TAGS.fleet}=${fleet}, by ${COST_TAGS.agent}\n`,
    );
    io.out(
      table([
        head,
        ...rows.map((r) => [
          r.agentId === '' ? 'control plane, shared' : r.listed ? r.agentId : `${r.agentId} (not in the config)`,
          figure(r.estimate),
          figure(r.lastMonth),
          current ? figure(r.thisMonth) : '—',
        ]),
        ['total', figure(sum((r) => r.estimate)), figure(last ? sum((r) => r.lastMonth) : undefined), current ? figure(sum((r) => r.thisMonth)) : '—'],
      ]),
    );
    if (billIsEmpty(bill.periods))
      io.out(
        `\nThe bill shows nothing tagged ${COST_TAGS.fleet}=${fleet} from ${span.start}: a tag counts only from its activation (up to 24 hours; ask for a backfill with ` +
          '`aws ce start-cost-allocation-tag-backfill --backfill-from <date>`), a fleet deployed before this version carries no tags until it is deployed again, and the bill lags about a day.',
      );
    io.out(
      `\nThe estimate is \`clawfleet cost\` as configured (its options set its assumptions); an agent's row holds its compute, the shared row everything else. ` +
        `The bill counts what ran, with its own lag of about a day; it names an agent's share only for resources tagged with it (its task, queues, secret, logs), so the shared row also holds what agents use together.`,
    );
    return EXIT.ok;
  } catch (err) {
    if (err instanceof CostReportsUnavailable) throw new CliError(EXIT.failed, `${UNAVAILABLE[err.reason]} (${err.message})`);
    throw new CliError(EXIT.failed, awsErrorText('cannot read the bill from Cost Explorer', err));
  }
}

async function costReports(io: CliIO, deps: CostDeps): Promise<CostReports> {
  const aws = awsSettings(io);
  if (deps.reports) return deps.reports(aws);
  // The SDK loads only for --actual.
  const { CostExplorerReports, costExplorerClient } = await import('../shared/adapters/aws/cost-explorer-reports.ts');
  return new CostExplorerReports(costExplorerClient(aws));
}
