// Long replies split for Telegram after conversion: Markdown blocks (paragraphs, lists, quotes,
// code blocks) are packed into parts whose Telegram HTML fits one message, so every part is
// whole blocks and its markup is balanced. A block too long on its own is cut: a code block
// into several code blocks, anything else as text, each piece parsed again on its own.
import { chunkText, TELEGRAM_MAX_TEXT } from './chunk.ts';
import { markdownBlocks, markdownToTelegramHtml, type MarkdownBlock } from './markdown-html.ts';

export function telegramChunks(markdown: string, max = TELEGRAM_MAX_TEXT): string[] {
  const parts: string[] = [];
  let raws: string[] = [];
  let size = 0;
  const flush = () => {
    if (raws.length > 0) parts.push(raws.join('\n\n'));
    raws = [];
    size = 0;
  };
  for (const block of markdownBlocks(markdown)) {
    if (block.html.length > max) {
      flush();
      parts.push(...splitBlock(block, max));
      continue;
    }
    const cost = block.html.length + (raws.length > 0 ? 2 : 0);
    if (size + cost > max) flush();
    size += block.html.length + (raws.length > 0 ? 2 : 0);
    raws.push(block.raw);
  }
  flush();
  return parts.length > 0 ? parts : [markdown];
}

const FENCE = /^(```|~~~)([^\n]*)\n([\s\S]*?)\n?\1\s*$/;

function splitBlock(block: MarkdownBlock, max: number): string[] {
  const fence = FENCE.exec(block.raw);
  if (fence) {
    const [, mark, info = ''] = fence;
    const wrap = (body: string) => `${mark}${info}\n${body}\n${mark}`;
    // Escaping can grow a line; pieces are cut until their HTML fits.
    return fit(fence[3] ?? '', max, wrap);
  }
  return fit(block.raw, max, (s) => s);
}

/** Cuts `text` into pieces whose wrapped HTML fits, halving the budget until every piece does. */
function fit(text: string, max: number, wrap: (piece: string) => string): string[] {
  for (let budget = max - 40; budget > 64; budget = Math.floor(budget / 2)) {
    const pieces = chunkText(text, budget).map(wrap);
    if (pieces.every((p) => markdownToTelegramHtml(p).length <= max)) return pieces;
  }
  return chunkText(text, 64).map(wrap);
}
