// How every control-plane function is bundled: the esbuild settings, the build the CDK app runs
// for each function (control-functions.ts), and the same build for the bundle benchmark and the
// bundle test, which must not load the CDK to read them.
import { buildSync, type BuildOptions, type Metafile } from 'esbuild';

/**
 * ESM needs `require` for the CommonJS dependencies esbuild inlines. Every chunk is a module
 * of its own, so each gets the banner, and `require` in each is its own binding.
 */
const ESM_REQUIRE_BANNER = "import { createRequire as __cfCreateRequire } from 'node:module'; const require = __cfCreateRequire(import.meta.url);";

export const BUILD_SETTINGS = {
  format: 'esm',
  target: 'node24',
  minify: true,
  sourceMap: false,
  banner: ESM_REQUIRE_BANNER,
  // The AWS SDK is bundled, not taken from the runtime: a pinned SDK version, and the
  // emulator's Lambda (the host's node) has no SDK to offer. But not the credential sources
  // a function never has: Lambda puts the role's credentials in the environment, the SDK's
  // chain takes them from there first, and the links it would import only after that (SSO,
  // profiles, credential processes, web identity tokens, with the STS and SSO clients they
  // bring) are a quarter of a bundle.
  externalModules: [
    '@aws-sdk/credential-provider-sso',
    '@aws-sdk/credential-provider-ini',
    '@aws-sdk/credential-provider-process',
    '@aws-sdk/credential-provider-web-identity',
  ],
  mainFields: ['module', 'main'],
  // What a handler imports with `import()` (and the SDK's own: its event-stream codec, the
  // container and instance credential sources Lambda never reaches) goes into chunks beside
  // index.mjs, loaded on the request that first needs them, not at the function's cold start.
  splitting: true,
} as const;

/** The same build as the CDK app's, for esbuild's API (the benchmark, the bundle test): index.mjs and its chunks in `outdir`. */
export function esbuildOptions(entry: string, outdir: string): BuildOptions {
  return {
    entryPoints: [entry],
    outdir,
    entryNames: 'index',
    chunkNames: 'chunks/[name]-[hash]',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: BUILD_SETTINGS.splitting,
    platform: 'node',
    format: BUILD_SETTINGS.format,
    target: BUILD_SETTINGS.target,
    minify: BUILD_SETTINGS.minify,
    sourcemap: BUILD_SETTINGS.sourceMap,
    mainFields: [...BUILD_SETTINGS.mainFields],
    external: [...BUILD_SETTINGS.externalModules],
    banner: { js: BUILD_SETTINGS.banner },
    logLevel: 'error',
  };
}

/** Builds the handler `entry` into `outdir` (index.mjs, chunks/): the CDK app's local bundling, synchronous as it asks. */
export function bundleFunction(entry: string, outdir: string): void {
  buildSync(esbuildOptions(entry, outdir));
}

/** What a cold start loads of a build: index.mjs and every chunk it imports statically, and what waits for an `import()`. */
export function coldStartOutputs(metafile: Metafile): { atStart: string[]; startBytes: number; lazyBytes: number } {
  const outputs = metafile.outputs;
  // The handler's own file; the targets of import() are entry points too, named as chunks.
  const entry = Object.keys(outputs).find((file) => /(^|\/)index\.mjs$/.test(file));
  if (!entry) throw new Error('the build has no index.mjs');
  const atStart = new Set<string>();
  const visit = (file: string) => {
    if (atStart.has(file)) return;
    atStart.add(file);
    for (const i of outputs[file]!.imports) if (i.kind === 'import-statement' && outputs[i.path]) visit(i.path);
  };
  visit(entry);
  const bytes = (files: string[]) => files.reduce((sum, f) => sum + outputs[f]!.bytes, 0);
  return { atStart: [...atStart], startBytes: bytes([...atStart]), lazyBytes: bytes(Object.keys(outputs).filter((f) => !atStart.has(f))) };
}
