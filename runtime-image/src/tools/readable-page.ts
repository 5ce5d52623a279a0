// A web page's readable part as Markdown: Mozilla's Readability (what Firefox's reader view
// uses) picks the article out of the page, parsed by linkedom (a DOM without a browser);
// a page Readability finds no article in is written out whole, less its furniture.
// Loaded with the first HTML page fetched, not at start.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { domToMarkdown } from './html-markdown.ts';

export interface ReadablePage {
  title: string | undefined;
  byline: string | undefined;
  markdown: string;
  /** False when no article was found and the whole page was written out. */
  article: boolean;
}

/** Readability gives up on documents with more elements than this (a hostile page can have millions). */
const MAX_ELEMENTS = 60_000;

export function readablePage(html: string, url: string): ReadablePage {
  const { document } = parseHTML(html);
  const title = document.querySelector('title')?.textContent?.replace(/\s+/g, ' ').trim() || undefined;
  // Readability changes the document it reads: the fallback below parses the page again. A
  // page over MAX_ELEMENTS makes it throw, and that page is not parsed and walked again here:
  // the caller (readableText) falls back to plain text.
  const parsed = new Readability(document as unknown as Document, { maxElemsToParse: MAX_ELEMENTS }).parse();
  if (parsed?.content && (parsed.textContent ?? '').trim().length > 0) {
    const { document: article } = parseHTML(`<!doctype html><html><body>${parsed.content}</body></html>`);
    return {
      title: parsed.title?.replace(/\s+/g, ' ').trim() || title,
      byline: parsed.byline?.replace(/\s+/g, ' ').trim() || undefined,
      markdown: domToMarkdown(article.body as never, url),
      article: true,
    };
  }
  const { document: whole } = parseHTML(html);
  return { title, byline: undefined, markdown: domToMarkdown((whole.body ?? whole.documentElement) as never, url), article: false };
}

/** The page as the model reads it: its title and byline above the Markdown. */
export function pageText(page: ReadablePage): string {
  const head = [page.title ? `# ${page.title}` : undefined, page.byline ? `By ${page.byline}` : undefined].filter(Boolean).join('\n');
  return head ? `${head}\n\n${page.markdown}` : page.markdown;
}
