// A JSON request body of a known shape, for every HTTP edge (the local server, the
// dashboard): refusals are ClawfleetErrors whose codes the edges answer with 400 or 415
// (shared/http/error-status.ts), naming paths and problems, never the body's values.
import type * as z from '../zod.ts';
import { ClawfleetError } from '../errors.ts';
import { issuesText, parseJsonAs } from '../json.ts';

export function parseJsonBody<T>(schema: z.core.$ZodType<T>, text: string): T {
  const parsed = parseJsonAs(schema, text);
  if (parsed.ok) return parsed.value;
  if (parsed.notJson) throw new ClawfleetError('BODY_NOT_JSON', 'body is not JSON');
  throw new ClawfleetError('BODY_INVALID', issuesText(parsed.issues));
}

/** Only JSON: a page of another site cannot send it without a CORS preflight, which we never grant. */
export function requireJsonContentType(contentType: string | undefined): void {
  if (!/^application\/json\b/i.test(contentType ?? '')) throw new ClawfleetError('CONTENT_TYPE_UNSUPPORTED', 'send JSON (content-type: application/json)');
}
