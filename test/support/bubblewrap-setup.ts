/**
 * Vitest globalSetup for projects whose tests run `exec` without the emulator (unit): makes
 * sure bubblewrap is there (local/bubblewrap-install.ts, as `clawfleet sandbox install` does). A machine where it cannot
 * be installed is reported here once; the tests that need a sandbox then fail saying why.
 */
import { ensureBubblewrap } from '../../local/bubblewrap-install.ts';

export default async function setup(): Promise<void> {
  try {
    await ensureBubblewrap((m) => process.stderr.write(`[bubblewrap] ${m}\n`));
  } catch (err) {
    process.stderr.write(`[bubblewrap] not available, sandboxed exec tests will fail: ${(err as Error).message}\n`);
  }
}
