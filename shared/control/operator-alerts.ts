// Telling the operator when something goes wrong, in their own Telegram chat, through one of
// the fleet's bots (the token stays in the control plane). What is told: an alarm's state
// change — a CloudWatch alarm's, delivered by SNS to λ operator-alerts, or a local condition
// the local health loop watches (local/operator-alarms.ts) — and spend reaching 80 % and 100 %
// of an agent's budget (#31, spend-alarm.ts). Each change is told once: its idempotency key (the alarm's name and the time of
// its state change) is claimed in the delivery ledger before it is sent, so SNS delivering it
// twice or Lambda retrying sends nothing more. And told at a bounded rate: per alarm and for
// the whole fleet in fixed windows (ALERT_LIMITS), the last one of a window saying so.
import * as z from '../zod.ts';
import { errorFields, type Logger } from '../log.ts';
import { PermanentDeliveryError, type AlertRates, type ChannelSender, type ChannelTarget, type Clock, type DeliveryLedger } from '../ports.ts';

import { operatorChat } from '../config/operator-chat.ts';
import type { ControlPlane } from './control-plane.ts';

export type AlarmState = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

/** One alarm changing state: what CloudWatch's notification says, or what a local condition did. */
export interface AlarmStateChange {
  alarm: string;
  state: AlarmState;
  previous: AlarmState;
  /** Why it changed (CloudWatch's NewStateReason, or the local condition's words). */
  reason: string;
  /** What the alarm watches, as its definition says. */
  description?: string | undefined;
  /** When it changed, epoch ms: with the name, what makes a change the same change when it is delivered again. */
  at: number;
}

/**
 * Spend reaching a share of a budget, or over it (#31, spend-alarm.ts). Told once per scope,
 * period and share.
 */
export interface SpendOverBudget {
  /** What spent it: the fleet, or an agent's id. */
  scope: string;
  spentUsd: number;
  budgetUsd: number;
  /** The budget's period, e.g. "2026-12". */
  period: string;
  /** The share of the budget reached (#31 tells 80 and 100 once each); absent: over it. */
  percent?: number | undefined;
  at: number;
}

export type OperatorEvent = { kind: 'alarm'; change: AlarmStateChange } | { kind: 'spend'; spend: SpendOverBudget };

/** How many alerts reach the operator: per alarm (or spend scope) and for the whole fleet, in each window. */
export const ALERT_LIMITS = { perAlarm: 3, fleet: 30, windowMs: 60 * 60_000 } as const;

/** How long a claimed alert may take to send before another delivery of it may try. */
const ALERT_LEASE_MS = 60_000;

export type AlertOutcome =
  /** Sent to the operator's chat. */
  | 'sent'
  /** This change was sent (or given up on) before: a redelivery. */
  | 'duplicate'
  /** Not worth a message: a first evaluation, or OK after anything but ALARM. */
  | 'not-announced'
  /** Over ALERT_LIMITS: logged, not sent. */
  | 'rate-limited'
  /** Telegram refused it for good (the operator blocked the bot, a wrong chat): logged. */
  | 'refused'
  /** The config names no operator chat. */
  | 'no-operator-chat';

export interface OperatorAlertDeps {
  /** The operator's chat (shared/config/operator-chat.ts); undefined: alerts are logged only. */
  target: ChannelTarget | undefined;
  channel(target: ChannelTarget): Promise<ChannelSender>;
  ledger: DeliveryLedger;
  rates: AlertRates;
  clock: Clock;
  log: Logger;
}

/** The deps over a composed control plane (λ operator-alerts, the local health loop): its bots, ledger and alert counters. */
export function operatorAlertDeps(cp: ControlPlane): OperatorAlertDeps {
  const target = operatorChat(cp.config);
  // The bot writes the alert: built now, with the others, where there is an operator chat.
  if (target) void cp.telegram;
  return { target, channel: (t) => cp.channel(t), ledger: cp.ledger, rates: cp.port('alertRates'), clock: cp.clock, log: cp.log };
}

const AlarmStateSchema = z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']);

/** The fields of CloudWatch's alarm notification (the SNS message body) that an alert needs. */
const CloudWatchAlarmMessageSchema = z.object({
  AlarmName: z.string().check(z.minLength(1), z.maxLength(255)),
  AlarmDescription: z.optional(z.nullable(z.string())),
  NewStateValue: AlarmStateSchema,
  OldStateValue: AlarmStateSchema,
  NewStateReason: z.string(),
  StateChangeTime: z.string().check(z.minLength(1)),
});

export type ParsedAlarm = { ok: true; change: AlarmStateChange } | { ok: false; reason: string };

