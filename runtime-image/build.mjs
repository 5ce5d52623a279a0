// Bundles the runtime for the container: one ESM entry (dist/main.mjs) plus lazily loaded
// chunks (each model provider's SDK, the MCP client), so start-up parses only what it runs.
// Plain JavaScript so the image's build stage needs nothing but esbuild. Local mode and the
// tests run the same bundle, built into runtime-image/dist by bin/bundles.js.
// Usage: node runtime-image/build.mjs [outdir]
import { build } from 'esbuild';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** esbuild's options for the runtime bundle in `outdir`. */
export function runtimeBuildOptions(outdir) {
  return {
    // main: the runtime; workspace-sync: the one-off workspace task (infra/constructs/agent-workspace-task.ts).
    entryPoints: { main: here('./src/main.ts'), 'workspace-sync': here('./src/workspace-sync.ts') },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'warning',
    // CommonJS dependencies inside an ES module bundle need a require of their own.
    banner: { js: "import { createRequire as __cfCreateRequire } from 'node:module'; const require = __cfCreateRequire(import.meta.url);" },
  };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outdir = process.argv[2] ?? here('./dist');
  await build(runtimeBuildOptions(outdir));
  console.log(`runtime bundled into ${outdir}`);
}
