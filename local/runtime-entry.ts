// How local mode starts an agent's runtime: from the runtime bundle (runtime-image/dist, as
// the container runs it, ready in about half a second) while it matches the sources, else
// from the TypeScript sources through tsx (a few seconds), so it never runs stale code.
import { fileURLToPath } from 'node:url';
import { ensureBundle, freshBundle } from '../bin/bundles.js';

const SOURCE_ENTRY = fileURLToPath(new URL('../runtime-image/src/main.ts', import.meta.url));

/** The command that starts a runtime now: node and its arguments. */
export function runtimeCommand(): string[] {
  const bundle = freshBundle('runtime');
  return bundle ? [process.execPath, '--enable-source-maps', bundle] : [process.execPath, '--import', 'tsx', SOURCE_ENTRY];
}

/** Rebuilds the runtime bundle if the sources changed since it was built (a second or two); where it cannot, the sources run instead. */
export async function ensureRuntimeBundle(): Promise<void> {
  await ensureBundle('runtime');
}
