// Synth time of the CDK app for fleets of 4, 20 and 200 agents (or the sizes given, e.g.
// 1000): in-process, bundling skipped (the function bundles are a constant, measured by
// bench/lambda-bundles.ts), cdk-nag AwsSolutions on up to 200 agents. Prints one line per
// fleet size, with the largest stack's resources and the largest template's size.
//   npx tsx bench/synth.ts [sizes...]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { parseConfig } from '../shared/config/load.ts';
import { readAppOptions } from '../infra/app-options.ts';
import { buildFleet } from '../infra/fleet-app.ts';
import { EXAMPLE_CONFIG, fleetOf } from '../test/infra/synth-fleet.ts';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);

function synthOnce(n: number): { ms: number; stacks: number; maxResources: number; maxBytes: number } {
  const config = parseConfig(n === 4 ? EXAMPLE_CONFIG : fleetOf(n));
  const outdir = mkdtempSync(join(tmpdir(), 'cf-bench-synth-'));
  const start = performance.now();
  const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [], runtimeImage: 'public.ecr.aws/docker/library/node:24-slim' } });
  buildFleet(
    app,
    config,
    readAppOptions((k) => app.node.tryGetContext(k)),
    // cdk-nag over 1,000 stacks would measure cdk-nag.
    { configFile: null, nag: n <= 200 },
  );
  const assembly = app.synth();
  const ms = performance.now() - start;
  const maxResources = Math.max(...assembly.stacks.map((s) => Object.keys((s.template as { Resources: object }).Resources).length));
  const maxBytes = Math.max(...assembly.stacks.map((s) => JSON.stringify(s.template).length));
  rmSync(outdir, { recursive: true, force: true });
  return { ms, stacks: assembly.stacks.length, maxResources, maxBytes };
}

// A first, discarded run loads aws-cdk-lib's modules, as `cdk synth` must too (reported apart).
const warm = performance.now();
synthOnce(1);
console.log(`module load + 1-agent synth (cold): ${(performance.now() - warm).toFixed(0)} ms`);
for (const n of sizes.length > 0 ? sizes : [4, 20, 200]) {
  const r = synthOnce(n);
  console.log(
    `${String(n).padStart(4)} agents: ${r.ms.toFixed(0).padStart(7)} ms  (${r.stacks} stacks, largest ${r.maxResources} resources, largest template ${(r.maxBytes / 1024).toFixed(1)} KB)`,
  );
}
