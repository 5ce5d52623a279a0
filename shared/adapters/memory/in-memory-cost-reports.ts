// A bill in memory, for unit tests of `clawfleet cost --actual`: tag states and the cost per
// month and tag value, as Cost Explorer would return them; or a refusal.
import type { CostReports, CostReportsUnavailable, CostTagStatus, TaggedCostPeriod } from '../../ports.ts';

export class InMemoryCostReports implements CostReports {
  readonly asked: { start: string; end: string; filter: { key: string; value: string }; groupBy: string }[] = [];
  constructor(
    private readonly bill: {
      tags: Record<string, CostTagStatus>;
      periods?: TaggedCostPeriod[];
      currency?: string;
      refuse?: CostReportsUnavailable;
    },
  ) {}

  async tagStatus(keys: string[]): Promise<Record<string, CostTagStatus>> {
    if (this.bill.refuse) throw this.bill.refuse;
    return Object.fromEntries(keys.map((k) => [k, this.bill.tags[k] ?? 'unseen']));
  }

  async monthlyCostsByTag(q: { start: string; end: string; filter: { key: string; value: string }; groupBy: string }) {
    this.asked.push(q);
    if (this.bill.refuse) throw this.bill.refuse;
    return { currency: this.bill.currency ?? 'USD', periods: (this.bill.periods ?? []).filter((p) => p.start >= q.start && p.start < q.end) };
  }
}
