/**
 * Vitest globalSetup of the openclaw project: the pinned OpenClaw and its Node 24, installed
 * once into `.cache/openclaw` before any test file starts (≈ 800 MB on a bare machine), so the
 * files, which vitest starts in parallel, find it there instead of each installing it (they
 * would take turns through local/install-lock.ts anyway; this says it once, up front). A
 * machine where it cannot be installed fails here, saying why.
 */
import { ensureOpenclaw } from '../../local/openclaw-install.ts';

export default function setup(): void {
  ensureOpenclaw(undefined, (line) => console.log(`[openclaw] ${line}`));
}
