// A model with retries and fallbacks: each model in the agent's chain (primary, then its
// fallbacks) is asked up to `attemptsPerModel` times while its failures are retriable,
// with capped exponential backoff (honouring a provider's retry-after up to the cap).
// Only when every model has failed does the turn fail, with every reason in the message.
import type { ModelClient, ModelFailure, ModelRequest, ModelResult } from './model.ts';
import { pause } from '../pause.ts';

export interface RetryPolicy {
  attemptsPerModel: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { attemptsPerModel: 3, baseDelayMs: 1_000, maxDelayMs: 10_000 };

export interface ModelAttempt {
  model: string;
  attempt: number;
  error: string;
  retriable: boolean;
}

export function modelChain(
  models: ModelClient[],
  policy: RetryPolicy = defaultRetryPolicy,
  opts: { sleep?: (ms: number, signal?: AbortSignal) => Promise<void>; onFailure?: (a: ModelAttempt) => void; random?: () => number } = {},
): ModelClient {
  if (models.length === 0) throw new Error('modelChain needs at least one model');
  const sleep = opts.sleep ?? pause;
  const random = opts.random ?? Math.random;
  const capped = models.every((m) => m.outputCap);
  return {
    ...(capped ? { outputCap: (req: ModelRequest) => Math.max(...models.map((m) => m.outputCap!(req))) } : {}),
    label: models.map((m) => m.label).join(' → '),
    contextWindow: Math.min(...models.map((m) => m.contextWindow)),
    // The primary's: pi-ai puts a placeholder where a fallback cannot take an image.
    imageInput: models[0]?.imageInput ?? false,
    async complete(req: ModelRequest): Promise<ModelResult> {
      const reasons: string[] = [];
      for (const model of models) {
        let last: ModelFailure | undefined;
        for (let attempt = 1; attempt <= policy.attemptsPerModel; attempt++) {
          const result = await model.complete(req);
          if (result.ok) return result;
          // The budget is spent: no retry, no fallback, the turn says so.
          if (result.overBudget) return result;
          last = result;
          opts.onFailure?.({ model: model.label, attempt, error: result.error, retriable: result.retriable });
          if (req.signal?.aborted) return { ok: false, error: 'aborted', retriable: false };
          if (!result.retriable || attempt === policy.attemptsPerModel) break;
          // Full jitter keeps many agents from retrying in step after a provider blip.
          const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
          const asked = result.retryAfterSeconds !== undefined ? Math.min(policy.maxDelayMs, result.retryAfterSeconds * 1000) : 0;
          await sleep(Math.max(asked, backoff / 2 + (random() * backoff) / 2), req.signal);
          if (req.signal?.aborted) return { ok: false, error: 'aborted', retriable: false };
        }
        reasons.push(`${model.label}: ${last!.error}`);
      }
      return { ok: false, error: reasons.join('; '), retriable: false };
    },
  };
}
