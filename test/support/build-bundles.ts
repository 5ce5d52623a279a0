/**
 * Vitest globalSetup of the projects that start runtimes: makes sure the runtime bundle
 * (runtime-image/dist, bin/bundles.js) and the CLI's match the sources before any test starts one, so
 * every runtime a test or a local fleet starts runs the code as it is now, from the bundle
 * the container runs (ready in ~0.5 s rather than ~2.5 s through tsx). If it cannot be
 * built, runtimes run from the sources: slower, never stale.
 */
import { ensureBundle } from '../../bin/bundles.js';
import { ensureRuntimeBundle, runtimeCommand } from '../../local/runtime-entry.ts';

export default async function setup(): Promise<void> {
  // The CLI's too: a test that runs `npm start` or the bin must not rebuild it mid-run.
  await Promise.all([ensureRuntimeBundle(), ensureBundle('cli')]);
  const [, ...args] = runtimeCommand();
  process.stderr.write(`[runtime] tests start runtimes with: node ${args.join(' ').replace(process.cwd() + '/', '')}\n`);
}
