// Text that must be JSON of a known shape, read in one step, with an answer that says which
// of the two it failed: every edge then words its own error, and none quotes the input,
// which may hold a secret (a token, a key, a whole secret file).
import * as z from './zod.ts';
import { formatPath } from './errors.ts';

export type JsonParsed<T> =
  | { ok: true; value: T }
  /** The text is not JSON at all. */
  | { ok: false; notJson: true }
  /** JSON, but not of the shape asked for: zod's issues (paths and messages, no inputs). */
  | { ok: false; notJson: false; issues: readonly z.core.$ZodIssue[] };

/** `schema`: any zod schema, classic or mini. */
export function parseJsonAs<T>(schema: z.core.$ZodType<T>, text: string): JsonParsed<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, notJson: true };
  }
  const parsed = z.safeParse(schema, json);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, notJson: false, issues: parsed.error.issues };
}

/** Issues as `path: message; …`, `(root)` for the value itself; at most `max` of them. */
export function issuesText(issues: readonly z.core.$ZodIssue[], max = Infinity): string {
  return issues
    .slice(0, max)
    .map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`)
    .join('; ');
}
