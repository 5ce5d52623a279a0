// λ outbox's count of an agent's spend (#31): a `usage` envelope from an agent's outbox is one
// model call's token counts, priced here with the config's prices (the control plane's, not
// the runtime's figure) and added to the agent's day and month once per envelope id. Crossing
// 80 % or 100 % of a cap tells the operator, once per period each.
import { alarmKey, alarmsDue, type SpendAlarm } from '../budget/budget.ts';
import { callCostMicros, priceOf } from '../budget/prices.ts';
import { resolveAgent } from '../config/resolve.ts';
import type { FleetConfig } from '../config/schema.ts';
import { errorFields, type Logger } from '../log.ts';
import type { UsageEnvelope } from '../protocol/envelopes.ts';
import type { Clock, SpendCounts } from '../ports.ts';
import { agentCaps } from './budget-gate.ts';

export interface SpendCountDeps {
  config: FleetConfig;
  spend: SpendCounts;
  /** Tells the operator an alarm (the composition's: the operator channel); absent (a hand-built core), the alarm is logged. Throws to be retried. */
  alertSpend?: ((agentId: string, alarm: SpendAlarm) => Promise<void>) | undefined;
  clock: Clock;
  log: Logger;
}

export type UsageOutcome = { ok: true; counted: boolean; micros: number } | { ok: false; code: 'USAGE_MODEL_UNKNOWN'; reason: string };

export async function countUsage(envelope: UsageEnvelope, sender: string, deps: SpendCountDeps): Promise<UsageOutcome> {
  const agent = resolveAgent(deps.config, sender);
  const refs = agent.model ? [agent.model.primary, ...agent.model.fallbacks] : [];
  // A metered agent's models all have prices (validate refuses it otherwise): a call to another
  // model is not one this agent may make, and is not taken at its word.
  const price = refs.includes(envelope.model) ? priceOf(envelope.model, deps.config.models.prices) : undefined;
  if (!price)
    return { ok: false, code: 'USAGE_MODEL_UNKNOWN', reason: `"${envelope.model}" is not one of the priced models of agent "${sender}" (${refs.join(', ')})` };
  const micros = callCostMicros(envelope.tokens, price);
  // Counted when the control plane learns of it: the call was made just before.
  const now = deps.clock.now();
  const { counted, totals } = await deps.spend.add(sender, envelope.id, micros, now);
  deps.log.info(counted ? 'model call counted' : 'model call counted before', {
    agentId: sender,
    envelopeId: envelope.id,
    inboundId: envelope.inboundId,
    model: envelope.model,
    micros,
    dayMicros: totals.dayMicros,
    monthMicros: totals.monthMicros,
  });
  // Asked again on a redelivery too: an alarm whose telling failed is told then.
  const caps = agentCaps(deps.config, sender);
  for (const alarm of caps ? alarmsDue(caps, totals) : []) await tellAlarm(sender, alarm, deps);
  return { ok: true, counted, micros };
}

/** Tells the alarm (the channel dedupes a second telling), then marks it told for its period. */
async function tellAlarm(agentId: string, alarm: SpendAlarm, deps: SpendCountDeps): Promise<void> {
  const ctx = { agentId, alarm: alarmKey(alarm), spentMicros: alarm.spentMicros, capMicros: alarm.capMicros };
  if (deps.alertSpend) {
    try {
      await deps.alertSpend(agentId, alarm);
    } catch (err) {
      deps.log.error('spend alarm not told; retried with the record', { ...ctx, ...errorFields(err) });
      throw err;
    }
  } else deps.log.warn(`spend at ${alarm.percent} % of the ${alarm.period === 'day' ? 'daily' : 'monthly'} budget (no operator channel in this process)`, ctx);
  await deps.spend.markAlerted(agentId, alarmKey(alarm), deps.clock.now());
}
