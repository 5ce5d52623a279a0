// Each control-plane function's bundle, built with the CDK app's esbuild settings: its
// size, and its cold module-init time (a fresh node process importing the bundle, which
// builds its SDK clients and parses the fleet config at module scope, as on Lambda), as
// wall time and as CPU time (which a machine shared with other work inflates far less).
//   npx tsx bench/lambda-bundles.ts [runs]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, statSync, writeFileSync, copyFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { REPO_ROOT } from '../infra/app-options.ts';
import { BUILD_SETTINGS, CONTROL_FUNCTIONS } from '../infra/constructs/control-functions.ts';

const runs = Number(process.argv[2] ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// Runs in the child: time from process start to the handler module being ready.
const PROBE = `const t0 = performance.now(); const c0 = process.cpuUsage(); await import(process.argv[2]); const c = process.cpuUsage(c0); process.stdout.write(JSON.stringify([performance.now() - t0, (c.user + c.system) / 1000]));`;

console.log(`node ${process.version} (Lambda runs Node 24 on arm64; figures are for this machine), load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (const fn of CONTROL_FUNCTIONS) {
  const outdir = mkdtempSync(join(tmpdir(), `cf-bench-${fn.name}-`));
  await build({
    entryPoints: [join(REPO_ROOT, 'functions', `${fn.name}.ts`)],
    outfile: join(outdir, 'index.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: BUILD_SETTINGS.target,
    minify: BUILD_SETTINGS.minify,
    sourcemap: BUILD_SETTINGS.sourceMap,
    mainFields: [...BUILD_SETTINGS.mainFields],
    banner: { js: BUILD_SETTINGS.banner },
    logLevel: 'error',
  });
  copyFileSync(join(REPO_ROOT, 'clawfleet.json'), join(outdir, 'clawfleet.json'));
  const probe = join(outdir, 'probe.mjs');
  writeFileSync(probe, PROBE);
  const bytes = statSync(join(outdir, 'index.mjs')).size;
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [probe, join(outdir, 'index.mjs')], {
      env: { PATH: process.env.PATH, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'x', AWS_SECRET_ACCESS_KEY: 'x' },
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`${fn.name} failed to load: ${r.stderr}`);
    const [wall, cpuMs] = JSON.parse(r.stdout) as [number, number];
    times.push(wall);
    cpu.push(cpuMs);
  }
  console.log(
    `${fn.name.padEnd(18)} ${(bytes / 1024).toFixed(0).padStart(5)} KiB (${bytes} bytes)  cold init median ${median(times).toFixed(0)} ms wall (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}), ${median(cpu).toFixed(0)} ms CPU, ${runs} runs`,
  );
}
