// The CLI's bundle (bin/cli-bundle.js): built from the sources, refused once any of them
// changes (the bin then rebuilds it), and split so that `clawfleet --help` loads no
// dependency and a local `clawfleet status` no AWS SDK.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundle, bundleOptions, freshBundle } from '../../bin/cli-bundle.js';

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cf-cli-bundle-'));
  bundle = join(dir, 'dist');
  await buildBundle(bundle);
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
    expect(freshBundle(bundle)).toBe(join(bundle, 'clawfleet.js'));
  });

  it('is refused once a source it was built from differs, or its manifest is missing', () => {
    const manifestPath = join(bundle, 'manifest.json');
    const original = readFileSync(manifestPath, 'utf8');
    try {
      const manifest = JSON.parse(original) as { inputs: Record<string, { size: number; mtimeMs: number }> };
      expect(Object.keys(manifest.inputs)).toEqual(expect.arrayContaining(['cli/main.ts', 'cli/status.ts', 'local/fleet.ts', 'bin/cli-bundle.js']));
      // As if cli/status.ts had been edited (or checked out) since the build.
      manifest.inputs['cli/status.ts']!.mtimeMs -= 1;
      writeFileSync(manifestPath, JSON.stringify(manifest));
      expect(freshBundle(bundle)).toBeUndefined();
      manifest.inputs['cli/status.ts']!.mtimeMs += 1;
      manifest.inputs['shared/errors.ts']!.size += 1;
      writeFileSync(manifestPath, JSON.stringify(manifest));
      expect(freshBundle(bundle)).toBeUndefined();
      rmSync(manifestPath);
      expect(freshBundle(bundle)).toBeUndefined();
    } finally {
      writeFileSync(manifestPath, original);
    }
  });

  it('runs as the CLI does', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', `import(${JSON.stringify(join(bundle, 'clawfleet.js'))}).then((m) => m.runCli(['--help'], { out: console.log, err: console.error }))`]);
    expect(stdout).toMatch(/^Usage: clawfleet <command>/);
    expect(stdout).toContain('  status ');
  });

  it('loads no dependency for --help, and no AWS SDK or SQLite for a local status', async () => {
    const { metafile } = await build({ ...bundleOptions(join(dir, 'probe')), write: false });
    const outputOf = (entry: string) => Object.keys(metafile.outputs).find((o) => metafile.outputs[o]!.entryPoint === entry)!;
    expect([...staticExternals(metafile, outputOf('cli/main.ts'))].filter((p) => !p.startsWith('node:'))).toEqual([]);
    const status = [...staticExternals(metafile, outputOf('cli/status.ts'))];
    expect(status.filter((p) => /^(@aws-sdk|better-sqlite3|@mariozechner|@modelcontextprotocol)/.test(p))).toEqual([]);
    // What a start loads is no business of `status`: the fleet's code is in its own chunk.
    expect(status).not.toContain('better-sqlite3');
    expect([...staticExternals(metafile, outputOf('cli/start.ts'))]).toContain('better-sqlite3');
  });
});
