// web_fetch's reading of real pages (test/fixtures/web-pages: a news article and a docs
// page, as their sites served them), fetched from 127.0.0.1 through the tool itself: the
// article's text as Markdown with its title, byline, links and quotes, the page's furniture
// left out, a docs page's nested contents and code blocks kept, and the cut with its note.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallContext, ToolResult } from '../../runtime-image/src/tools/tool.ts';
import { webFetchTool } from '../../runtime-image/src/tools/web-fetch.ts';

const page = (name: string) => readFileSync(`test/fixtures/web-pages/${name}.html`);
const PAGES: Record<string, Buffer> = { '/ars': page('ars-technica-article'), '/docs/sharing.html': page('mercurial-evolve-docs') };

let base: string;
const server = createServer((req, res) => {
  const body = PAGES[req.url ?? ''];
  if (!body) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
});
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

// The page server is on loopback: allowed by name, as an operator allows an intranet host.
const tool = webFetchTool({ limits: { timeoutMs: 10_000, maxBytes: 2_000_000, maxChars: 50_000 }, allowPrivateHosts: ['127.0.0.1'] });
async function fetchPage(args: Record<string, unknown>): Promise<ToolResult> {
  const parsed = tool.parse(args);
  if (!parsed.ok) throw new Error(parsed.error);
  return tool.run(parsed.value, { signal: new AbortController().signal } as ToolCallContext);
}

describe('web_fetch on real pages', () => {
  it('reads a news article as Markdown: title, byline, paragraphs, links and the quoted advisory, without the site around it', async () => {
    const r = await fetchPage({ url: `${base}/ars` });
    expect(r.isError).toBe(false);
    const text = r.text;
    expect(text.startsWith('# Just-released Minecraft exploit makes it easy to crash game servers\nBy Dan Goodin\n')).toBe(true);
    expect(text).toContain(
      '"I thought a lot before writing this post," Pakistan-based developer Ammar Askar wrote in a [blog post published Thursday](http://blog.ammaraskar.com/minecraft-vulnerability-advisory), 21 months, he said, after privately reporting the bug to *Minecraft* developer Mojang.',
    );
    expect(text).toContain('> The vulnerability stems from the fact that the client is allowed to send the server information about certain slots.');
    expect(text.trimEnd().endsWith('Ars is asking Mojang for comment and will update this post if company officials respond.')).toBe(true);
    // The site's navigation, sign-up and subscription furniture is not the article.
    expect(text).not.toMatch(/Sign up|Subscribe|<\w+[^>]*>/);
    expect(text.length).toBeLessThan(6_000);
  });

  it('reads a docs page with its nested contents list and its code blocks, links made absolute', async () => {
    const r = await fetchPage({ url: `${base}/docs/sharing.html` });
    const text = r.text;
    expect(text.startsWith('# Shared Mutable History — evolve extension for Mercurial\n')).toBe(true);
    expect(text).toContain('- Evolve: Shared Mutable History\n  - Sharing with a single developer\n    - Publishing and non-publishing repositories');
    expect(text).toContain('## Setting up\n\nWe’ll work through an example with three local repositories');
    expect(text).toContain('```\n$ hg init public\n```');
    expect(text).toContain(`(see the [user guide](${base}/docs/user-guide.html))`);
    expect(text).not.toContain('¶');
  });

  it('cuts a long page at maxChars and says so, and how to read more', async () => {
    const r = await fetchPage({ url: `${base}/docs/sharing.html`, maxChars: 1_000 });
    expect(r.text.length).toBeLessThan(1_200);
    expect(r.text).toMatch(
      /\n… \[\d+ more characters cut\] — the page was cut at 1000 characters; fetch again with a larger maxChars \(up to 50000\) to read more$/,
    );
  });
});
