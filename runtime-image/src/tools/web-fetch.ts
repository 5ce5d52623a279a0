// web_fetch: GET an http(s) URL with a time limit and a size limit, and return its text
// (an HTML page's readable part as Markdown: readable-page.ts). Only public addresses are
// reached, on every redirect hop (net/fetch-guard.ts); the page comes back marked as
// untrusted content, cut at a character limit with a note saying so.
import { z } from 'zod';
import { ClawfleetError } from '../../../shared/errors.ts';
import { fetchPolicy, type Resolve } from '../net/fetch-guard.ts';
import type { GuardedResponse } from '../net/guarded-get.ts';
import { capText, defineTool, type AgentTool } from './tool.ts';

export interface WebFetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxChars: number;
}

const defaultWebFetchLimits: WebFetchLimits = { timeoutMs: 15_000, maxBytes: 2_000_000, maxChars: 50_000 };

export interface WebFetchOptions {
  limits?: WebFetchLimits | undefined;
  /** tools.web.fetch.allowPrivateHosts: host names that may resolve to loopback or private addresses. */
  allowPrivateHosts?: readonly string[] | undefined;
  /** The resolver (the system's by default); tests pass one that answers for their own names. */
  resolve?: Resolve | undefined;
}

export function webFetchTool(opts: WebFetchOptions = {}): AgentTool {
  const limits = opts.limits ?? defaultWebFetchLimits;
  const policy = fetchPolicy(opts.allowPrivateHosts);
  return defineTool({
    name: 'web_fetch',
    description: `Fetch a web page or text resource (http/https, public addresses only) and return its readable text. Stops after ${limits.timeoutMs / 1000} s or ${limits.maxBytes} bytes.`,
    schema: z.strictObject({
      url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
      maxChars: z.number().int().min(100).max(limits.maxChars).default(limits.maxChars),
    }),
    async run({ url, maxChars }, ctx) {
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(limits.timeoutMs)]);
      // HTTPS, TLS and the decompressors load with the first fetch, not with every start.
      const { guardedGet } = await import('../net/guarded-get.ts');
      let res: GuardedResponse;
      try {
        res = await guardedGet(url, {
          policy,
          resolve: opts.resolve,
          signal,
          maxBytes: limits.maxBytes,
          headers: { 'user-agent': 'clawfleet-agent/0.1', accept: 'text/html,text/plain,application/json,*/*;q=0.5' },
        });
      } catch (err) {
        // Refusals, redirect loops, oversized bodies: our own words, said as they are.
        if (err instanceof ClawfleetError) return { text: err.message, isError: true };
        const timedOut = !ctx.signal.aborted && signal.aborted;
        return { text: timedOut ? `no answer within ${limits.timeoutMs / 1000} s` : `fetch failed: ${(err as Error).message}`, isError: true };
      }
      const body = res.body.toString('utf8');
      const text = /html/.test(res.contentType) ? await readableText(body, res.url) : body;
      const status = `${res.status} ${res.statusText}${res.contentType ? ` ${res.contentType}` : ''}${res.truncated ? ` (first ${limits.maxBytes} bytes)` : ''}`;
      return {
        text: cutWithNote(text, maxChars, limits.maxChars),
        isError: res.status < 200 || res.status > 299,
        untrusted: { source: 'web_fetch', meta: { url: res.url, ...(res.redirects.length > 0 ? { 'redirected from': url } : {}), status } },
      };
    },
  });
}

/**
 * An HTML page's readable part as Markdown (Readability over linkedom, loaded with the
 * first page); a page that defeats both (nesting too deep for the DOM walk) falls back
 * to the plain-text reduction below rather than failing the fetch.
 */
export async function readableText(html: string, url: string): Promise<string> {
  try {
    const { readablePage, pageText } = await import('./readable-page.ts');
    return pageText(readablePage(html, url));
  } catch {
    return htmlToText(html);
  }
}

/** The text cut at `max` characters, with a note that says it was and how to read on. */
export function cutWithNote(text: string, max: number, ceiling: number): string {
  if (text.length <= max) return text;
  const more = max < ceiling ? `fetch again with a larger maxChars (up to ${ceiling}) to read more` : `${ceiling} is the most web_fetch returns`;
  return `${capText(text, max)} — the page was cut at ${max} characters; ${more}`;
}

/** Readable text from HTML: scripts and styles dropped, tags removed, entities decoded, blank runs squeezed. */
function htmlToText(html: string): string {
  return html
    .replace(/<(script|style|noscript|svg)[\s\S]*?<\/\1>/gi, '')
    .replace(/<br\s*\/?>|<\/(p|div|li|h[1-6]|tr|section|article)>/gi, '\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/[ \t]+/g, ' ')
    .replace(/\n\s*\n\s*\n+/g, '\n\n')
    .trim();
}
