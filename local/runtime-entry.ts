// How local mode starts an agent's runtime: from the runtime bundle (runtime-image/dist, as
// the container runs it, ready in about half a second) while it matches the sources, else
// from the TypeScript sources through tsx (a few seconds), so it never runs stale code. Each
// command names what it runs from, which is all of the repository a runtime's box shows.
import { fileURLToPath } from 'node:url';
import { ensureBundle, freshBundle } from '../bin/bundles.js';

const repoPath = (p: string) => fileURLToPath(new URL(`../${p}`, import.meta.url));
const SOURCE_ENTRY = repoPath('runtime-image/src/main.ts');

export interface RuntimeLaunch {
  /** node and its arguments. */
  argv: string[];
  /** What it runs from, in the repository, read-only (never the repository itself: the secrets file and the state may be there). */
  runsFrom: string[];
}

/** The command that starts a runtime now: node and its arguments. */
export function runtimeCommand(): string[] {
  return runtimeLaunch().argv;
}

/** The command that starts a runtime now, and what it runs from. */
export function runtimeLaunch(): RuntimeLaunch {
  const bundle = freshBundle('runtime');
  // The workspace templates sit beside the code either way; playwright-core is the one
  // package the bundle leaves out (runtime-image/build.mjs), imported when the browser starts.
  const templates = repoPath('runtime-image/templates');
  if (bundle)
    return {
      argv: [process.execPath, '--enable-source-maps', bundle],
      runsFrom: [repoPath('runtime-image/dist'), templates, repoPath('node_modules/playwright-core')],
    };
  // tsx by its path, not its name: a boxed runtime's working directory is its workspace.
  return {
    argv: [process.execPath, '--import', import.meta.resolve('tsx'), SOURCE_ENTRY],
    runsFrom: [repoPath('runtime-image/src'), templates, repoPath('shared'), repoPath('node_modules'), repoPath('package.json')],
  };
}

/** Rebuilds the runtime bundle if the sources changed since it was built (a second or two); where it cannot, the sources run instead. */
export async function ensureRuntimeBundle(): Promise<void> {
  await ensureBundle('runtime');
}
