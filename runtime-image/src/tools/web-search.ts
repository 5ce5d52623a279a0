// web_search: a query to the configured search provider (Brave Search, or Perplexity's Search API), answered as
// title/url/snippet lines marked as untrusted content. The same query within the cache's
// time is answered from memory; the provider's rate limits are honoured: a short wait is
// waited out, a longer one is told to the model instead of spending a request on a refusal.
import { z } from 'zod';
import type { Clock } from '../../../shared/ports.ts';
import { BRAVE_API, braveError, braveHits, braveUrl, waitFromHeaders, type Freshness, type SearchHit } from './brave-search.ts';
import { PERPLEXITY_API, perplexityError, perplexityHits, perplexityRequest } from './perplexity-search.ts';
import { defineTool, type AgentTool } from './tool.ts';

export type SearchProviderName = 'brave' | 'perplexity';

/** One provider's wire format: the request for a query, its results, and its words for an error. */
interface SearchProvider {
  label: string;
  base: string;
  request(base: string, query: string, count: number, freshness: Freshness | undefined, apiKey: string): { url: string; init: RequestInit };
  hits(json: unknown): SearchHit[] | undefined;
  error(json: unknown): string | undefined;
}

const PROVIDERS: Record<SearchProviderName, SearchProvider> = {
  brave: {
    label: 'Brave Search',
    base: BRAVE_API,
    request: (base, q, n, freshness, apiKey) => ({
      url: braveUrl(base, q, n, freshness),
      init: { headers: { accept: 'application/json', 'x-subscription-token': apiKey } },
    }),
    hits: braveHits,
    error: braveError,
  },
  perplexity: { label: 'Perplexity Search', base: PERPLEXITY_API, request: perplexityRequest, hits: perplexityHits, error: perplexityError },
};

export interface WebSearchOptions {
  /** Default brave. */
  provider?: SearchProviderName | undefined;
  apiKey: string;
  /** The provider's root (tools.web.search.baseUrl; tests point it at a fake on 127.0.0.1). */
  baseUrl?: string | undefined;
  maxResults?: number | undefined;
  /** 0 turns the cache off. */
  cacheTtlMs?: number | undefined;
  timeoutMs?: number | undefined;
  /** A rate-limit wait up to this long is waited out; a longer one is reported. */
  maxWaitMs?: number | undefined;
  clock: Clock;
  /** Waits `ms` unless the signal aborts first (tests may make time pass faster). */
  sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined;
}

const CACHE_ENTRIES = 200;

const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });

export function formatHits(hits: SearchHit[]): string {
  if (hits.length === 0) return 'no results';
  return hits.map((h, i) => `${i + 1}. ${h.title}\n   ${h.url}${h.age ? `\n   (${h.age})` : ''}${h.snippet ? `\n   ${h.snippet}` : ''}`).join('\n');
}

export function webSearchTool(o: WebSearchOptions): AgentTool {
  const providerName = o.provider ?? 'brave';
  const provider = PROVIDERS[providerName];
  const base = o.baseUrl ?? provider.base;
  const ttl = o.cacheTtlMs ?? 5 * 60_000;
  const timeoutMs = o.timeoutMs ?? 15_000;
  const maxWait = o.maxWaitMs ?? 2_000;
  const sleep = o.sleep ?? abortableSleep;
  const cache = new Map<string, { at: number; hits: SearchHit[] }>();
  /** When the provider takes the next request (clock ms). */
  let nextAllowedAt = 0;

  const untrusted = (query: string) => ({ source: 'web_search' as const, meta: { query, provider: providerName } });

  /** Waits for the rate limit if that is short; otherwise says how long it is. */
  async function waitTurn(signal: AbortSignal): Promise<string | undefined> {
    const wait = nextAllowedAt - o.clock.now();
    if (wait <= 0) return undefined;
    if (wait > maxWait)
      return `the search provider's rate limit allows the next search in ${Math.ceil(wait / 1000)} s; try again then, or answer without searching`;
    await sleep(wait, signal);
    return undefined;
  }

  return defineTool({
    name: 'web_search',
    description: `Search the web (${provider.label}). Returns titles, URLs and snippets; fetch a page with web_fetch to read it.`,
    schema: z.strictObject({
      query: z.string().trim().min(1).max(400),
      count: z
        .number()
        .int()
        .min(1)
        .max(20)
        .optional()
        .describe(`How many results (default ${o.maxResults ?? 5})`),
      freshness: z.enum(['day', 'week', 'month', 'year']).optional().describe('Only pages from the last day, week, month or year'),
    }),
    async run({ query, count, freshness }, ctx) {
      const n = count ?? o.maxResults ?? 5;
      const key = JSON.stringify([query, n, freshness ?? null]);
      const cached = cache.get(key);
      if (cached && o.clock.now() - cached.at < ttl) return { text: formatHits(cached.hits), untrusted: untrusted(query) };

      for (let attempt = 1; ; attempt++) {
        const refused = await waitTurn(ctx.signal);
        if (refused) return { text: refused, isError: true };
        const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(timeoutMs)]);
        let res: Response;
        let body: unknown;
        try {
          const { url, init } = provider.request(base, query, n, freshness as Freshness | undefined, o.apiKey);
          res = await fetch(url, { ...init, signal, redirect: 'error' });
          const text = await res.text();
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          return {
            text: signal.aborted ? `the search provider did not answer within ${timeoutMs / 1000} s` : `search failed: ${(err as Error).message}`,
            isError: true,
          };
        }
        const wait = waitFromHeaders(res.headers, res.status);
        if (wait > 0) nextAllowedAt = Math.max(nextAllowedAt, o.clock.now() + wait);
        // One 429 with a short wait is retried once; the rest is said as it is.
        if (res.status === 429 && attempt === 1 && wait <= maxWait) continue;
        if (res.status === 429) {
          const why = provider.error(body);
          return {
            text: `the search provider refused: rate limited${why ? ` (${why})` : ''}; the next search is possible in ${Math.ceil(wait / 1000)} s`,
            isError: true,
          };
        }
        if (!res.ok) {
          const why = provider.error(body);
          return { text: `the search provider answered ${res.status}${why ? `: ${why}` : ''}`, isError: true };
        }
        const hits = provider.hits(body);
        if (!hits) return { text: 'the search provider answered with something that is not a search result', isError: true };
        if (ttl > 0) {
          if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
          cache.set(key, { at: o.clock.now(), hits });
        }
        return { text: formatHits(hits), untrusted: untrusted(query) };
      }
    },
  });
}
