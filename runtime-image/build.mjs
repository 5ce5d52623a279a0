// Bundles the runtime for the container: one ESM entry (dist/main.mjs) plus lazily loaded
// chunks (each model provider's SDK, the MCP client), so start-up parses only what it runs.
// Plain JavaScript so the image's build stage needs nothing but esbuild. Local mode and the
// tests run the same bundle, built into runtime-image/dist by bin/bundles.js.
// Usage: node runtime-image/build.mjs [outdir]
import { build } from 'esbuild';
import { isBuiltin } from 'node:module';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** zod's `locales` namespace with English only (src/zod-english-only.ts): the rest is ~360 KB no message uses. */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: here('./src/zod-english-only.ts') } : undefined));
  },
};

/**
 * Node's built-in modules through require(), not import. An ES module that imports a
 * built-in gets a namespace of all its exports, and filling it reads every lazy getter:
 * importing node:http loads undici (Node's fetch), node:crypto the whole of WebCrypto,
 * node:fs the streams — ~10 MB and tens of ms of a start, for exports nobody uses. Each
 * built-in becomes a one-line CommonJS module here, so a property is read when it is used.
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    b.onResolve({ filter: /^[a-z_:/]+$/ }, (args) => {
      if (!isBuiltin(args.path)) return undefined;
      // The require inside the one-liner below: Node's own, at run time.
      if (args.namespace === 'node-builtin') return { path: args.path, external: true };
      return { path: args.path, namespace: 'node-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/** esbuild's options for the runtime bundle in `outdir`. */
export function runtimeBuildOptions(outdir) {
  return {
    entryPoints: { main: here('./src/main.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    // Stack traces need only the mappings; the sources themselves were 70-85 % of each map,
    // which Node reads for every module it loads under --enable-source-maps.
    sourcesContent: false,
    legalComments: 'none',
    logLevel: 'warning',
    // CommonJS dependencies inside an ES module bundle need a require of their own (and the
    // built-ins, see builtinsByRequire).
    banner: { js: "import { createRequire as __cfCreateRequire } from 'node:module'; const require = __cfCreateRequire(import.meta.url);" },
    plugins: [builtinsByRequire, zodEnglishOnly],
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ?? here('./dist');
  await build(runtimeBuildOptions(outdir));
  console.log(`runtime bundled into ${outdir}`);
}
