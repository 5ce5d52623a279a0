// Models answer in Markdown; Telegram renders a small HTML subset (b, i, s, u, code, pre, a,
// blockquote). A real parser (marked's lexer, ~40 KB) reads the Markdown — lists, quotes, code
// blocks, nested emphasis, links, tables — and each token is written in that subset, everything
// else escaped, so the markup is always balanced. Whatever Telegram still refuses is sent again
// as plain text by the sender.
import { Lexer, type Token, type Tokens } from 'marked';

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeHtml(s).replace(/"/g, '&quot;');

/** One top-level Markdown block: its source and its Telegram HTML. */
export interface MarkdownBlock {
  raw: string;
  html: string;
}

export function markdownBlocks(markdown: string): MarkdownBlock[] {
  return Lexer.lex(markdown)
    .filter((t) => t.type !== 'space' && t.type !== 'def')
    .map((t) => ({ raw: t.raw.replace(/\n+$/, ''), html: block(t) }))
    .filter((b) => b.html !== '');
}

/** Blocks keep the spacing they had: a line break or a blank line between them, as written. */
export function markdownToTelegramHtml(markdown: string): string {
  let out = '';
  let newlines = 0;
  for (const t of Lexer.lex(markdown)) {
    const html = t.type === 'space' || t.type === 'def' ? '' : block(t);
    if (html !== '') {
      if (out !== '') out += newlines >= 2 ? '\n\n' : '\n';
      out += html;
      newlines = 0;
    }
    newlines += /\n*$/.exec(t.raw)![0].length;
  }
  return out;
}

function block(t: Token): string {
  switch (t.type) {
    case 'paragraph':
      return inline((t as Tokens.Paragraph).tokens);
    case 'heading':
      return `<b>${inline((t as Tokens.Heading).tokens)}</b>`;
    case 'code': {
      const code = t as Tokens.Code;
      const lang = code.lang ? ` class="language-${escapeAttr(code.lang.split(/\s/)[0]!)}"` : '';
      return `<pre><code${lang}>${escapeHtml(code.text)}</code></pre>`;
    }
    case 'blockquote':
      return `<blockquote>${(t as Tokens.Blockquote).tokens.map(block).filter(Boolean).join('\n')}</blockquote>`;
    case 'list':
      return list(t as Tokens.List, 0);
    case 'hr':
      return '———';
    case 'table':
      // Telegram has no tables: the source, aligned as written, in a monospace block.
      return `<pre>${escapeHtml(t.raw.trimEnd())}</pre>`;
    case 'html':
      return escapeHtml(t.raw.trimEnd());
    case 'text': {
      const text = t as Tokens.Text;
      return text.tokens ? inline(text.tokens) : escapeHtml(text.text);
    }
    default:
      return 'raw' in t && typeof t.raw === 'string' ? escapeHtml(t.raw.trimEnd()) : '';
  }
}

function list(l: Tokens.List, depth: number): string {
  const start = typeof l.start === 'number' ? l.start : 1;
  const indent = '   '.repeat(depth);
  return l.items
    .map((item, i) => {
      const mark = item.task ? (item.checked ? '☑' : '☐') : l.ordered ? `${start + i}.` : '•';
      const parts = item.tokens
        .filter((c) => c.type !== 'checkbox')
        .map((c) => (c.type === 'list' ? `\n${list(c as Tokens.List, depth + 1)}` : c.type === 'space' ? '' : block(c)));
      return `${indent}${mark} ${parts.join('').replace(/\n(?!\s*[•☑☐\d])/g, `\n${indent}  `)}`;
    })
    .join('\n');
}

function inline(tokens: Token[] | undefined): string {
  return (tokens ?? []).map(inlineToken).join('');
}

function inlineToken(t: Token): string {
  switch (t.type) {
    case 'strong':
      return `<b>${inline((t as Tokens.Strong).tokens)}</b>`;
    case 'em':
      return `<i>${inline((t as Tokens.Em).tokens)}</i>`;
    case 'del':
      return `<s>${inline((t as Tokens.Del).tokens)}</s>`;
    case 'codespan':
      return `<code>${escapeHtml((t as Tokens.Codespan).text)}</code>`;
    case 'br':
      return '\n';
    case 'link': {
      const link = t as Tokens.Link;
      const label = inline(link.tokens);
      // Only web and mail links: anything else (javascript:, tg:) stays text.
      return /^(https?:|mailto:)/i.test(link.href) ? `<a href="${escapeAttr(link.href)}">${label}</a>` : label;
    }
    case 'image': {
      const image = t as Tokens.Image;
      return /^https?:/i.test(image.href) ? `<a href="${escapeAttr(image.href)}">${escapeHtml(image.text || image.href)}</a>` : escapeHtml(image.text);
    }
    case 'text': {
      const text = t as Tokens.Text;
      return text.tokens ? inline(text.tokens) : escapeHtml(text.text);
    }
    case 'escapeHtml':
      return escapeHtml((t as Tokens.Escape).text);
    case 'html':
      return escapeHtml(t.raw);
    default:
      return 'raw' in t && typeof t.raw === 'string' ? escapeHtml(t.raw) : '';
  }
}
