// A status envelope's `session` field on its own, so the stores that keep it (and λ dashboard,
// which reads them) do not carry every envelope schema to read it back.
import * as z from '../zod.ts';

/**
 * Where a session stands after a turn (protocol 4): the control plane records it on the
 * session and /status shows it, so a sleeping agent is not woken to say how long its session
 * is. Evidence, like all runtime output: it is kept only on a session the sender owns.
 */
export const SessionStatsSchema = z.strictObject({
  /** Turns since the session started or its last /new (compacted ones included). */
  turns: z.number().check(z.int(), z.nonnegative(), z.lte(10_000_000)),
  /** Messages the model's context holds for the next turn (after any compaction). */
  messages: z.number().check(z.int(), z.nonnegative(), z.lte(10_000_000)),
  /** Tokens of the last context the model was given (prompt and answer), as the provider counted them. */
  contextTokens: z.number().check(z.int(), z.nonnegative(), z.lte(100_000_000)),
  /** The provider gave no count (an offline stand-in, a command turn): contextTokens is estimated from the text. */
  estimated: z.optional(z.literal(true)),
  /** Tokens the session's model takes in. */
  contextWindow: z.number().check(z.int(), z.positive(), z.lte(100_000_000)),
  /** The model ref the session's turns use. */
  model: z.string().check(z.minLength(1), z.maxLength(256)),
  /** Set when the session chose it with /model (absent: the agent's configured primary). */
  modelChosen: z.optional(z.literal(true)),
});
