// The runtime's spend ledger, as pure functions over one agent's month: before each model call
// the runtime holds the call's ceiling (the most it can cost) against the caps, and when the
// call is answered it settles the hold with what the call cost. Adapters apply these inside one
// atomic step (a SQLite transaction, a DynamoDB write conditional on the version read), so two
// sessions racing one budget see each other's holds.
//
// The rule, and the bound it gives: a call is let through when its ceiling fits in what the
// caps leave after what is settled and every hold in flight. When it does not fit but something
// is left and no other call is in flight, it is let through alone: the budget's last call. Every
// other call waits (another is in flight and may leave room) or is refused (a cap is spent).
// Calls let through on a fitting ceiling never pass a cap (their cost is at most their ceiling);
// the last call is alone, and once it is held nothing else fits. So however many sessions race,
// a period's spend passes its cap by at most what one model call costs beyond the remainder it
// started with — less than one call, and so less than one turn.
import type { CapReached, SpendCaps } from './budget.ts';
import { periodsAt } from './periods.ts';

/** A model call in flight: its ceiling, the day it counts to, and when the hold lapses if its runtime died. */
export interface LedgerHold {
  micros: number;
  /** "03": the day of the month the call started, which its cost counts to. */
  dayOfMonth: string;
  until: number;
}

/** One agent's month in the ledger. */
export interface LedgerMonth {
  /** "2026-12" (UTC). */
  month: string;
  /** µUSD settled this month. */
  spentMicros: number;
  /** µUSD settled per day of the month, by "DD". */
  days: Record<string, number>;
  /** Calls in flight, by call id. */
  holds: Record<string, LedgerHold>;
}

export interface ReserveRequest {
  /** The call's id (its usage envelope's): holding it again is a no-op. */
  callId: string;
  /** The call's ceiling (callCeilingMicros). */
  micros: number;
  at: number;
  caps: SpendCaps;
  /** How long the hold lasts if it is never settled (its runtime killed mid-call). */
  holdMs: number;
}

export type ReserveOutcome =
  /** Go ahead; settle the hold in `month` afterwards. `alone`: the budget's last call, let through with nothing else in flight. */
  | { kind: 'held'; month: string; alone: boolean }
  /** The ceiling does not fit beside the calls in flight: ask again once they have settled. */
  | { kind: 'wait'; inFlight: number }
  /** A cap is spent. */
  | { kind: 'over'; reached: CapReached };

export interface SettleRequest {
  callId: string;
  /** The month the hold was taken in (ReserveOutcome's). */
  month: string;
  /** What the call cost (callCostMicros of its usage; 0 for a call that failed without a count). */
  micros: number;
  at: number;
}

export const emptyMonth = (month: string): LedgerMonth => ({ month, spentMicros: 0, days: {}, holds: {} });

/** Holds whose runtime died mid-call lapse: they count for nothing once past `until`. */
function live(holds: Record<string, LedgerHold>, at: number): Record<string, LedgerHold> {
  return Object.fromEntries(Object.entries(holds).filter(([, h]) => h.until > at));
}

export function reserveIn(state: LedgerMonth, req: ReserveRequest): { state: LedgerMonth; outcome: ReserveOutcome } {
  const p = periodsAt(req.at);
  if (state.month !== p.month) throw new Error(`reserve at ${p.month} applied to the ledger of ${state.month}`);
  const holds = live(state.holds, req.at);
  const next = { ...state, holds };
  if (holds[req.callId]) return { state: next, outcome: { kind: 'held', month: state.month, alone: false } };

  const spentDay = state.days[p.dayOfMonth] ?? 0;
  const heldMonth = Object.values(holds).reduce((sum, h) => sum + h.micros, 0);
  const heldDay = Object.values(holds).reduce((sum, h) => sum + (h.dayOfMonth === p.dayOfMonth ? h.micros : 0), 0);
  const { dayMicros, monthMicros } = req.caps;
  if (monthMicros !== undefined && state.spentMicros >= monthMicros)
    return {
      state: next,
      outcome: { kind: 'over', reached: { period: 'month', spentMicros: state.spentMicros, capMicros: monthMicros, resetsAt: p.monthResetsAt } },
    };
  if (dayMicros !== undefined && spentDay >= dayMicros)
    return { state: next, outcome: { kind: 'over', reached: { period: 'day', spentMicros: spentDay, capMicros: dayMicros, resetsAt: p.dayResetsAt } } };

  const fits =
    (monthMicros === undefined || state.spentMicros + heldMonth + req.micros <= monthMicros) &&
    (dayMicros === undefined || spentDay + heldDay + req.micros <= dayMicros);
  const inFlight = Object.keys(holds).length;
  if (!fits && inFlight > 0) return { state: next, outcome: { kind: 'wait', inFlight } };
  const hold: LedgerHold = { micros: req.micros, dayOfMonth: p.dayOfMonth, until: req.at + req.holdMs };
  return { state: { ...next, holds: { ...holds, [req.callId]: hold } }, outcome: { kind: 'held', month: state.month, alone: !fits } };
}

/**
 * The call is over: its hold goes, and what it cost counts to the day it started. Settling a
 * hold that is not there (settled already, or lapsed) changes nothing, so a settle sent twice
 * counts once; a call that outlived its hold is counted by the control plane alone.
 */
export function settleIn(state: LedgerMonth, req: SettleRequest): { state: LedgerMonth; settled: boolean } {
  const hold = state.holds[req.callId];
  const holds = live(state.holds, req.at);
  if (!hold) return { state: { ...state, holds }, settled: false };
  delete holds[req.callId];
  return {
    state: {
      ...state,
      spentMicros: state.spentMicros + req.micros,
      days: { ...state.days, [hold.dayOfMonth]: (state.days[hold.dayOfMonth] ?? 0) + req.micros },
      holds,
    },
    settled: true,
  };
}
