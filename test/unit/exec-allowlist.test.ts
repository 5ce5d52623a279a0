// `tools.exec.security: "allowlist"`: what parses as one simple command, what the shell
// would have interpreted and is refused, and how a program is matched against the list.
import { describe, expect, it } from 'vitest';
import { allowedProgram, allowlistedArgv, parseSimpleCommand } from '../../runtime-image/src/tools/exec-allowlist.ts';
import { SANDBOX_PATH } from '../../shared/adapters/sandbox/sandbox-port.ts';

const words = (text: string) => {
  const r = parseSimpleCommand(text);
  return r.ok ? r.value : r.error;
};

describe('parseSimpleCommand', () => {
  it('splits a program and its arguments, quotes taken literally', () => {
    expect(words('git status')).toEqual(['git', 'status']);
    expect(words('  ls   -la\tsrc/ ')).toEqual(['ls', '-la', 'src/']);
    expect(words(`git commit -m 'fix: a; b && c | d $(e) \`f\` > g'`)).toEqual(['git', 'commit', '-m', 'fix: a; b && c | d $(e) `f` > g']);
    expect(words('grep "two words" notes.md')).toEqual(['grep', 'two words', 'notes.md']);
    expect(words(`echo a'b c'd ""`)).toEqual(['echo', 'ab cd', '']);
    expect(words('ls --color=never user@host:path 50% a,b +x')).toEqual(['ls', '--color=never', 'user@host:path', '50%', 'a,b', '+x']);
  });

  it.each([
    ['ls; cat /etc/passwd', '";" is shell syntax'],
    ['ls && cat /etc/passwd', '"&" is shell syntax'],
    ['ls || true', '"|" is shell syntax'],
    ['cat notes | sh', '"|" is shell syntax'],
    ['echo $(cat /etc/passwd)', '"$" is shell syntax'],
    ['echo `id`', '"`" is shell syntax'],
    ['echo ${HOME}', '"$" is shell syntax'],
    ['ls > out', '">" is shell syntax'],
    ['ls < in', '"<" is shell syntax'],
    ['ls *', '"*" is shell syntax'],
    ['ls ?', '"?" is shell syntax'],
    ['ls [a]', '"[" is shell syntax'],
    ['ls ~', '"~" is shell syntax'],
    ['ls # comment', '"#" is shell syntax'],
    ['ls \\; rm x', '"\\" is shell syntax'],
    ['(ls)', '"(" is shell syntax'],
    ['ls &', '"&" is shell syntax'],
    ['ls\ncat /etc/passwd', 'more than one line'],
    ['ls\rcat', 'more than one line'],
    ['echo "$HOME"', '"$" inside double quotes'],
    ['echo "`id`"', '"`" inside double quotes'],
    ['echo "a\\"b"', '"\\" inside double quotes'],
    ["echo 'unterminated", 'an unterminated single quote'],
    ['echo "unterminated', 'an unterminated double quote'],
    ['PATH=/tmp/evil ls', 'starts with a variable assignment'],
    ["'ls' -la", 'the program name is quoted'],
    ['', 'the command is empty'],
    ['   ', 'the command is empty'],
    ['ls\u00a0-la', 'U+00a0'],
  ])('refuses %j (%s)', (command, why) => {
    const r = parseSimpleCommand(command);
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain(why);
    expect(r.ok ? '' : r.error).toMatch(/^refused by the exec allowlist: .*; give one program and its arguments/);
  });
});

describe('allowedProgram', () => {
  it('allows a listed name found on the sandbox’s PATH, and runs the file it resolves to', () => {
    expect(allowedProgram('ls', ['ls'], SANDBOX_PATH)).toEqual({ ok: true, value: expect.stringMatching(/^\/(usr\/)?bin\/ls$/) });
  });

  it('allows an absolute path listed as such, or whose name is listed and resolves to exactly it', () => {
    const ls = allowedProgram('ls', ['ls'], SANDBOX_PATH);
    const path = ls.ok ? ls.value : '';
    expect(allowedProgram(path, [path], SANDBOX_PATH)).toEqual({ ok: true, value: path });
    expect(allowedProgram(path, ['ls'], SANDBOX_PATH)).toEqual({ ok: true, value: path });
    // Listed by path, asked for by name: the name resolves to that path.
    expect(allowedProgram('ls', [path], SANDBOX_PATH)).toEqual({ ok: true, value: path });
  });

  it('refuses what is not listed, a relative path (a program in the workspace), and a listed name that is not installed', () => {
    expect(allowedProgram('cat', ['ls', 'git'], SANDBOX_PATH)).toEqual({
      ok: false,
      error: 'refused by the exec allowlist: "cat" is not on the allowlist (allowed: ls, git)',
    });
    expect(allowedProgram('./ls', ['ls'], SANDBOX_PATH)).toMatchObject({ ok: false, error: expect.stringContaining('"./ls" is a relative path') });
    expect(allowedProgram('bin/ls', ['ls'], SANDBOX_PATH)).toMatchObject({ ok: false, error: expect.stringContaining('relative path') });
    expect(allowedProgram('/usr/bin/../bin/ls', ['ls'], SANDBOX_PATH)).toMatchObject({ ok: false, error: expect.stringContaining('relative path') });
    // A same-named program elsewhere than the PATH lookup finds is not the listed one.
    expect(allowedProgram('/tmp/ls', ['ls'], SANDBOX_PATH)).toMatchObject({ ok: false, error: expect.stringContaining('"/tmp/ls" is not on the allowlist') });
    expect(allowedProgram('no-such-program-cf', ['no-such-program-cf'], SANDBOX_PATH)).toMatchObject({
      ok: false,
      error: expect.stringContaining("not found on the sandbox's PATH"),
    });
  });

  it('turns an allowed command into the argv that runs, unquoted, without a shell', () => {
    const r = allowlistedArgv(`ls -la 'my dir'`, ['ls'], SANDBOX_PATH);
    expect(r).toEqual({ ok: true, value: [expect.stringMatching(/\/ls$/), '-la', 'my dir'] });
    expect(allowlistedArgv('ls; cat /etc/passwd', ['ls', 'cat'], SANDBOX_PATH).ok).toBe(false);
  });
});
