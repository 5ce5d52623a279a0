// Where the next completed block of an answer ends (block streaming): at a paragraph break
// or after a closed code block, never inside a code fence or a list item, once the block has
// minChars; past maxChars, at the last line break that keeps those rules. The answer is
// decided from what has been written so far alone, so the same text always splits the same
// way however it arrived (a block once sent is never taken back).
import { DEFAULT_BLOCK_CHUNK } from '../../../shared/protocol/envelopes.ts';

export interface BlockBounds {
  minChars: number;
  maxChars: number;
}

/** Where the control plane names none (it always does in block mode). */
export const DEFAULT_BLOCK_BOUNDS: BlockBounds = DEFAULT_BLOCK_CHUNK;

interface Line {
  start: number;
  text: string;
  /** The line is complete (its newline has been written). */
  whole: boolean;
}

function linesFrom(text: string, from: number): Line[] {
  const lines: Line[] = [];
  let start = from;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    if (nl === -1) {
      lines.push({ start, text: text.slice(start), whole: false });
      break;
    }
    lines.push({ start, text: text.slice(start, nl), whole: true });
    start = nl + 1;
  }
  return lines;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const blank = (l: Line) => l.text.trim() === '';
/** A line that goes on the item or block above it (indented), rather than starting something new. */
const continues = (l: Line) => /^\s/.test(l.text);

/**
 * The end (the start of the line after it) of the block that starts at `from`, or undefined
 * while it cannot be told yet. A boundary is only taken once the next line's first character
 * is there, so a block is never sent while the text after it could still change what it is.
 */
export function nextBlockEnd(text: string, from: number, bounds: BlockBounds): number | undefined {
  const lines = linesFrom(text, from);
  let fence: string | undefined;
  /** Paragraph breaks and ends of code blocks: the preferred places. */
  const breaks: number[] = [];
  /** Any line break outside a fence before a line that starts something: used only past maxChars. */
  const lineBreaks: number[] = [];
  let content = false;
  for (const [i, line] of lines.entries()) {
    const prev = lines[i - 1];
    // A place to cut: outside any fence, before a line that starts something new.
    if (prev && fence === undefined && content && !blank(line) && !continues(line)) {
      // After a blank line, or after the fence line that closed a code block (it is closed, or fence would be set).
      if (blank(prev) || FENCE.test(prev.text)) breaks.push(line.start);
      // Not before a fence that opens (or a line still being written that may become one): the line introducing a code block stays with it.
      if (!FENCE.test(line.text) && (line.whole || !/^(`{1,2}|~{1,2})$/.test(line.text))) lineBreaks.push(line.start);
    }
    if (!line.whole) break;
    const marker = FENCE.exec(line.text)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length && line.text.trim() === marker) fence = undefined;
    }
    if (!blank(line)) content = true;
  }
  const size = (end: number) => text.slice(from, end).trim().length;
  const windowEnd = from + bounds.maxChars;
  const inWindow = breaks.find((b) => b <= windowEnd && size(b) >= bounds.minChars);
  if (inWindow !== undefined) return inWindow;
  // Nothing to cut at within maxChars yet: wait, unless the text has already run past it.
  if (text.length <= windowEnd) return undefined;
  const lastLine = lineBreaks.filter((b) => b <= windowEnd).at(-1);
  if (lastLine !== undefined) return lastLine;
  // One long paragraph, list item or code block: the first place after it.
  return lineBreaks.find((b) => b > windowEnd);
}

/** The completed blocks of `text` from `from` on, and where the text not yet in a block starts. */
export function completedBlocks(text: string, from: number, bounds: BlockBounds): { blocks: string[]; rest: number } {
  const blocks: string[] = [];
  let at = from;
  for (let end = nextBlockEnd(text, at, bounds); end !== undefined; end = nextBlockEnd(text, at, bounds)) {
    const block = text.slice(at, end).trim();
    if (block !== '') blocks.push(block);
    at = end;
  }
  return { blocks, rest: at };
}
