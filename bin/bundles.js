// The esbuild bundles this repository runs from, so nothing compiles TypeScript at start-up:
// the CLI (dist/, what `clawfleet` and `npm start` run) and the agent runtime
// (runtime-image/dist/, what local mode and the tests start, as the container does). Built
// by `npm ci` (the `prepare` script runs this file) or `npm run build`; each carries a
// manifest of the sources it was built from, and is used only while they are unchanged.
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const MANIFEST = 'manifest.json';

/**
 * Each bundle: where it goes, its entry file, and esbuild's options. Each lives at the
 * depth of its sources (dist/ beside cli/, runtime-image/dist/ beside runtime-image/src/), so
 * modules that find files relative to themselves (`new URL('..', import.meta.url)`) find the
 * same ones bundled.
 */
export const BUNDLES = {
  cli: { dir: join(REPO, 'dist'), entry: 'clawfleet.js', options: async (outdir) => cliBundleOptions(outdir), config: 'bin/bundles.js' },
  runtime: {
    dir: join(REPO, 'runtime-image', 'dist'),
    entry: 'main.mjs',
    options: async (outdir) => (await import('../runtime-image/build.mjs')).runtimeBuildOptions(outdir),
    config: 'runtime-image/build.mjs',
  },
};

/** The CLI: ESM, one chunk per lazily imported command, dependencies left in node_modules. */
export function cliBundleOptions(outdir) {
  return {
    entryPoints: { clawfleet: 'cli/main.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    chunkNames: 'chunk-[hash]',
    // This file stays outside the bundle, imported from bin/ as it is (the output sits at the
    // depth of local/, whose relative import of it is kept): bundled, its paths would be dist's.
    plugins: [
      { name: 'keep-bin-bundles', setup: (build) => build.onResolve({ filter: /\/bin\/bundles\.js$/ }, (args) => ({ path: args.path, external: true })) },
    ],
  };
}

/** The bundle's entry file if it was built from the sources exactly as they are now, else undefined. */
export function freshBundle(kind, dir = BUNDLES[kind].dir) {
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
  return join(dir, BUNDLES[kind].entry);
}

/** Builds the bundle into a fresh directory and puts it in place of the old one; returns its entry file. */
export async function buildBundle(kind, dir = BUNDLES[kind].dir) {
  const esbuild = await import('esbuild');
  const bundle = BUNDLES[kind];
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  rmSync(staging, { recursive: true, force: true });
  try {
    const result = await esbuild.build({ ...(await bundle.options(staging)), absWorkingDir: REPO, metafile: true, logLevel: 'silent' });
    // What the bundle was made of, its build settings, and this file. A plugin's virtual
    // module (`namespace:path`, e.g. the runtime's node-builtin:fs) is no file to go stale.
    const inputs = {};
    const files = Object.keys(result.metafile.inputs).filter((path) => !/^[a-z-]+:/.test(path));
    for (const path of [...files, bundle.config, relative(REPO, fileURLToPath(import.meta.url))]) {
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
  return join(dir, bundle.entry);
}

/** The fresh bundle's entry, rebuilding it first if the sources changed; undefined if it cannot be built. */
export async function ensureBundle(kind) {
  const fresh = freshBundle(kind);
  if (fresh) return fresh;
  try {
    return await buildBundle(kind);
  } catch {
    return undefined;
  }
}

// `node bin/bundles.js` (npm's `prepare` at `npm ci`, or `npm run build`): build both now.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  for (const kind of Object.keys(BUNDLES)) {
    const started = performance.now();
    try {
      const entry = await buildBundle(kind);
      console.log(`clawfleet: ${kind} bundle built in ${Math.round(performance.now() - started)} ms (${relative(REPO, entry)})`);
    } catch (err) {
      // Never fail an install over it: the TypeScript sources run instead, only slower to start.
      console.warn(`clawfleet: ${kind} bundle not built (${err.message.split('\n')[0]}); it runs from the TypeScript sources instead`);
    }
  }
}
