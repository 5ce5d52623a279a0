// Where JSON text stops being JSON, and why, in words a person can act on: JSON.parse says
// only "Unexpected token" (and on Node 20 often not where). Run once JSON.parse has failed; a
// small strict scanner walks the text to the first character JSON does not allow there.
import { lineColumn, sourceExcerpt } from './source-excerpt.ts';

export interface JsonSyntaxProblem {
  line: number;
  column: number;
  /** What is wrong, e.g. `a "," before "]": JSON allows no trailing comma`. */
  problem: string;
  /** The line with a caret under the column (sourceExcerpt). */
  excerpt: string;
}

type Frame = { kind: 'object' | 'array'; at: number };

/** What went wrong at `at`; thrown inside the scanner, caught by jsonSyntaxProblem. */
class Stop {
  constructor(
    readonly at: number,
    readonly problem: string,
  ) {}
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** The first syntax problem in `text`, or undefined if it is valid JSON. */
export function jsonSyntaxProblem(text: string): JsonSyntaxProblem | undefined {
  const stop = scan(text);
  if (!stop) return undefined;
  const { line, column } = lineColumn(text, stop.at);
  return { line, column, problem: stop.problem, excerpt: sourceExcerpt(text, line, column) };
}

function scan(text: string): Stop | undefined {
  let i = 0;
  const stack: Frame[] = [];
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const shown = (c: string) => (c === '"' ? 'a string' : `"${c}"`);
  const found = () => {
    if (i >= text.length) {
      const open = stack.at(-1);
      if (!open) throw new Stop(i, 'the text ends where a value should be');
      const { line, column } = lineColumn(text, open.at);
      throw new Stop(i, `the text ends inside the ${open.kind} opened at line ${line}, column ${column}`);
    }
    const c = text[i]!;
    if (c === '/' && (text[i + 1] === '/' || text[i + 1] === '*')) throw new Stop(i, 'JSON has no comments');
    if (c === "'") throw new Stop(i, "JSON strings take double quotes, not '");
    return `found ${shown(c)}`;
  };
  const string = () => {
    const start = i++;
    for (;;) {
      if (i >= text.length) throw new Stop(start, 'this string is never closed (a missing ")');
      const c = text[i]!;
      if (c === '"') return void i++;
      if (c === '\n' || c < ' ') throw new Stop(i, 'a string cannot hold a line break or control character (write \\n)');
      if (c === '\\') {
        const e = text[i + 1] ?? '';
        if (e === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) throw new Stop(i, '\\u must be followed by four hex digits');
          i += 6;
        } else if ('"\\/bfnrt'.includes(e) && e !== '') i += 2;
        else throw new Stop(i, `"\\${e}" is not an escape JSON knows (\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)`);
      } else i++;
    }
  };
  /** One scalar, or the opening of a container (pushed on the stack). */
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      stack.push({ kind: c === '{' ? 'object' : 'array', at: i });
      i++;
      return true;
    }
    if (c === '"') return void string();
    for (const word of ['true', 'false', 'null']) {
      if (text.startsWith(word, i)) return void (i += word.length);
    }
    NUMBER.lastIndex = i;
    if (c !== undefined && /[-\d]/.test(c) && NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    if (c !== undefined && /[A-Za-z_]/.test(c))
      throw new Stop(i, `expected a value, ${found()} (strings take double quotes; the literals are true, false and null)`);
    throw new Stop(i, `expected a value, ${found()}`);
  };
  const key = (afterComma: boolean) => {
    ws();
    const c = text[i];
    if (c === '"') return string();
    if (afterComma && c === '}') throw new Stop(i, 'a "," before "}": JSON allows no trailing comma');
    if (c !== undefined && /[A-Za-z_$]/.test(c)) throw new Stop(i, 'a property name needs double quotes');
    throw new Stop(i, `expected a property name in double quotes, ${found()}`);
  };
  const colon = () => {
    ws();
    if (text[i] !== ':') throw new Stop(i, `expected ":" after the property name, ${found()}`);
    i++;
  };

  try {
    // Each turn: a value has just ended (or a container just opened) — close, continue or end.
    let opened = value() === true;
    for (;;) {
      const top = stack.at(-1);
      if (!top) break;
      ws();
      const close = top.kind === 'object' ? '}' : ']';
      if (opened) {
        opened = false;
        if (text[i] === close) {
          i++;
          stack.pop();
          continue;
        }
        if (top.kind === 'object') key(false), colon();
        opened = value() === true;
        continue;
      }
      if (text[i] === close) {
        i++;
        stack.pop();
        continue;
      }
      if (text[i] === ',') {
        i++;
        if (top.kind === 'object') key(true), colon();
        else {
          ws();
          if (text[i] === ']') throw new Stop(i, 'a "," before "]": JSON allows no trailing comma');
        }
        opened = value() === true;
        continue;
      }
      const missing = top.kind === 'object' ? 'after a property' : 'between the items of a list';
      throw new Stop(
        i,
        `expected "," or "${close}" ${missing}, ${found()}${text[i] === '"' || text[i] === '{' || text[i] === '[' ? ' (a "," missing before it?)' : ''}`,
      );
    }
    ws();
    if (i < text.length) throw new Stop(i, `the JSON value ends before this: ${found()} (more than one value, or a stray character?)`);
    return undefined;
  } catch (err) {
    if (err instanceof Stop) return err;
    throw err;
  }
}
