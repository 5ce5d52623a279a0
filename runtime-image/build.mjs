// Bundles the runtime for the container: one ESM entry (dist/main.mjs) plus lazily loaded
// chunks (each model provider's SDK, the MCP client), so start-up parses only what it runs;
// with --compile-cache, also fills Node's compile cache for them (the image's build stage).
// Plain JavaScript so the image's build stage needs nothing but esbuild. Local mode and the
// tests run the same bundle, built into runtime-image/dist by bin/bundles.js.
// Usage: node runtime-image/build.mjs [outdir] [--compile-cache <dir>]
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = (p) => fileURLToPath(new URL(p, import.meta.url));

/** zod's `locales` namespace with English only (src/zod-english-only.ts): the rest is ~360 KB no message uses. */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer) ? { path: here('./src/zod-english-only.ts') } : undefined,
    );
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
      // A dynamic import() is Node's own, its namespace complete: the one-liner would be a
      // chunk whose only export is `default` (see cjsNamedExports).
      if (args.kind === 'dynamic-import') return { path: args.path, external: true };
      // The require inside the one-liner below: Node's own, at run time.
      if (args.namespace === 'node-builtin') return { path: args.path, external: true };
      return { path: args.path, namespace: 'node-builtin' };
    });
    b.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * A dynamic import() of a CommonJS package, with the package's named exports. With splitting,
 * esbuild makes the imported module a chunk of its own whose only export is `default` (the
 * package's module.exports), where Node gives a CommonJS module's names too: pi-ai's Bedrock
 * provider does `(await import('@smithy/node-http-handler')).NodeHttpHandler` when
 * AWS_BEDROCK_FORCE_HTTP1 or a proxy variable is set, and got undefined — "is not a
 * constructor", thrown where nothing caught it, and the runtime died on its first Bedrock call
 * behind a proxy. Each such import goes through a small ES module that names every export,
 * read from the package as Node loads it (in this build's process).
 */
const cjsNamedExports = {
  name: 'cjs-named-exports',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || isBuiltin(args.path) || args.pluginData?.cjsNamed) return undefined;
      const found = await b.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { cjsNamed: true } });
      if (found.errors.length > 0 || found.external || !isCommonJs(found.path)) return undefined;
      return { path: found.path, namespace: 'cjs-named' };
    });
    b.onLoad({ filter: /.*/, namespace: 'cjs-named' }, (args) => {
      const names = Object.keys(createRequire(args.path)(args.path)).filter((n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n));
      const file = JSON.stringify(args.path);
      // require(), not a default import: for a package marked __esModule that would be its `default`.
      return {
        contents: `const cjs = require(${file});\nexport default cjs;\nexport const { ${names.join(', ')} } = cjs;\n`,
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};

/** Whether Node loads `file` as CommonJS: a .cjs, or a .js whose nearest package.json is not `"type": "module"`, written without ES module syntax. */
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    let pkg;
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    if (pkg.type === 'module') return false;
    break;
  }
  // A package's "module" build is ES syntax in a .js file of a CommonJS package.
  return !/^\s*(import|export)\s/m.test(readFileSync(file, 'utf8'));
}

/**
 * The AWS SDK's default credential chain is the runtime's own (src/connection/sdk-credential-chain.ts) for
 * every importer but that module itself, which wraps the SDK's. The runtime takes the task
 * role's credentials settings out of its environment at start (src/connection/container-credentials.ts),
 * where the SDK's chain would look for them; every SDK client in the bundle, pi-ai's Bedrock
 * client included (it takes no credentials option), then signs with what the runtime took over.
 */
const runtimeCredentialChain = {
  name: 'runtime-credential-chain',
  setup(b) {
    const chain = here('./src/connection/sdk-credential-chain.ts');
    b.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, (args) => (args.importer === chain ? undefined : { path: chain }));
  },
};

/** esbuild's options for the runtime bundle in `outdir`. */
export function runtimeBuildOptions(outdir) {
  return {
    // main: the runtime; launch: the image's entry, which starts tini and the runtime without
    // ECS's credentials settings in PID 1's environment (src/launch.ts); workspace-sync: the
    // one-off workspace task (infra/constructs/agent-workspace-task.ts).
    entryPoints: { main: here('./src/main.ts'), launch: here('./src/launch.ts'), 'workspace-sync': here('./src/workspace/workspace-sync.ts') },
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
    plugins: [builtinsByRequire, cjsNamedExports, zodEnglishOnly, runtimeCredentialChain],
    // playwright-core finds its own files through __dirname, which a bundle does not have: it
    // stays a package, imported from node_modules by the browser (the image's browser stage
    // ships it in /app/node_modules), and only there.
    external: ['playwright-core'],
  };
}

/**
 * Fills Node's compile cache (the directory NODE_COMPILE_CACHE names, Node >= 22.1) for the
 * bundle in `dist`: a Node of this version imports every chunk once, and a runtime that the
 * same Node starts from the same path then reads each chunk's V8 code cache instead of
 * parsing it (~30 ms of a start). main.mjs itself is left out: importing it starts a runtime;
 * it is 25 KB, compiled at start, and its entry is added when that runtime exits. A chunk that
 * cannot even be imported fails the build here. Another Node version, or another uid, looks
 * in another subdirectory and just parses as before.
 */
export function warmCompileCache(dist, cacheDir) {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 1)) throw new Error(`--compile-cache needs Node >= 22.1, which has a compile cache; this is ${process.version}`);
  const chunks = readdirSync(join(dist, 'chunks'))
    .filter((f) => f.endsWith('.mjs'))
    .map((f) => join(dist, 'chunks', f));
  const importEach = 'for (const file of process.argv.slice(1)) await import(file);';
  // Nothing of this process's environment: a chunk must not see more than a runtime would.
  execFileSync(process.execPath, ['--input-type=module', '-e', importEach, ...chunks], {
    env: { NODE_COMPILE_CACHE: cacheDir },
    cwd: dist,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const written = readdirSync(cacheDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  if (written < chunks.length) throw new Error(`the compile cache in ${cacheDir} holds ${written} entries for ${chunks.length} chunks`);
  return written;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--compile-cache');
  const cacheDir = at >= 0 ? args.splice(at, 2)[1] : undefined;
  if (at >= 0 && !cacheDir) throw new Error('--compile-cache needs a directory');
  const outdir = args[0] ?? here('./dist');
  await build(runtimeBuildOptions(outdir));
  console.log(`runtime bundled into ${outdir}`);
  if (cacheDir) console.log(`compile cache for it in ${cacheDir}: ${warmCompileCache(outdir, resolve(cacheDir))} entries (Node ${process.version})`);
}
