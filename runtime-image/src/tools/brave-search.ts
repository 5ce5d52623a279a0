// The Brave Search API's web search as its wire format has it: GET /res/v1/web/search with
// the key in X-Subscription-Token, results under web.results (title, url, description with
// <strong> highlights), and rate limits in X-RateLimit-Limit/-Remaining/-Reset, each a
// comma-separated list with one entry per window (per second, per month).
import { z } from 'zod';

export const BRAVE_API = 'https://api.search.brave.com';

export type Freshness = 'day' | 'week' | 'month' | 'year';
const FRESHNESS: Record<Freshness, string> = { day: 'pd', week: 'pw', month: 'pm', year: 'py' };

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  /** How old the page is, as the provider says ("2 days ago", an ISO date). */
  age?: string | undefined;
}

const BraveResponseSchema = z.looseObject({
  web: z
    .looseObject({
      results: z.array(
        z.looseObject({ title: z.string(), url: z.string(), description: z.string().optional(), age: z.string().optional(), page_age: z.string().optional() }),
      ),
    })
    .optional(),
});

const BraveErrorSchema = z.looseObject({ error: z.looseObject({ code: z.string().optional(), detail: z.string().optional() }) });

export function braveUrl(base: string, q: string, count: number, freshness: Freshness | undefined): string {
  const url = new URL('/res/v1/web/search', base);
  url.searchParams.set('q', q);
  url.searchParams.set('count', String(count));
  if (freshness) url.searchParams.set('freshness', FRESHNESS[freshness]);
  return url.toString();
}

/** Text of a Brave snippet: its <strong> highlights and entities made plain. */
export function plainSnippet(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&#(\d+);/g, (_, n: string) => String.fromCodePoint(Number(n)))
    .replace(/&#x([0-9a-f]+);/gi, (_, n: string) => String.fromCodePoint(parseInt(n, 16)))
    .replace(/&quot;/g, '"')
    .replace(/&#39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

export function braveHits(json: unknown): SearchHit[] | undefined {
  const parsed = BraveResponseSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return (parsed.data.web?.results ?? []).map((r) => ({
    title: plainSnippet(r.title),
    url: r.url,
    snippet: plainSnippet(r.description ?? ''),
    age: r.age ?? r.page_age,
  }));
}

/** Brave's own words for an error body ("RATE_LIMITED: Request rate limit exceeded for plan."), when it has them. */
export function braveError(json: unknown): string | undefined {
  const parsed = BraveErrorSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return [parsed.data.error.code, parsed.data.error.detail].filter(Boolean).join(': ') || undefined;
}

/**
 * Milliseconds until the provider takes another request, from a response's headers: the
 * longest reset among windows with nothing remaining; after a 429 that names none,
 * Retry-After, else the shortest window's reset, else a second. 0: no need to wait.
 */
export function waitFromHeaders(headers: Headers, status: number): number {
  const list = (name: string) =>
    (headers.get(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')
      .map(Number)
      .filter((n) => Number.isFinite(n) && n >= 0);
  const remaining = list('x-ratelimit-remaining');
  const reset = list('x-ratelimit-reset');
  let wait = 0;
  reset.forEach((seconds, i) => {
    if (remaining[i] === 0) wait = Math.max(wait, seconds * 1000);
  });
  if (wait > 0 || status !== 429) return wait;
  const retryAfter = Number(headers.get('retry-after'));
  if (Number.isFinite(retryAfter) && retryAfter > 0) return retryAfter * 1000;
  return reset.length > 0 ? Math.max(1000, Math.min(...reset) * 1000) : 1000;
}