/** Reads CloudWatch's alarm notification, as SNS carries it in `Records[].Sns.Message`. */
export function parseAlarmNotification(message: string): ParsedAlarm {
  let json: unknown;
  try {
    json = JSON.parse(message);
  } catch {
    return { ok: false, reason: 'the message is not JSON' };
  }
  const parsed = CloudWatchAlarmMessageSchema.safeParse(json);
  if (!parsed.success)
    return { ok: false, reason: `not a CloudWatch alarm notification: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}` };
  const m = parsed.data;
  // CloudWatch writes "2026-12-03T10:15:00.123+0000"; Date takes it once the offset has its colon.
  const at = Date.parse(m.StateChangeTime.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
  if (Number.isNaN(at)) return { ok: false, reason: `StateChangeTime "${m.StateChangeTime.slice(0, 40)}" is not a time` };
  return {
    ok: true,
    change: {
      alarm: m.AlarmName,
      state: m.NewStateValue,
      previous: m.OldStateValue,
      reason: m.NewStateReason,
      description: m.AlarmDescription ?? undefined,
      at,
    },
  };
}

/** Whether an event is worth telling: an alarm going off, one that was off coming back, a share of a budget spent. */
export function announced(event: OperatorEvent): boolean {
  if (event.kind === 'spend') return true;
  const { state, previous } = event.change;
  return state === 'ALARM' ? previous !== 'ALARM' : state === 'OK' && previous === 'ALARM';
}

/** The event's idempotency key (the same change delivered again has the same one) and the key its rate is counted under. */
export function alertKeys(event: OperatorEvent): { idempotency: string; rate: string } {
  if (event.kind === 'spend') {
    const share = event.spend.percent === undefined ? '' : `:${event.spend.percent}`;
    return { idempotency: `alert:spend:${event.spend.scope}:${event.spend.period}${share}`, rate: `spend:${event.spend.scope}` };
  }
  return { idempotency: `alert:${event.change.alarm}@${event.change.at}`, rate: `alarm:${event.change.alarm}` };
}

const utc = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The message the operator reads; `limitNote` is added to the last one a window lets through. */
export function alertText(event: OperatorEvent, limitNote?: string): string {
  const lines =
    event.kind === 'spend'
      ? [
          event.spend.percent !== undefined && event.spend.percent < 100
            ? `💸 ${event.spend.percent} % of the budget spent: ${event.spend.scope}`
            : `💸 Over budget: ${event.spend.scope}`,
          `$${event.spend.spentUsd.toFixed(2)} spent of $${event.spend.budgetUsd.toFixed(2)} for ${event.spend.period} (${utc(event.spend.at)})`,
        ]
      : [
          event.change.state === 'ALARM' ? `🔴 ${event.change.alarm}` : `✅ Resolved: ${event.change.alarm}`,
          ...(event.change.description ? [event.change.description] : []),
          `${event.change.reason} (${utc(event.change.at)})`,
        ];
  return [...lines, ...(limitNote ? [limitNote] : [])].join('\n');
}

/**
 * Tells the operator about `event`, once however often it is delivered. Throws when sending
 * failed in a way a retry may mend (its claim released first), so the caller's delivery
 * (SNS → Lambda's retries, the next local tick) tries again.
 */
export async function alertOperator(event: OperatorEvent, deps: OperatorAlertDeps): Promise<AlertOutcome> {
  if (!announced(event)) return 'not-announced';
  const keys = alertKeys(event);
  const ctx = { alert: keys.idempotency };
  if (!deps.target) {
    deps.log.warn('operator alert not sent: the config names no operator chat (operator.telegram)', { ...ctx, text: alertText(event) });
    return 'no-operator-chat';
  }
  const claim = await deps.ledger.claim(keys.idempotency, deps.clock.now(), ALERT_LEASE_MS);
  if (claim === 'delivered') return 'duplicate';
  if (claim === 'in-flight') throw new Error(`operator alert ${keys.idempotency} is being sent by another worker; retry later`);

  const now = deps.clock.now();
  const windowStart = now - (now % ALERT_LIMITS.windowMs);
  const windowEnd = utc(windowStart + ALERT_LIMITS.windowMs);
  let note: string | undefined;
  // Counted before the send: a send that fails and is retried counts again, so a channel that
  // is down spends this alarm's window sooner rather than the limit ever being passed.
  try {
    const own = await deps.rates.take(keys.rate, windowStart, ALERT_LIMITS.windowMs, ALERT_LIMITS.perAlarm);
    const fleet = own === undefined ? undefined : await deps.rates.take('fleet', windowStart, ALERT_LIMITS.windowMs, ALERT_LIMITS.fleet);
    if (own === undefined || fleet === undefined) {
      // Given up on for good: a redelivery is not counted again.
      await deps.ledger.complete(keys.idempotency, deps.clock.now());
      deps.log.warn('operator alert not sent: rate limit', {
        ...ctx,
        limit: own === undefined ? `${ALERT_LIMITS.perAlarm} an hour for this alarm` : `${ALERT_LIMITS.fleet} an hour for the fleet`,
        text: alertText(event),
      });
      return 'rate-limited';
    }
    if (fleet === ALERT_LIMITS.fleet) note = `(The fleet’s alert limit is reached: no more alerts before ${windowEnd}; the alarms are in CloudWatch.)`;
    else if (own === ALERT_LIMITS.perAlarm) note = `(This alarm’s limit is reached: its changes before ${windowEnd} are not sent.)`;
  } catch (err) {
    await deps.ledger.release(keys.idempotency);
    throw err;
  }

  try {
    const channel = await deps.channel(deps.target);
    await channel.sendText(deps.target, alertText(event, note).slice(0, channel.maxTextLength));
  } catch (err) {
    if (err instanceof PermanentDeliveryError) {
      await deps.ledger.complete(keys.idempotency, deps.clock.now());
      deps.log.error('operator alert refused by the channel', { ...ctx, ...errorFields(err) });
      return 'refused';
    }
    await deps.ledger.release(keys.idempotency);
    throw err;
  }
  await deps.ledger.complete(keys.idempotency, deps.clock.now());
  deps.log.info('operator alert sent', ctx);
  return 'sent';
}
