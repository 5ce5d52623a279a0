// web_fetch: GET an http(s) URL with a time limit and a size limit, and return its text
// (HTML reduced to readable text). Bodies past the limit are not downloaded.
import { z } from 'zod';
import { capText, defineTool, type AgentTool } from './tool.ts';

export interface WebFetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxChars: number;
}

export const defaultWebFetchLimits: WebFetchLimits = { timeoutMs: 15_000, maxBytes: 2_000_000, maxChars: 50_000 };

export function webFetchTool(limits: WebFetchLimits = defaultWebFetchLimits, fetchFn: typeof fetch = fetch): AgentTool {
  return defineTool({
    name: 'web_fetch',
    description: `Fetch a web page or text resource (http/https) and return its readable text. Stops after ${limits.timeoutMs / 1000} s or ${limits.maxBytes} bytes.`,
    schema: z.strictObject({
      url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
      maxChars: z.number().int().min(100).max(limits.maxChars).default(limits.maxChars),
    }),
    async run({ url, maxChars }, ctx) {
      const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(limits.timeoutMs)]);
      let res: Response;
      try {
        res = await fetchFn(url, { signal, redirect: 'follow', headers: { 'user-agent': 'clawfleet-agent/0.1', accept: 'text/html,text/plain,application/json,*/*;q=0.5' } });
      } catch (err) {
        const timedOut = !ctx.signal.aborted && signal.aborted;
        return { text: timedOut ? `no answer within ${limits.timeoutMs / 1000} s` : `fetch failed: ${(err as Error).message}`, isError: true };
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > limits.maxBytes) {
        await res.body?.cancel();
        return { text: `${url} is ${declared} bytes, over the ${limits.maxBytes}-byte limit`, isError: true };
      }
      let body: string;
      let truncated = false;
      try {
        ({ body, truncated } = await readCapped(res, limits.maxBytes));
      } catch (err) {
        return { text: `reading ${url} failed: ${signal.aborted && !ctx.signal.aborted ? `no complete answer within ${limits.timeoutMs / 1000} s` : (err as Error).message}`, isError: true };
      }
      const type = res.headers.get('content-type') ?? '';
      const text = /html/i.test(type) ? htmlToText(body) : body;
      const head = `${res.status} ${res.statusText} ${type}`.trim();
      return { text: `${head}${truncated ? ` (first ${limits.maxBytes} bytes)` : ''}\n\n${capText(text, maxChars)}`, isError: !res.ok };
    },
  });
}

async function readCapped(res: Response, maxBytes: number): Promise<{ body: string; truncated: boolean }> {
  if (!res.body) return { body: '', truncated: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks).toString('utf8'), truncated: false };
    chunks.push(value);
    size += value.length;
    if (size >= maxBytes) {
      await reader.cancel();
      return { body: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'), truncated: true };
    }
  }
}

/** Readable text from HTML: scripts and styles dropped, tags removed, entities decoded, blank runs squeezed. */
export function htmlToText(html: string): string {
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
