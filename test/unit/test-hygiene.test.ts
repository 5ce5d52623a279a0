// What every test file keeps to, read from the sources (docs/testing.md, "Temp dirs and waits"):
// a temp dir comes from tempDir() (test/support/temp-dirs.ts), which removes it when the file
// ends, never straight from the system's temp dir; and a wait for an event does not give up
// after a guess of a second or two (expect.poll's default is 20 s in vitest.config.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return e.name.endsWith('.ts') ? [path.split(sep).join('/')] : [];
  });
}

/** Test code: not the fixtures (programs run by hand or by a test, not in vitest). */
const tests = sources('test').filter((f) => !f.startsWith('test/fixtures/'));

/** The files that own the run's temp dirs: tempDir() itself, the run's root, and the emulator's own (removed at its teardown). */
const TEMP_OWNERS = ['test/support/temp-dirs.ts', 'test/support/temp-root.ts', 'test/support/global-setup.ts'];

/** Each line of `files` that matches `re`, as `file:line: text`. */
function offending(files: string[], re: RegExp, keep: (m: RegExpMatchArray) => boolean = () => true): string[] {
  return files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((line, i) => [...line.matchAll(re)].filter(keep).map(() => `${f}:${i + 1}: ${line.trim()}`)),
  );
}

describe('test files', () => {
  it('make temp dirs with tempDir(), which removes them when the file ends, not in the system temp dir by hand', () => {
    const byHand = offending(
      tests.filter((f) => !TEMP_OWNERS.includes(f)),
      /mkdtemp(?:Sync)?\(\s*(?:join\(\s*)?(?:`\$\{)?(?:os\.)?tmpdir\(\)/g,
    );
    expect(byHand).toEqual([]);
  });

  it('give a poll for an event more than a guess of a few seconds', () => {
    const hasty = offending(tests, /(?:poll|waitFor)\(.*?\btimeout: ([\d_]+)/g, (m) => Number(m[1]!.replaceAll('_', '')) < 5_000);
    expect(hasty).toEqual([]);
  });
});
