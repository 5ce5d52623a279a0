// The CLI's esbuild bundle in dist/: built by `npm ci` (the `prepare` script runs this file),
// checked by bin/clawfleet.js at every start against the sources it was built from, and
// rebuilt when they changed, so the CLI never runs stale code and never compiles TypeScript
// at start-up. Dependencies stay in node_modules (external); only this repository's code is
// bundled, one chunk per command, so a command loads only what it uses.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
// One level below the repository root, as the sources are (cli/, local/): modules that find
// files relative to themselves (`new URL('..', import.meta.url)`) find the same ones bundled.
export const BUNDLE_DIR = join(REPO, 'dist');
const MANIFEST = 'manifest.json';
const ENTRY = 'clawfleet.js';

/** The bundle's entry file if it was built from the sources exactly as they are now, else undefined. */
export function freshBundle(dir = BUNDLE_DIR) {
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return undefined;
  }
  if (manifest?.version !== 1 || typeof manifest.inputs !== 'object' || manifest.inputs === null) return undefined;
  for (const [path, seen] of Object.entries(manifest.inputs)) {
    let now;
    try {
      now = statSync(join(REPO, path));
    } catch {
      return undefined;
    }
    // Size and modification time, as make and tsc's incremental builds compare: any edit,
    // checkout or copy of a source file changes at least one of them.
    if (now.size !== seen.size || now.mtimeMs !== seen.mtimeMs) return undefined;
  }
  return join(dir, ENTRY);
}

/** esbuild's options for the bundle: ESM, one chunk per lazily imported command, dependencies left in node_modules. */
export function bundleOptions(outdir) {
  return {
    absWorkingDir: REPO,
    entryPoints: { clawfleet: 'cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    logLevel: 'silent',
  };
}

/** Builds the bundle into a fresh directory and puts it in place of the old one; returns its entry file. */
export async function buildBundle(dir = BUNDLE_DIR) {
  const esbuild = await import('esbuild');
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const result = await esbuild.build(bundleOptions(staging));
    // What the bundle was made of, and this file (its build settings).
    const inputs = {};
    for (const path of [...Object.keys(result.metafile.inputs), relative(REPO, fileURLToPath(import.meta.url))]) {
      const { size, mtimeMs } = statSync(join(REPO, path));
      inputs[path] = { size, mtimeMs };
    }
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify({ version: 1, builtAt: new Date().toISOString(), inputs }, null, 1)}\n`);
    // Swapped in whole: a start that reads the manifest sees the old bundle or the new one.
    const old = `${dir}.old-${process.pid}-${Date.now()}`;
    try {
      renameSync(dir, old);
    } catch (err) {
      if (err.code !== 'ENOENT') throw err;
    }
    renameSync(staging, dir);
    rmSync(old, { recursive: true, force: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(dir, ENTRY);
}

// `node bin/cli-bundle.js` (npm's `prepare` at `npm ci`, or `npm run build`): build it now.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  try {
    const entry = await buildBundle();
    console.log(`clawfleet: CLI bundle built in ${Math.round(performance.now() - started)} ms (${relative(REPO, entry)})`);
  } catch (err) {
    // Never fail an install over it: the bin runs the TypeScript sources instead, only slower.
    console.warn(`clawfleet: CLI bundle not built (${err.message.split('\n')[0]}); \`clawfleet\` runs from the TypeScript sources instead`);
  }
}
