// The Perplexity Search API as its wire format has it: POST /search with a Bearer key and
// { query, max_results, search_recency_filter }, answered with results of title, url,
// snippet and date — ranked pages, not a written answer (Sonar's chat completions are not
// used: a search tool returns sources, and the model reads them itself).
import { z } from 'zod';
import type { Freshness, SearchHit } from './brave-search.ts';

export const PERPLEXITY_API = 'https://api.perplexity.ai';

const ResponseSchema = z.looseObject({
  results: z.array(
    z.looseObject({ title: z.string(), url: z.string(), snippet: z.string().optional(), date: z.string().nullish(), last_updated: z.string().nullish() }),
  ),
});
const ErrorSchema = z.looseObject({
  error: z.looseObject({ message: z.string().optional(), type: z.string().optional(), code: z.union([z.string(), z.number()]).optional() }),
});

export function perplexityRequest(
  base: string,
  query: string,
  count: number,
  freshness: Freshness | undefined,
  apiKey: string,
): { url: string; init: RequestInit } {
  return {
    url: new URL('/search', base).toString(),
    init: {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ query, max_results: count, ...(freshness ? { search_recency_filter: freshness } : {}) }),
    },
  };
}

export function perplexityHits(json: unknown): SearchHit[] | undefined {
  const parsed = ResponseSchema.safeParse(json);
  if (!parsed.success) return undefined;
  return parsed.data.results.map((r) => ({
    title: r.title.replace(/\s+/g, ' ').trim(),
    url: r.url,
    snippet: (r.snippet ?? '').replace(/\s+/g, ' ').trim().slice(0, 1_000),
    age: r.date ?? r.last_updated ?? undefined,
  }));
}

export function perplexityError(json: unknown): string | undefined {
  const parsed = ErrorSchema.safeParse(json);
  if (!parsed.success) return undefined;
  const e = parsed.data.error;
  return [e.type ?? e.code, e.message].filter((x) => x !== undefined && x !== '').join(': ') || undefined;
}
