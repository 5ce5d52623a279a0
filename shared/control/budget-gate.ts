// Admission's budget check (#31): before the control plane queues work for an agent (a
// message from Telegram, a hook, the local chat box, a cron job, a heartbeat, another agent's
// question), it asks whether the agent's cap is reached, from its own count of the usage the
// agent's runtime reported. An agent without a budget is never looked up.
import { budgetReachedText, capReached, capsOf, spendText, type CapReached, type SpendCaps, type SpendTotals } from '../budget/budget.ts';
import { resetText, untilText } from '../budget/periods.ts';
import { resolveAgent } from '../config/resolve.ts';
import type { FleetConfig } from '../config/schema.ts';
import { ClawfleetError } from '../errors.ts';
import type { SpendCounts } from '../ports.ts';

export interface BudgetRefusal {
  reached: CapReached;
  /** What the person is told instead of an answer. */
  text: string;
}

/** The agent's caps, or undefined when it has no budget. */
export function agentCaps(config: FleetConfig, agentId: string): SpendCaps | undefined {
  return capsOf(resolveAgent(config, agentId).budget);
}

/** The count, where the process was given one: an agent with a budget is never admitted unchecked. */
function counts(spend: (() => SpendCounts) | undefined, agentId: string): SpendCounts {
  if (!spend)
    throw new ClawfleetError('PORT_NOT_WIRED', `agent "${agentId}" has a budget, and this control plane was given no spend count to check it against`);
  return spend();
}

/** Why the agent takes no work now (a cap reached), or undefined when it may. */
export async function budgetRefusal(
  config: FleetConfig,
  agentId: string,
  spend: (() => SpendCounts) | undefined,
  now: number,
): Promise<BudgetRefusal | undefined> {
  const caps = agentCaps(config, agentId);
  if (!caps) return undefined;
  const reached = capReached(caps, await counts(spend, agentId).totals(agentId, now), now);
  if (!reached) return undefined;
  const agent = resolveAgent(config, agentId);
  return { reached, text: budgetReachedText(agent, reached, now) };
}

/** What /status, `clawfleet status` and the dashboard say about an agent's spend; undefined without a budget. */
export interface SpendView {
  caps: SpendCaps;
  totals: SpendTotals;
  /** The cap reached, if one is: cron jobs and heartbeats are paused until it resets. */
  reached?: CapReached | undefined;
  /** "$0.42 of $1.00 today · $3.10 of $20.00 this month (UTC)". */
  text: string;
}

export async function spendView(config: FleetConfig, agentId: string, spend: (() => SpendCounts) | undefined, now: number): Promise<SpendView | undefined> {
  const caps = agentCaps(config, agentId);
  if (!caps) return undefined;
  const totals = await counts(spend, agentId).totals(agentId, now);
  return { caps, totals, reached: capReached(caps, totals, now), text: spendText(caps, totals) };
}

/** "$0.42 of $1.00 today · … (UTC)", and once a cap is reached, what is paused and until when (/status, `clawfleet status`). */
export function spendStatusText(spend: Pick<SpendView, 'text' | 'reached'>, now: number): string {
  const r = spend.reached;
  if (!r) return spend.text;
  return `${spend.text} — ${r.period === 'day' ? 'daily' : 'monthly'} budget reached: messages are not answered and cron jobs and heartbeats are paused until ${resetText(r.resetsAt, r.period === 'month')} (${untilText(now, r.resetsAt)})`;
}
