#!/usr/bin/env node
// The `clawfleet` bin (and `npm start`): runs the CLI from its bundle in dist/ when that was
// built from the sources as they are now (bin/cli-bundle.js), rebuilding it first when they
// changed; where it cannot be built, runs the TypeScript sources through tsx (slower to start).
import { buildBundle, freshBundle } from './cli-bundle.js';

let entry = freshBundle();
if (!entry) {
  try {
    entry = await buildBundle();
  } catch (err) {
    process.stderr.write(`clawfleet: running from the TypeScript sources (the CLI bundle could not be built: ${err.message.split('\n')[0]})\n`);
  }
}
let main;
if (entry) ({ main } = await import(entry));
else {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../cli/main.ts'));
}
await main(process.argv.slice(2));
