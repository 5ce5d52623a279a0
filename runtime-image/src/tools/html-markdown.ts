// A DOM (linkedom's) written out as Markdown for the model: headings, paragraphs, links
// made absolute, lists, quotes, code, tables as pipe rows; images as their alt text and
// address. Scripts, styles, forms and other furniture are dropped. Small on purpose: the
// model reads it, no renderer does, so readable beats round-trippable.

type Node = { nodeType: number; nodeName: string; textContent: string | null; childNodes: ArrayLike<Node>; getAttribute?(name: string): string | null };

const SKIP = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'SVG',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'CANVAS',
  'FORM',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'HEAD',
  'META',
  'LINK',
]);
const BLOCK = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'NAV',
  'FIGURE',
  'FIGCAPTION',
  'DL',
  'DT',
  'DD',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
  'BODY',
  'HTML',
]);

function absolute(href: string, base: string | undefined): string | undefined {
  try {
    const url = new URL(href, base);
    // javascript: and data: links say nothing a reader can follow.
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}

const squeeze = (s: string) => s.replace(/[ \t\r\n\f\v\u00a0]+/g, ' ');

export function domToMarkdown(root: Node, baseUrl?: string): string {
  return tidy(render(root, { base: baseUrl, pre: false }));
}

function tidy(out: string): string {
  return out
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

interface Ctx {
  base: string | undefined;
  pre: boolean;
}

function children(node: Node, ctx: Ctx): string {
  let s = '';
  for (let i = 0; i < node.childNodes.length; i++) s += render(node.childNodes[i]!, ctx);
  return s;
}

function inline(node: Node, ctx: Ctx): string {
  return squeeze(children(node, ctx)).trim();
}

function render(node: Node, ctx: Ctx): string {
  if (node.nodeType === 3) return ctx.pre ? (node.textContent ?? '') : squeeze(node.textContent ?? '');
  if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return '';
  const tag = node.nodeName.toUpperCase();
  if (SKIP.has(tag)) return '';
  const attr = (n: string) => node.getAttribute?.(n) ?? null;
  if (attr('hidden') !== null || attr('aria-hidden') === 'true') return '';
  switch (tag) {
    case 'H1':
    case 'H2':
    case 'H3':
    case 'H4':
    case 'H5':
    case 'H6': {
      const text = inline(node, ctx);
      return text ? `\n\n${'#'.repeat(Number(tag[1]))} ${text}\n\n` : '';
    }
    case 'BR':
      return '\n';
    case 'HR':
      return '\n\n---\n\n';
    case 'A': {
      const text = inline(node, ctx);
      const href = attr('href');
      const url = href ? absolute(href, ctx.base) : undefined;
      if (!text) return '';
      if (href?.startsWith('#')) return /[\p{L}\p{N}]/u.test(text) ? text : ''; // a heading's "¶" permalink says nothing
      return url ? `[${text}](${url})` : text;
    }
    case 'IMG': {
      const alt = squeeze(attr('alt') ?? '').trim();
      const src = attr('src');
      const url = src ? absolute(src, ctx.base) : undefined;
      return alt ? (url ? `![${alt}](${url})` : alt) : '';
    }
    case 'STRONG':
    case 'B': {
      const t = inline(node, ctx);
      return t ? `**${t}**` : '';
    }
    case 'EM':
    case 'I': {
      const t = inline(node, ctx);
      return t ? `*${t}*` : '';
    }
    case 'CODE':
      if (ctx.pre) return children(node, ctx);
      return `\`${(node.textContent ?? '').replace(/`/g, "'")}\``;
    case 'PRE': {
      const text = children(node, { ...ctx, pre: true }).replace(/\n+$/, '');
      return `\n\n\`\`\`\n${text}\n\`\`\`\n\n`;
    }
    case 'BLOCKQUOTE': {
      const body = tidy(children(node, ctx));
      return body
        ? `\n\n${body
            .split('\n')
            .map((l) => `> ${l}`)
            .join('\n')}\n\n`
        : '';
    }
    case 'UL':
    case 'OL': {
      let n = 0;
      const items: string[] = [];
      for (let i = 0; i < node.childNodes.length; i++) {
        const li = node.childNodes[i]!;
        if (li.nodeType !== 1 || li.nodeName.toUpperCase() !== 'LI') continue;
        const body = tidy(render(li, ctx)).replace(/\n{2,}/g, '\n');
        if (!body) continue;
        const marker = tag === 'OL' ? `${++n}.` : '-';
        // A nested list comes back as lines of its own: indented under its item's text.
        items.push(`${marker} ${body.split('\n').join(`\n${' '.repeat(marker.length + 1)}`)}`);
      }
      return items.length ? `\n\n${items.join('\n')}\n\n` : '';
    }
    case 'LI':
      return children(node, ctx);
    case 'TABLE':
      return table(node, ctx);
    default:
      if (BLOCK.has(tag)) {
        const body = children(node, ctx);
        return body.trim() ? `\n\n${body.trim()}\n\n` : '';
      }
      return children(node, ctx);
  }
}

function table(node: Node, ctx: Ctx): string {
  const rows: string[][] = [];
  const walk = (n: Node) => {
    for (let i = 0; i < n.childNodes.length; i++) {
      const c = n.childNodes[i]!;
      if (c.nodeType !== 1) continue;
      const tag = c.nodeName.toUpperCase();
      if (tag === 'TR') {
        const cells: string[] = [];
        for (let j = 0; j < c.childNodes.length; j++) {
          const cell = c.childNodes[j]!;
          const t = cell.nodeName.toUpperCase();
          if (cell.nodeType === 1 && (t === 'TD' || t === 'TH')) cells.push(inline(cell, ctx).replace(/\|/g, '\\|'));
        }
        if (cells.some((x) => x)) rows.push(cells);
      } else if (tag !== 'TABLE') walk(c); // thead, tbody, tfoot; a nested table is its own
    }
  };
  walk(node);
  if (rows.length === 0) return '';
  const width = Math.max(...rows.map((r) => r.length));
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, i) => r[i] ?? '').join(' | ')} |`;
  return `\n\n${[line(rows[0]!), line(Array(width).fill('---')), ...rows.slice(1).map(line)].join('\n')}\n\n`;
}
