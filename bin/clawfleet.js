#!/usr/bin/env node
// The `clawfleet` bin (and `npm start`): runs the CLI from its bundle in dist/ when that was
// built from the sources as they are now (bin/bundles.js), rebuilding it first when they
// changed; where it cannot be built, runs the TypeScript sources through tsx (slower to start).
import { ensureBundle } from './bundles.js';

const entry = await ensureBundle('cli');
let main;
if (entry) ({ main } = await import(entry));
else {
  process.stderr.write('clawfleet: running from the TypeScript sources (the CLI bundle could not be built: `npm run build` says why)\n');
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
await main(process.argv.slice(2));
