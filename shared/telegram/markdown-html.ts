// Models answer in Markdown; Telegram renders a small HTML subset. This converts the
// common parts (bold, italic, strike, inline code, fenced code, links, headings as bold)
// and escapes everything else, so a reply reads as intended instead of showing **stars**.
// Whatever Telegram still refuses is sent again as plain text by the sender.

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function markdownToTelegramHtml(markdown: string): string {
  const out: string[] = [];
  const fence = /^```([\w+-]*)\n([\s\S]*?)\n?```\s*$/gm;
  let last = 0;
  for (const m of markdown.matchAll(fence)) {
    out.push(inline(markdown.slice(last, m.index)));
    const lang = m[1] ? ` class="language-${m[1]}"` : '';
    out.push(`<pre><code${lang}>${escapeHtml(m[2]!)}</code></pre>`);
    last = m.index! + m[0].length;
  }
  out.push(inline(markdown.slice(last)));
  return out.join('');
}

function inline(text: string): string {
  // Inline code first, so nothing inside it is formatted.
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : formatText(part)))
    .join('');
}

function formatText(text: string): string {
  return escapeHtml(text)
    .replace(/^#{1,6} +(.+)$/gm, '<b>$1</b>')
    .replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, (_m, label: string, url: string) => `<a href="${url.replace(/"/g, '&quot;')}">${label}</a>`)
    .replace(/\*\*([^*\n]+)\*\*/g, '<b>$1</b>')
    .replace(/__([^_\n]+)__/g, '<b>$1</b>')
    .replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, '$1<i>$2</i>')
    .replace(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, '$1<i>$2</i>')
    .replace(/~~([^~\n]+)~~/g, '<s>$1</s>');
}
