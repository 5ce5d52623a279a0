// The bill by tag, from Cost Explorer (the CostReports port): which cost allocation tags are
// active (ListCostAllocationTags) and the unblended cost per month grouped by a tag
// (GetCostAndUsage, all pages). Cost Explorer answers in us-east-1 for the whole account,
// whatever region the fleet is in; each request costs $0.01. Its refusals become
// CostReportsUnavailable with the reason the operator can act on.
import { CostExplorerClient, GetCostAndUsageCommand, ListCostAllocationTagsCommand, type ResultByTime } from '@aws-sdk/client-cost-explorer';
import { CostReportsUnavailable, type CostReports, type CostTagStatus, type TaggedCostPeriod } from '../../ports.ts';
import type { AwsClientConfig } from './clients.ts';

/** Cost Explorer's one endpoint is in us-east-1 (an emulator's endpoint, when given, is kept). */
export const costExplorerClient = (config: AwsClientConfig = {}) => new CostExplorerClient({ ...config, region: 'us-east-1', maxAttempts: 3 });

export class CostExplorerReports implements CostReports {
  constructor(private readonly ce: CostExplorerClient) {}

  async tagStatus(keys: string[]): Promise<Record<string, CostTagStatus>> {
    const status: Record<string, CostTagStatus> = Object.fromEntries(keys.map((k) => [k, 'unseen' as const]));
    let NextToken: string | undefined;
    do {
      const page = await this.call(() => this.ce.send(new ListCostAllocationTagsCommand({ TagKeys: keys, Type: 'UserDefined', NextToken })));
      for (const tag of page.CostAllocationTags ?? [])
        if (tag.TagKey && tag.TagKey in status) status[tag.TagKey] = tag.Status === 'Active' ? 'active' : 'inactive';
      NextToken = page.NextToken;
    } while (NextToken);
    return status;
  }

  async monthlyCostsByTag(q: { start: string; end: string; filter: { key: string; value: string }; groupBy: string }) {
    const periods = new Map<string, TaggedCostPeriod>();
    let currency = 'USD';
    let NextPageToken: string | undefined;
    do {
      const page = await this.call(() =>
        this.ce.send(
          new GetCostAndUsageCommand({
            TimePeriod: { Start: q.start, End: q.end },
            Granularity: 'MONTHLY',
            Metrics: ['UnblendedCost'],
            Filter: { Tags: { Key: q.filter.key, Values: [q.filter.value], MatchOptions: ['EQUALS'] } },
            GroupBy: [{ Type: 'TAG', Key: q.groupBy }],
            NextPageToken,
          }),
        ),
      );
      for (const r of page.ResultsByTime ?? []) {
        const period = periodOf(r, periods);
        for (const g of r.Groups ?? []) {
          const cost = g.Metrics?.UnblendedCost;
          // A group's key is "<tag key>$<value>"; "<tag key>$" holds what lacks the tag.
          const key = g.Keys?.[0] ?? '';
          const value = key.startsWith(`${q.groupBy}$`) ? key.slice(q.groupBy.length + 1) : key;
          period.byTag[value] = (period.byTag[value] ?? 0) + Number(cost?.Amount ?? 0);
          if (cost?.Unit) currency = cost.Unit;
        }
      }
      NextPageToken = page.NextPageToken;
    } while (NextPageToken);
    return { currency, periods: [...periods.values()].sort((a, b) => a.start.localeCompare(b.start)) };
  }

  private async call<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      const { name = '', message = '' } = err as Error;
      if (name === 'DataUnavailableException') throw new CostReportsUnavailable('no-data', message || 'Cost Explorer has no data for this period yet');
      if (name === 'AccessDeniedException' && /not enabled/i.test(message)) throw new CostReportsUnavailable('not-enabled', message);
      if (name === 'AccessDeniedException' || name === 'AccessDenied' || name === 'UnauthorizedOperation')
        throw new CostReportsUnavailable('denied', message || name);
      throw err;
    }
  }
}

/** The period a result is for (pages may repeat one: its groups are added up). */
function periodOf(r: ResultByTime, periods: Map<string, TaggedCostPeriod>): TaggedCostPeriod {
  const start = r.TimePeriod?.Start ?? '';
  let period = periods.get(start);
  if (!period) periods.set(start, (period = { start, end: r.TimePeriod?.End ?? '', estimated: r.Estimated === true, byTag: {} }));
  return period;
}
