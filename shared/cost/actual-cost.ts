// What `clawfleet cost --actual` makes of the bill: the months it asks about (last month and
// this one so far), the bill's figures per agent beside the estimate, and what to do when the
// fleet's cost allocation tags are not active in billing. Pure: today's date comes in.
import { CONTROL_PLANE_COST_TAG, COST_TAGS } from '../config/names.ts';
import type { CostTagStatus, TaggedCostPeriod } from '../ports.ts';

/** The span asked of the bill: from the first of last month to today (exclusive: today is not over). */
export interface CostSpan {
  start: string;
  end: string;
  lastMonth: string;
  thisMonth: string;
}

/** `today` is an ISO date (YYYY-MM-DD) in UTC, as billing counts days. */
export function costSpan(today: string): CostSpan {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(today);
  if (!m) throw new Error(`not an ISO date: ${today}`);
  const [year, month] = [Number(m[1]), Number(m[2])];
  const last = month === 1 ? { y: year - 1, m: 12 } : { y: year, m: month - 1 };
  const ym = (y: number, mo: number) => `${y}-${String(mo).padStart(2, '0')}`;
  return { start: `${ym(last.y, last.m)}-01`, end: today, lastMonth: ym(last.y, last.m), thisMonth: ym(year, month) };
}

/** The agent tag's values that name no agent: the control plane's resources, and any left untagged. */
const SHARED = new Set(['', CONTROL_PLANE_COST_TAG]);

export interface AgentCostRow {
  /** An agent id; '' for what the fleet's resources cost under no agent (the control plane, shared services, untagged). */
  agentId: string;
  /** In the config now; false for an agent billed but since removed. */
  listed: boolean;
  estimate: number | undefined;
  lastMonth: number | undefined;
  thisMonth: number | undefined;
}

/**
 * One row per agent of the config (in its order), then agents the bill names that the config no
 * longer lists, then the fleet's untagged share. `estimates` holds each agent's monthly estimate
 * and '' the control plane's.
 */
export function agentCostRows(agentIds: string[], estimates: Record<string, number>, span: CostSpan, periods: TaggedCostPeriod[]): AgentCostRow[] {
  const month = (ym: string) => periods.find((p) => p.start.startsWith(ym));
  const [last, current] = [month(span.lastMonth), month(span.thisMonth)];
  const billed = new Set(periods.flatMap((p) => Object.keys(p.byTag)));
  const cost = (p: TaggedCostPeriod | undefined, agentId: string) =>
    p === undefined
      ? undefined
      : agentId === ''
        ? Object.entries(p.byTag).reduce((sum, [tag, v]) => sum + (SHARED.has(tag) ? v : 0), 0)
        : (p.byTag[agentId] ?? 0);
  const row = (agentId: string, listed: boolean): AgentCostRow => ({
    agentId,
    listed,
    estimate: estimates[agentId],
    lastMonth: cost(last, agentId),
    thisMonth: cost(current, agentId),
  });
  const gone = [...billed].filter((id) => !SHARED.has(id) && !agentIds.includes(id)).sort();
  return [...agentIds.map((id) => row(id, true)), ...gone.map((id) => row(id, false)), row('', true)];
}

/** Whether the bill shows nothing at all for the fleet: no period names any cost. */
export function billIsEmpty(periods: TaggedCostPeriod[]): boolean {
  return periods.every((p) => Object.values(p.byTag).every((v) => v === 0));
}

/** The command that activates the fleet's cost allocation tags, for the account's management (payer) account. */
export const ACTIVATE_TAGS_COMMAND = `aws ce update-cost-allocation-tags-status --cost-allocation-tags-status ${Object.values(COST_TAGS)
  .map((k) => `TagKey=${k},Status=Active`)
  .join(' ')}`;

/**
 * What to do before the bill can be read by agent: undefined when both tags are active.
 * A tag billing has not seen yet cannot be activated until it has (up to 24 hours after a
 * resource first carries it); activation counts from then on, unless backfilled.
 */
export function tagAdvice(status: Record<string, CostTagStatus>): string | undefined {
  const keys = Object.values(COST_TAGS);
  const unseen = keys.filter((k) => (status[k] ?? 'unseen') === 'unseen');
  const inactive = keys.filter((k) => status[k] === 'inactive');
  if (!unseen.length && !inactive.length) return undefined;
  const lines: string[] = [];
  if (inactive.length)
    lines.push(
      `the cost allocation tag${inactive.length > 1 ? 's' : ''} ${inactive.join(' and ')} ${inactive.length > 1 ? 'are' : 'is'} not activated: billing does not group costs by ${inactive.length > 1 ? 'them' : 'it'}. Activate ${inactive.length > 1 ? 'them' : 'it'} in the management (payer) account — Billing console, "Cost allocation tags", or:`,
      `  ${ACTIVATE_TAGS_COMMAND}`,
    );
  if (unseen.length)
    lines.push(
      `billing has not seen the tag${unseen.length > 1 ? 's' : ''} ${unseen.join(' and ')} on any resource yet: deploy the fleet with this version (every resource is tagged), wait up to 24 hours, then activate ${unseen.length > 1 ? 'them' : 'it'}:`,
      `  ${ACTIVATE_TAGS_COMMAND}`,
    );
  lines.push(
    'Costs are grouped by a tag from its activation on; for earlier months, ask for a backfill: aws ce start-cost-allocation-tag-backfill --backfill-from <first day of a month, up to 12 months back>',
  );
  return lines.join('\n');
}
