// `tools.exec.security: "allowlist"`: a command is accepted only if it parses as one simple
// command — a program and its arguments, nothing a shell would interpret — and the
// program, looked up on the sandbox's PATH, is on the allowlist. The words are then run
// directly (no shell), so what was checked is exactly what runs. Anything this parser
// cannot read plainly is refused rather than guessed at.
import { basename } from 'node:path';
import { findOnPath, isExecutableFile } from '../../../shared/adapters/fs/path-lookup.ts';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** Characters a word may hold unquoted; everything else means the shell would do something. */
const PLAIN = /[A-Za-z0-9_@%+=:,./-]/;
/** Inside double quotes the shell still expands these. */
const EXPANDED_IN_DOUBLE_QUOTES = /[$`\\!]/;

const describe = (c: string) => (c.charCodeAt(0) < 32 || c.trim() === '' ? `the character U+${c.charCodeAt(0).toString(16).padStart(4, '0')}` : `"${c}"`);

/** Splits `text` into words the way sh would for a simple command, or says why it will not. */
export function parseSimpleCommand(text: string): Checked<string[]> {
  const refuse = (why: string): Checked<string[]> => ({
    ok: false,
    error: `refused by the exec allowlist: ${why}; give one program and its arguments, without pipes, ";", "&&", redirection, $(…), backticks, variables or globs`,
  });
  if (/[\r\n\0]/.test(text)) return refuse('the command has more than one line');
  const words: string[] = [];
  let word: string | undefined;
  let firstQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t') {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return refuse(`an unterminated ${c === "'" ? 'single' : 'double'} quote`);
      const quoted = text.slice(i + 1, end);
      if (c === '"' && EXPANDED_IN_DOUBLE_QUOTES.test(quoted)) return refuse(`${describe(EXPANDED_IN_DOUBLE_QUOTES.exec(quoted)![0])} inside double quotes`);
      if (words.length === 0) firstQuoted = true;
      word = (word ?? '') + quoted;
      i = end;
      continue;
    }
    if (!PLAIN.test(c)) return refuse(`${describe(c)} is shell syntax`);
    word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  if (words.length === 0) return refuse('the command is empty');
  if (firstQuoted) return refuse('the program name is quoted');
  if (words[0]!.includes('=')) return refuse('it starts with a variable assignment');
  return { ok: true, value: words };
}

/**
 * The file to run for `program` if the allowlist allows it: a bare name found on `path`,
 * listed by name or by the path it resolves to; an absolute path listed as such (or by a
 * name that resolves to exactly it). A relative path (a program in the workspace) never is.
 */
export function allowedProgram(program: string, allowlist: string[], path: string): Checked<string> {
  const refuse = (why: string): Checked<string> => ({ ok: false, error: `refused by the exec allowlist: ${why} (allowed: ${allowlist.join(', ')})` });
  if (program.includes('/')) {
    if (!program.startsWith('/') || program.split('/').some((p) => p === '.' || p === '..')) return refuse(`"${program}" is a relative path`);
    const listed = allowlist.includes(program) || (allowlist.includes(basename(program)) && findOnPath(basename(program), path) === program);
    if (!listed) return refuse(`"${program}" is not on the allowlist`);
    return isExecutableFile(program) ? { ok: true, value: program } : refuse(`"${program}" is not an executable file`);
  }
  const file = findOnPath(program, path);
  if (!allowlist.includes(program) && !(file && allowlist.includes(file))) return refuse(`"${program}" is not on the allowlist`);
  return file ? { ok: true, value: file } : refuse(`"${program}" is not found on the sandbox's PATH (${path})`);
}

/** The argv to run for `command` under the allowlist: its program resolved, its words as they are. */
export function allowlistedArgv(command: string, allowlist: string[], path: string): Checked<string[]> {
  const words = parseSimpleCommand(command);
  if (!words.ok) return words;
  const [program, ...args] = words.value;
  const file = allowedProgram(program!, allowlist, path);
  return file.ok ? { ok: true, value: [file.value, ...args] } : file;
}
