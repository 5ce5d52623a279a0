// The line of a file where something is wrong, with a caret under the column, as compilers
// show it; anything on the line that looks like a credential is masked first.
import { maskSecretLike } from '../secrets/looks-secret.ts';

/** Longest stretch of a line shown; a longer line is cut around the column. */
const WIDTH = 100;

/** Line and column (both from 1) of character `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - (before.lastIndexOf('\n') + 1) + 1 };
}

/**
 * `   3 |   "agents": [1,]` and below it a caret at `column` (from 1; a column past the line's
 * end points just after it). Tabs are shown as one space so the caret stays under its character.
 */
export function sourceExcerpt(text: string, line: number, column: number): string {
  const raw = (text.split('\n')[line - 1] ?? '').replace(/\r$/, '').replace(/\t/g, ' ');
  let shown = maskSecretLike(raw);
  let at = Math.max(1, Math.min(column, shown.length + 1));
  if (shown.length > WIDTH) {
    const start = Math.max(0, Math.min(at - 1 - WIDTH / 2, shown.length - WIDTH));
    shown = `${start > 0 ? '…' : ''}${shown.slice(start, start + WIDTH)}${start + WIDTH < raw.length ? '…' : ''}`;
    at = at - start + (start > 0 ? 1 : 0);
  }
  const gutter = String(line);
  return `${gutter} | ${shown}\n${' '.repeat(gutter.length)} | ${' '.repeat(at - 1)}^`;
}
