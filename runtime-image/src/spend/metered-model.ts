// A metered agent's model calls (#31): before each call, its ceiling (the request's size and
// output cap at the model's prices) is held in the agent's spend ledger; a call whose budget is
// spent is not made, and one that does not fit beside calls in flight waits for them. After the
// call, its usage goes to the control plane on the outbox (the count budgets are checked
// against) and the hold is settled with what the call cost. Wraps each model of the chain, so
// every retry and fallback is a call of its own, priced as its own model.
import { budgetReachedText, type SpendCaps } from '../../../shared/budget/budget.ts';
import { callCeilingMicros, callCostMicros, type ModelPrice, type TokenUsage } from '../../../shared/budget/prices.ts';
import { errorFields, type Logger } from '../../../shared/log.ts';
import { PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import type { Clock, Outbox, SpendLedger } from '../../../shared/ports.ts';
import type { ModelClient, ModelRequest, ModelResult } from '../model/model.ts';
import { pause } from '../pause.ts';

export interface SpendMeter {
  agent: { id: string; name?: string | undefined };
  caps: SpendCaps;
  /** The agent's models' prices (its runtime config's `prices`). */
  prices: Readonly<Record<string, ModelPrice>>;
  ledger: SpendLedger;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  /** How long a hold lasts if its call is never settled (the runtime died): the turn's timeout. */
  holdMs: number;
  /** Between asks while the calls in flight leave no room. */
  waitMs?: number | undefined;
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** The most one wait for calls in flight lasts before asking again. */
const DEFAULT_WAIT_MS = 500;

export function meteredModel(inner: ModelClient, ref: string, meter: SpendMeter): ModelClient {
  const price = meter.prices[ref];
  const sleep = meter.sleep ?? pause;
  return {
    label: inner.label,
    contextWindow: inner.contextWindow,
    ...(inner.imageInput !== undefined ? { imageInput: inner.imageInput } : {}),
    ...(inner.outputCap ? { outputCap: (req: ModelRequest) => inner.outputCap!(req) } : {}),
    async complete(req): Promise<ModelResult> {
      // Fail closed: a call that cannot be named, priced or capped is not made (config validation and modelForAgent make this unreachable).
      if (!price || !inner.outputCap || !req.call)
        return {
          ok: false,
          retriable: false,
          error: `internal: model ${ref} is metered but its call ${!price ? 'has no price' : !inner.outputCap ? 'has no output cap' : 'names no turn'}`,
        };
      const callId = req.call.nextCallId();
      const log = meter.log.child({ callId, model: ref });
      const bytes = Buffer.byteLength(JSON.stringify({ systemPrompt: req.systemPrompt, messages: req.messages, tools: req.tools }));
      const ceiling = callCeilingMicros(bytes, inner.outputCap(req), price);

      let month: string;
      for (;;) {
        let outcome;
        try {
          outcome = await meter.ledger.reserve(meter.agent.id, { callId, micros: ceiling, at: meter.clock.now(), caps: meter.caps, holdMs: meter.holdMs });
        } catch (err) {
          log.warn('spend ledger not reached; the call is not made', errorFields(err));
          return { ok: false, retriable: true, error: `the spend ledger could not be reached (${(err as Error).message})` };
        }
        if (outcome.kind === 'held') {
          month = outcome.month;
          if (outcome.alone) log.info('the budget’s last call: let through alone', { ceilingMicros: ceiling });
          break;
        }
        if (outcome.kind === 'over') {
          const text = budgetReachedText(meter.agent, outcome.reached, meter.clock.now());
          log.info('model call not made: the budget is spent', { period: outcome.reached.period, spentMicros: outcome.reached.spentMicros });
          return { ok: false, retriable: false, error: text, overBudget: { text, reached: outcome.reached } };
        }
        await sleep(meter.waitMs ?? DEFAULT_WAIT_MS, req.signal);
        if (req.signal?.aborted) return { ok: false, retriable: false, error: 'aborted' };
      }

      const result = await inner.complete(req);
      const usage = result.ok ? result.message.usage : result.usage;
      const micros = usage ? callCostMicros(usage, price) : 0;
      if (usage) await report(callId, ref, usage, req, meter, log);
      try {
        await meter.ledger.settle(meter.agent.id, { callId, month, micros, at: meter.clock.now() });
      } catch (err) {
        // The hold lapses by itself; the control plane counted the call from its report.
        log.warn('spend hold not settled; it lapses', errorFields(err));
      }
      return result;
    },
  };
}

/** The call's usage on the outbox: evidence the control plane prices and counts once by its id. */
async function report(callId: string, ref: string, usage: TokenUsage, req: ModelRequest, meter: SpendMeter, log: Logger): Promise<void> {
  try {
    await meter.outbox.send({
      v: PROTOCOL_VERSION,
      kind: 'usage',
      id: callId,
      agentId: meter.agent.id,
      sessionKey: req.call!.sessionKey,
      inboundId: req.call!.inboundId,
      ts: meter.clock.now(),
      model: ref,
      tokens: { input: usage.input, output: usage.output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite },
    });
  } catch (err) {
    // Not counted by the control plane: logged, and the ledger still settles it here.
    log.warn('usage not reported', errorFields(err));
  }
}
