// The time grid of an agent's activity metrics (the dashboard's charts, the stores behind
// them): fixed 15-minute slots of epoch time, so every store and every reader agrees on the
// keys without coordination (DynamoDB reads them with one BatchGet per agent).
import type { ActivityBucket } from '../ports.ts';

export const BUCKET_MS = 15 * 60_000;
export const DAY_MS = 24 * 3600_000;
/** How long stores keep buckets and turns: the charts show 24 h; a day more covers clock skew and late readers. */
export const METRICS_RETENTION_MS = 2 * DAY_MS;
/** Turns kept per bucket for the "recent turns" table; the counters keep counting past it. */
export const TURNS_PER_BUCKET = 20;

export const bucketStart = (at: number) => Math.floor(at / BUCKET_MS) * BUCKET_MS;

/** The bucket starts of the 24 h that end with the bucket holding `now`, oldest first. */
function dayBuckets(now: number): number[] {
  const last = bucketStart(now);
  const count = DAY_MS / BUCKET_MS;
  return Array.from({ length: count }, (_, i) => last - (count - 1 - i) * BUCKET_MS);
}

/** Every bucket of the day, with zeros where a store had nothing. */
export function fillDay(now: number, stored: ActivityBucket[]): ActivityBucket[] {
  const byStart = new Map(stored.map((b) => [b.start, b]));
  return dayBuckets(now).map((start) => byStart.get(start) ?? { start, turns: 0, errors: 0 });
}
