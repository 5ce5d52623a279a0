import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from '../../shared/telegram/markdown-html.ts';
import { telegramChunks } from '../../shared/telegram/telegram-chunks.ts';

describe('Markdown to Telegram HTML', () => {
  it('converts emphasis, code, links and headings', () => {
    expect(markdownToTelegramHtml('# Plan\n**bold**, *italic*, ~~gone~~, `x < y` and [docs](https://example.com/a?b=1)')).toBe(
      '<b>Plan</b>\n<b>bold</b>, <i>italic</i>, <s>gone</s>, <code>x &lt; y</code> and <a href="https://example.com/a?b=1">docs</a>',
    );
  });

  it('keeps fenced code verbatim, escaped, with its language', () => {
    expect(markdownToTelegramHtml('Run:\n```sh\necho "<hi>" && **not bold**\n```\nDone')).toBe(
      'Run:\n<pre><code class="language-sh">echo "&lt;hi&gt;" &amp;&amp; **not bold**</code></pre>\nDone',
    );
  });

  it('escapes markup a model did not mean as markup, and leaves snake_case alone', () => {
    expect(markdownToTelegramHtml('a <b> & c, my_var_name, 2 * 3 * 4')).toBe('a &lt;b&gt; &amp; c, my_var_name, 2 * 3 * 4');
  });
});

/** Telegram's HTML subset, balanced: every tag opened is closed in order, and no other tag appears. */
function balanced(html: string): boolean {
  const stack: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
    const [, close, tag] = m;
    if (!['b', 'i', 's', 'u', 'code', 'pre', 'a', 'blockquote'].includes(tag!)) return false;
    if (!close) stack.push(tag!);
    else if (stack.pop() !== tag) return false;
  }
  return stack.length === 0 && !/<(?![a-z/])/.test(html.replace(/<\/?[a-z]+[^>]*>/g, ''));
}

describe('Markdown by a real parser', () => {
  it('writes lists, nested lists, quotes and nested emphasis in Telegram HTML', () => {
    const html = markdownToTelegramHtml('Steps:\n\n1. **pack _light_**\n2. water\n   - the ferns\n\n> quoted **line**\n> and more');
    expect(html).toBe('Steps:\n\n1. <b>pack <i>light</i></b>\n2. water\n   • the ferns\n\n<blockquote>quoted <b>line</b>\nand more</blockquote>');
    expect(balanced(html)).toBe(true);
  });

  it('keeps only web and mail links; a javascript: link stays text', () => {
    expect(markdownToTelegramHtml('[ok](https://a.example/?q="x") [no](javascript:alert(1))')).toBe('<a href="https://a.example/?q=&quot;x&quot;">ok</a> no');
  });

  it('splits a long reply on block boundaries after conversion: every part fits and is valid HTML on its own', () => {
    const para = (n: number) => `Paragraph ${n} with **bold** and \`code <x>\` and a [link](https://example.com/${n}).`;
    const code = '```ts\n' + Array.from({ length: 300 }, (_, i) => `const v${i} = a < b && c > d; // line ${i}`).join('\n') + '\n```';
    const list = Array.from({ length: 60 }, (_, i) => `- item ${i} with *emphasis*`).join('\n');
    const quote = Array.from({ length: 40 }, (_, i) => `> quoted line ${i} & more`).join('\n');
    const markdown = [...Array.from({ length: 30 }, (_, i) => para(i)), list, code, quote, para(99)].join('\n\n');
    const parts = telegramChunks(markdown, 4096);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts) {
      const html = markdownToTelegramHtml(part);
      expect(html.length).toBeLessThanOrEqual(4096);
      expect(balanced(html), html.slice(0, 200)).toBe(true);
    }
    // The long code block became several code blocks, each still highlighted as TypeScript.
    const codeParts = parts.filter((p) => p.includes('const v'));
    expect(codeParts.length).toBeGreaterThan(1);
    for (const p of codeParts) expect(markdownToTelegramHtml(p)).toContain('<pre><code class="language-ts">');
    // Nothing is lost: every line of the source is in some part.
    for (const needle of ['Paragraph 0 ', 'Paragraph 29 ', 'item 59', 'line 299', 'quoted line 39', 'Paragraph 99 '])
      expect(
        parts.some((p) => p.includes(needle)),
        needle,
      ).toBe(true);
  });

  it('leaves a short reply in one part', () => {
    expect(telegramChunks('hi **there**')).toEqual(['hi **there**']);
  });
});
