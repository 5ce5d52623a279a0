// In-memory spend stores (#31) for unit tests: the control plane's count and the runtime's
// ledger, each step applied at once (nothing else runs between a read and its write here).
import { emptyTotals, type SpendTotals } from '../../budget/budget.ts';
import { emptyMonth, reserveIn, settleIn, type LedgerMonth, type ReserveRequest, type SettleRequest } from '../../budget/ledger.ts';
import { periodsAt } from '../../budget/periods.ts';
import type { SpendCounts, SpendLedger } from '../../ports.ts';

interface CountedMonth {
  spentMicros: number;
  days: Map<string, number>;
  alerted: Set<string>;
}

export class InMemorySpendCounts implements SpendCounts {
  readonly months = new Map<string, CountedMonth>();
  readonly usageIds = new Set<string>();

  private month(agentId: string, at: number): CountedMonth {
    const key = `${agentId}#${periodsAt(at).month}`;
    let m = this.months.get(key);
    if (!m) this.months.set(key, (m = { spentMicros: 0, days: new Map(), alerted: new Set() }));
    return m;
  }

  async add(agentId: string, usageId: string, micros: number, at: number) {
    const key = `${agentId}#${usageId}`;
    const counted = !this.usageIds.has(key);
    if (counted) {
      this.usageIds.add(key);
      const m = this.month(agentId, at);
      const day = periodsAt(at).dayOfMonth;
      m.spentMicros += micros;
      m.days.set(day, (m.days.get(day) ?? 0) + micros);
    }
    return { counted, totals: await this.totals(agentId, at) };
  }

  async totals(agentId: string, at: number): Promise<SpendTotals> {
    const m = this.months.get(`${agentId}#${periodsAt(at).month}`);
    const empty = emptyTotals(at);
    if (!m) return empty;
    return { ...empty, dayMicros: m.days.get(periodsAt(at).dayOfMonth) ?? 0, monthMicros: m.spentMicros, alerted: [...m.alerted].sort() };
  }

  async markAlerted(agentId: string, key: string, at: number) {
    const m = this.month(agentId, at);
    if (m.alerted.has(key)) return false;
    m.alerted.add(key);
    return true;
  }
}

export class InMemorySpendLedger implements SpendLedger {
  readonly months = new Map<string, LedgerMonth>();

  private get(agentId: string, month: string): LedgerMonth {
    return this.months.get(`${agentId}#${month}`) ?? emptyMonth(month);
  }

  async reserve(agentId: string, req: ReserveRequest) {
    const month = periodsAt(req.at).month;
    const { state, outcome } = reserveIn(this.get(agentId, month), req);
    this.months.set(`${agentId}#${month}`, state);
    return outcome;
  }

  async settle(agentId: string, req: SettleRequest) {
    const { state, settled } = settleIn(this.get(agentId, req.month), req);
    this.months.set(`${agentId}#${req.month}`, state);
    return settled;
  }

  async month(agentId: string, month: string) {
    return structuredClone(this.get(agentId, month));
  }
}
