// An agent's budget against what it has spent: its caps in micro-dollars, whether one is
// reached, and what the people involved are told — the user whose message is not answered,
// /status, the operator's alarms. Pure: the totals and the time are given.
import { microsOf, usdText } from './prices.ts';
import { periodsAt, resetText, untilText } from './periods.ts';

/** `budget` in the config (an agent's, merged key by key over agents.defaults'). */
export interface BudgetConfig {
  dailyUsd?: number | undefined;
  monthlyUsd?: number | undefined;
}

/** The caps in µUSD; a period without a cap is absent. */
export interface SpendCaps {
  dayMicros?: number | undefined;
  monthMicros?: number | undefined;
}

/** What an agent has spent in the periods that contain a moment: the control plane's count. */
export interface SpendTotals {
  /** "2026-12-03" (UTC). */
  day: string;
  dayMicros: number;
  /** "2026-12" (UTC). */
  month: string;
  monthMicros: number;
  /** The alarms already told for these periods (alarmKey). */
  alerted: string[];
}

export type SpendPeriod = 'day' | 'month';

export interface CapReached {
  period: SpendPeriod;
  spentMicros: number;
  capMicros: number;
  /** When the count starts again (epoch ms). */
  resetsAt: number;
}

/** The caps of a budget, or undefined when it sets none (the agent is not metered). */
export function capsOf(budget: BudgetConfig | undefined): SpendCaps | undefined {
  if (!budget || (budget.dailyUsd === undefined && budget.monthlyUsd === undefined)) return undefined;
  return {
    ...(budget.dailyUsd !== undefined ? { dayMicros: microsOf(budget.dailyUsd) } : {}),
    ...(budget.monthlyUsd !== undefined ? { monthMicros: microsOf(budget.monthlyUsd) } : {}),
  };
}

/** Totals of nothing spent yet, for the periods around `at`. */
export function emptyTotals(at: number): SpendTotals {
  const p = periodsAt(at);
  return { day: p.day, dayMicros: 0, month: p.month, monthMicros: 0, alerted: [] };
}

/**
 * The cap the totals have reached (spent ≥ cap), if any. With both reached, the month's: the
 * agent works again only once that one resets.
 */
export function capReached(caps: SpendCaps, totals: SpendTotals, at: number): CapReached | undefined {
  const p = periodsAt(at);
  if (caps.monthMicros !== undefined && totals.monthMicros >= caps.monthMicros)
    return { period: 'month', spentMicros: totals.monthMicros, capMicros: caps.monthMicros, resetsAt: p.monthResetsAt };
  if (caps.dayMicros !== undefined && totals.dayMicros >= caps.dayMicros)
    return { period: 'day', spentMicros: totals.dayMicros, capMicros: caps.dayMicros, resetsAt: p.dayResetsAt };
  return undefined;
}

const PERIOD_WORDS = { day: { cap: 'daily', key: 'dailyUsd', span: 'today (UTC)' }, month: { cap: 'monthly', key: 'monthlyUsd', span: 'this month (UTC)' } };

/**
 * What a person is told instead of an answer when the agent's cap is reached: the cap and
 * what was spent, when it resets, and how it is raised. The same words from the control
 * plane (a message not queued) and from the runtime (a turn stopped before its next model call).
 */
export function budgetReachedText(agent: { id: string; name?: string | undefined }, reached: CapReached, at: number): string {
  const w = PERIOD_WORDS[reached.period];
  return [
    `⛔ ${agent.name ?? agent.id} has reached its ${w.cap} budget: ${usdText(reached.spentMicros)} spent of ${usdText(reached.capMicros)} ${w.span}, so this message was not answered.`,
    `It answers again from ${resetText(reached.resetsAt, reached.period === 'month')} (${untilText(at, reached.resetsAt)}).`,
    `To raise the cap, the fleet's owner sets budget.${w.key} of agent "${agent.id}" in clawfleet.json and deploys it (locally: restarts npm start).`,
  ].join(' ');
}

/** /status's line: "$0.42 of $1.00 today · $3.10 of $20.00 this month (UTC)". */
export function spendText(caps: SpendCaps, totals: SpendTotals): string {
  const parts: string[] = [];
  parts.push(caps.dayMicros !== undefined ? `${usdText(totals.dayMicros)} of ${usdText(caps.dayMicros)} today` : `${usdText(totals.dayMicros)} today`);
  parts.push(
    caps.monthMicros !== undefined ? `${usdText(totals.monthMicros)} of ${usdText(caps.monthMicros)} this month` : `${usdText(totals.monthMicros)} this month`,
  );
  return `${parts.join(' · ')} (UTC)`;
}

/** The share of a cap that sets off an alarm to the operator, once per period each. */
export const ALARM_PERCENTS = [80, 100] as const;

export interface SpendAlarm {
  period: SpendPeriod;
  /** "2026-12-03" or "2026-12". */
  periodId: string;
  percent: (typeof ALARM_PERCENTS)[number];
  spentMicros: number;
  capMicros: number;
}

/** The key an alarm is told under, once: `day:2026-12-03:80`. */
export const alarmKey = (a: Pick<SpendAlarm, 'period' | 'periodId' | 'percent'>) => `${a.period}:${a.periodId}:${a.percent}`;

/** The alarms the totals have set off and that were not told yet, the higher first. */
export function alarmsDue(caps: SpendCaps, totals: SpendTotals): SpendAlarm[] {
  const due: SpendAlarm[] = [];
  const told = new Set(totals.alerted);
  for (const [period, periodId, spent, cap] of [
    ['month', totals.month, totals.monthMicros, caps.monthMicros],
    ['day', totals.day, totals.dayMicros, caps.dayMicros],
  ] as const) {
    if (cap === undefined) continue;
    for (const percent of [...ALARM_PERCENTS].reverse()) {
      if (spent * 100 < cap * percent) continue;
      const alarm: SpendAlarm = { period, periodId, percent, spentMicros: spent, capMicros: cap };
      if (!told.has(alarmKey(alarm))) due.push(alarm);
      // The highest share reached is the news: 80 % is not said after (or with) 100 %.
      break;
    }
  }
  return due;
}
