// An account's quotas in memory, for unit tests of the deploy's preflight: each figure as the
// AWS APIs would give it, or an error to throw in its place (a service the account or the
// credentials cannot reach).
import type { AccountQuotas } from '../../ports.ts';

export interface AccountQuotaFigures {
  lambda: { limit: number; unreserved: number };
  /** What each function reserves now. */
  reservations: Record<string, number>;
  /** By `<serviceCode>/<quotaCode>`. */
  serviceQuotas: Record<string, number>;
  iamRoles: { used: number; quota: number };
  stacks: number;
  network: { vpcs: number; internetGateways: number };
}

export class InMemoryAccountQuotas implements AccountQuotas {
  /** Figures that throw instead: 'lambda', 'iamRoles', 'stacks', 'network', or a `<serviceCode>/<quotaCode>`. */
  readonly failing = new Map<string, Error>();
  constructor(readonly figures: AccountQuotaFigures) {}

  private check(what: string): void {
    const err = this.failing.get(what);
    if (err) throw err;
  }
  async lambdaConcurrency() {
    this.check('lambda');
    return this.figures.lambda;
  }
  async reservedConcurrency(functionNames: string[]) {
    this.check('lambda');
    return functionNames.reduce((s, n) => s + (this.figures.reservations[n] ?? 0), 0);
  }
  async serviceQuota(serviceCode: string, quotaCode: string) {
    const key = `${serviceCode}/${quotaCode}`;
    this.check(key);
    const value = this.figures.serviceQuotas[key];
    if (value === undefined) throw Object.assign(new Error(`no quota ${key}`), { name: 'NoSuchResourceException' });
    return value;
  }
  async iamRoles() {
    this.check('iamRoles');
    return this.figures.iamRoles;
  }
  async stackCount() {
    this.check('stacks');
    return this.figures.stacks;
  }
  async networkCounts() {
    this.check('network');
    return this.figures.network;
  }
}
