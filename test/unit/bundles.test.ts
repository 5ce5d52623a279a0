// The bundles the CLI and local runtimes run from (bin/bundles.js): built from the sources,
// refused once any of them changes (the bin and local mode then rebuild them or run the
// sources), and the CLI's split so that `clawfleet --help` loads no dependency and a local
// `clawfleet status` no AWS SDK.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, cliBundleOptions, freshBundle } from '../../bin/bundles.js';
import { runtimeCommand } from '../../local/runtime-entry.ts';
import { tempDir } from '../support/temp-dirs.ts';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = tempDir('cf-cli-bundle-');
  bundle = join(dir, 'dist');
  await buildBundle('cli', bundle);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The packages an output loads before it runs: its static imports, followed through the chunks. */
function staticExternals(meta: Metafile, output: string): Set<string> {
  const found = new Set<string>();
  const seen = new Set<string>();
  const visit = (out: string) => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of meta.outputs[out]!.imports) {
      if (i.kind !== 'import-statement') continue;
      if (i.external) found.add(i.path);
      else visit(i.path);
    }
  };
  visit(output);
  return found;
}

describe('the CLI bundle', () => {
  it('is taken while the sources are as it was built from them', () => {
    expect(freshBundle('cli', bundle)).toBe(join(bundle, 'clawfleet.js'));
  });

  it('is refused once a source it was built from differs, or its manifest is missing', () => {
    const manifestPath = join(bundle, 'manifest.json');
    const original = readFileSync(manifestPath, 'utf8');
    try {
      const manifest = JSON.parse(original) as { inputs: Record<string, { size: number; mtimeMs: number }> };
      expect(Object.keys(manifest.inputs)).toEqual(expect.arrayContaining(['cli/main.ts', 'cli/status.ts', 'local/fleet.ts', 'bin/bundles.js']));
      // As if cli/status.ts had been edited (or checked out) since the build.
      manifest.inputs['cli/status.ts']!.mtimeMs -= 1;
      writeFileSync(manifestPath, JSON.stringify(manifest));
      expect(freshBundle('cli', bundle)).toBeUndefined();
      manifest.inputs['cli/status.ts']!.mtimeMs += 1;
      manifest.inputs['shared/errors.ts']!.size += 1;
      writeFileSync(manifestPath, JSON.stringify(manifest));
      expect(freshBundle('cli', bundle)).toBeUndefined();
      rmSync(manifestPath);
      expect(freshBundle('cli', bundle)).toBeUndefined();
    } finally {
      writeFileSync(manifestPath, original);
    }
  });

  it('runs as the CLI does', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [
      '-e',
      `import(${JSON.stringify(join(bundle, 'clawfleet.js'))}).then((m) => m.runCli(['--help'], { out: console.log, err: console.error }))`,
    ]);
    expect(stdout).toMatch(/^Usage: clawfleet <command>/);
    expect(stdout).toContain('  status ');
  });

  it('loads no dependency for --help, and no AWS SDK or SQLite for a local status', async () => {
    const { metafile } = await build({ ...cliBundleOptions(join(dir, 'probe')), absWorkingDir: process.cwd(), metafile: true, write: false });
    const outputOf = (entry: string) => Object.keys(metafile.outputs).find((o) => metafile.outputs[o]!.entryPoint === entry)!;
    expect([...staticExternals(metafile, outputOf('cli/main.ts'))].filter((p) => !p.startsWith('node:'))).toEqual([]);
    const status = [...staticExternals(metafile, outputOf('cli/status.ts'))];
    expect(status.filter((p) => /^(@aws-sdk|better-sqlite3|@mariozechner|@modelcontextprotocol)/.test(p))).toEqual([]);
    // What a start loads is no business of `status`: the fleet's code is in its own chunk.
    expect(status).not.toContain('better-sqlite3');
    expect([...staticExternals(metafile, outputOf('cli/start.ts'))]).toContain('better-sqlite3');
  });

  it('builds the runtime bundle with a manifest of its sources and build settings', async () => {
    const entry = await buildBundle('runtime', join(dir, 'runtime'));
    expect(entry).toBe(join(dir, 'runtime', 'main.mjs'));
    expect(freshBundle('runtime', join(dir, 'runtime'))).toBe(entry);
    const { inputs } = JSON.parse(readFileSync(join(dir, 'runtime', 'manifest.json'), 'utf8')) as { inputs: Record<string, unknown> };
    expect(Object.keys(inputs)).toEqual(
      expect.arrayContaining(['runtime-image/src/main.ts', 'runtime-image/src/kinds/native.ts', 'shared/log.ts', 'runtime-image/build.mjs', 'bin/bundles.js']),
    );
    // A whole esbuild run (6-9 s on a busy 2-core machine since web_fetch bundles Readability
    // and linkedom): the time is not what this test checks.
  }, 60_000);

  it('runs local runtimes from the runtime bundle while it is fresh, else from the sources', () => {
    const fresh = freshBundle('runtime');
    const [node, ...args] = runtimeCommand();
    expect(node).toBe(process.execPath);
    if (fresh) expect(args).toEqual(['--enable-source-maps', fresh]);
    // tsx by its path: a boxed runtime's working directory is its workspace, where the name resolves to nothing.
    else
      expect(args).toEqual([
        '--import',
        expect.stringMatching(/^file:\/\/.*\/node_modules\/tsx\/.*\.mjs$/),
        expect.stringMatching(/runtime-image\/src\/main\.ts$/),
      ]);
  });
});
