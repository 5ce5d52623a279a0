#!/usr/bin/env node
// The `clawfleet` bin: registers tsx (a dependency) so Node runs the TypeScript CLI as is,
// from a clean clone after `npm ci` as well as from an installed package.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
await main(process.argv.slice(2));
