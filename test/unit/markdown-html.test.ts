import { describe, expect, it } from 'vitest';
import { markdownToTelegramHtml } from '../../shared/telegram/markdown-html.ts';

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
    expect(markdownToTelegramHtml('a <b> & c, my_var_name, 2*3*4')).toBe('a &lt;b&gt; &amp; c, my_var_name, 2*3*4');
  });
});
