// What the docs say about the code, checked against it where it drifts: the exit codes in
// docs/cli.md (each example run), its command and audit tables against the commands and the
// audit's findings, and the package count in docs/benchmarks.md against package-lock.json.
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/command.ts';
import { COMMANDS, runCli } from '../../cli/main.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

const cliDoc = readFileSync('docs/cli.md', 'utf8');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The rows of the markdown table whose header row starts with `header`, as cells. */
function tableRows(doc: string, header: string): string[][] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l.startsWith(header));
  expect(start, `a table headed ${header}`).toBeGreaterThan(-1);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

describe('docs/cli.md', () => {
  const rows = tableRows(cliDoc, '| Code | Name');

  it('lists every exit code the CLI has, by its name in the code', () => {
    const documented = Object.fromEntries(rows.map(([code, name]) => [name!.replace(/`/g, ''), Number(code)]));
    expect(documented).toEqual(EXIT);
    // The main help says the same four.
    const help = captureIO();
    return runCli(['--help'], help).then(() => expect(help.outText()).toContain('Exit codes: 0 ok, 1 failed, 2 usage error, 3 invalid input.'));
  });

  it('gives examples that return the code their row says', async () => {
    let ran = 0;
    for (const [code, , , examples] of rows) {
      const commands = [...examples!.matchAll(/`clawfleet ([^`]+)`/g)].map((m) => m[1]!.split(' '));
      expect(commands.length, `examples for exit ${code}`).toBeGreaterThan(0);
      for (const argv of commands) {
        const dir = tempDir('cf-doc-exit-');
        dirs.push(dir);
        writeFileSync(join(dir, 'clawfleet.json'), readFileSync('clawfleet.json'));
        const io = captureIO({ cwd: dir });
        expect(await runCli(argv, io), `clawfleet ${argv.join(' ')}: ${io.errText()}`).toBe(Number(code));
        ran++;
      }
    }
    expect(ran).toBeGreaterThanOrEqual(rows.length);
  });

  it('has a row for every command', () => {
    const missing = COMMANDS.filter((c) => !new RegExp(`^\\| \`${c.name}[ \`]`, 'm').test(cliDoc)).map((c) => c.name);
    expect(missing).toEqual([]);
  });

  it('names every finding the security audit can make, and none it cannot', () => {
    const code = readdirSync('cli/security').flatMap((f) =>
      [...readFileSync(join('cli/security', f), 'utf8').matchAll(/\bid: '([a-z]+\.[a-z-]+)'/g)].map((m) => m[1]!),
    );
    const documented = tableRows(cliDoc, '| id ').flatMap(([ids]) => [...ids!.matchAll(/`([a-z]+\.[a-z-]+)`/g)].map((m) => m[1]!));
    expect(new Set(documented)).toEqual(new Set(code));
    expect(code.length).toBeGreaterThan(15);
  });
});

/**
 * The packages `npm ci` installs here, counted from package-lock.json as npm does: what the
 * root's dependencies reach, resolved as Node resolves them, leaving out packages for another
 * OS, CPU or libc and those bundled inside another; a link counts once (not its target).
 */
function installedPackages(): number {
  const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
    packages: Record<
      string,
      {
        dependencies?: object;
        optionalDependencies?: object;
        devDependencies?: object;
        os?: string[];
        cpu?: string[];
        libc?: string[];
        inBundle?: boolean;
        link?: boolean;
        resolved?: string;
      }
    >;
  };
  const pk = lock.packages;
  const glibc = Boolean((process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime);
  const allows = (list: string[] | undefined, v: string) => !list || list.includes(v) || (list.every((x) => x.startsWith('!')) && !list.includes(`!${v}`));
  const fits = (p: (typeof pk)[string]) =>
    allows(p.os, process.platform) && allows(p.cpu, process.arch) && (!p.libc || p.libc.includes(glibc ? 'glibc' : 'musl'));
  const resolve = (from: string, name: string): string | undefined => {
    for (let dir = from; ; ) {
      const at = `${dir ? `${dir}/` : ''}node_modules/${name}`;
      if (pk[at]) return at;
      if (!dir) return undefined;
      const i = dir.lastIndexOf('/node_modules/');
      dir = i < 0 ? '' : dir.slice(0, i);
    }
  };
  const counted = new Set<string>();
  const visited = new Set<string>();
  const visit = (path: string) => {
    if (visited.has(path)) return;
    visited.add(path);
    const p = pk[path]!;
    for (const name of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...(path === '' ? p.devDependencies : {}) })) {
      const at = resolve(path, name);
      if (!at || !fits(pk[at]!)) continue;
      if (!pk[at]!.inBundle) counted.add(at);
      visit(pk[at]!.link ? pk[at]!.resolved! : at);
    }
  };
  visit('');
  return counted.size;
}

describe('docs/benchmarks.md', () => {
  it('gives the number of packages `npm ci` installs today', () => {
    const said = /today `npm ci` installs \*\*(\d+) packages\*\*/.exec(readFileSync('docs/benchmarks.md', 'utf8'));
    expect(said, 'the sentence with the count').not.toBeNull();
    // Counted here on Linux x64, where the project's machines run; elsewhere the platform packages differ.
    if (process.platform === 'linux' && process.arch === 'x64') expect(installedPackages()).toBe(Number(said![1]));
  });
});
