// A session's recorded stats as the stores read them back (SQLite's JSON column, DynamoDB's
// map): parsed with the protocol's schema, never cast, so a value this build cannot read
// shows as "not reported" in /status rather than as something it is not.
import { SessionStatsSchema } from '../protocol/session-stats.ts';
import type { RecordedSessionStats } from '../ports.ts';
import * as z from '../zod.ts';

const RecordedSessionStatsSchema = z.extend(SessionStatsSchema, { at: z.number().check(z.int(), z.nonnegative()) });

export function readRecordedStats(value: unknown): RecordedSessionStats | undefined {
  const parsed = RecordedSessionStatsSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
