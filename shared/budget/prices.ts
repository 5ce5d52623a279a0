// What a model call costs: each model's price per million tokens (models.prices in the config,
// else the defaults below), and a call's cost from the token counts its provider reported.
// Amounts are integer micro-dollars (µUSD, a millionth of a dollar) everywhere they are added
// up, so sums are exact in JavaScript numbers, SQLite integers and DynamoDB numbers alike.

/**
 * USD per million tokens, in OpenAI's and OpenClaw's words (OpenClaw's
 * models.providers.<p>.models[].cost, pi-ai's Model.cost): `input` for prompt tokens read
 * fresh, `output` for tokens written (reasoning included), `cacheRead` for prompt tokens read
 * from the provider's cache, `cacheWrite` for prompt tokens written to it. A cache price not
 * given is the input price.
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
}

/** A provider's count of one call's tokens, as pi-ai reports it (Usage without its own cost). */
export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * Prices of the models the example clawfleet.json uses, from the providers' public list
 * prices (standard tier, prompts under 200K tokens), as of 2026-12-03:
 * - openai/gpt-4.1-mini: https://openai.com/api/pricing — $0.40 input, $0.10 cached input,
 *   $1.60 output (OpenAI bills no cache writes).
 * - anthropic/claude-sonnet-4-5: https://docs.anthropic.com/en/docs/about-claude/pricing —
 *   $3 input, $3.75 five-minute cache writes, $0.30 cache hits, $15 output.
 * The machine this was written on cannot reach those pages: the figures were checked against
 * pi-ai 0.73.1's model catalogue (its models.generated.js carries the same four numbers for
 * each) and against third-party summaries of the same pages dated 2026. Check them there
 * before relying on a cap; models.prices overrides any of them.
 */
export const DEFAULT_MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'openai/gpt-4.1-mini': { input: 0.4, output: 1.6, cacheRead: 0.1, cacheWrite: 0 },
  'anthropic/claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
};

/** The price of a model ref: the config's `models.prices` first, then the defaults; undefined when neither has it. */
export function priceOf(ref: string, configured: Readonly<Record<string, ModelPrice>> | undefined): ModelPrice | undefined {
  return configured?.[ref] ?? DEFAULT_MODEL_PRICES[ref];
}

/** USD per million tokens is µUSD per token: a call's cost in µUSD, rounded up (a part of a micro-dollar is counted whole). */
export function callCostMicros(usage: TokenUsage, price: ModelPrice): number {
  const exact =
    usage.input * price.input +
    usage.output * price.output +
    usage.cacheRead * (price.cacheRead ?? price.input) +
    usage.cacheWrite * (price.cacheWrite ?? price.input);
  // Float noise (0.1 * 3 = 0.30000000000000004) must not add a micro-dollar.
  return Math.max(0, Math.ceil(exact - 1e-9));
}

/**
 * The most one call can cost, before it is made: every byte of the request priced as a
 * prompt token at the model's dearest prompt rate (a token is at least one byte of what is
 * sent, images included, since the JSON that carries them is longer than their tokens), and
 * the output cap the call is sent with at the output rate. What the budget holds while the call runs.
 */
export function callCeilingMicros(requestBytes: number, maxOutputTokens: number, price: ModelPrice): number {
  const promptRate = Math.max(price.input, price.cacheRead ?? price.input, price.cacheWrite ?? price.input);
  return Math.ceil(requestBytes * promptRate + maxOutputTokens * price.output);
}

/** Micro-dollars as a person reads dollars: "$12.00", "$0.42"; below a dollar to a hundredth of a cent where that shows, "$0.0112", "$0.0031". */
export function usdText(micros: number): string {
  const usd = micros / 1_000_000;
  if (usd === 0 || Math.abs(usd) >= 1) return `$${usd.toFixed(2)}`;
  return `$${usd.toFixed(4).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

/** A dollar amount from the config as micro-dollars. */
export const microsOf = (usd: number): number => Math.round(usd * 1_000_000);
