// The Chromium the e2e project's global setup chose (test/support/install-chromium.ts:
// CHROMIUM_PATH, Debian's, or the one it unpacked from npm), driven by playwright-core.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { inject } from 'vitest';
import { tempDir } from '../support/temp-dirs.ts';

export const ARTIFACTS = join(process.cwd(), 'test-artifacts');

/** A fresh profile each time (Playwright takes it as the persistent context's user data dir). */
export async function launchChromium(): Promise<{ context: BrowserContext; source: string; close(): Promise<void> }> {
  const choice = inject('chromium');
  const profile = tempDir('cf-chromium-');
  // Its own TMPDIR: Chromium keeps shared-memory files there (`.org.chromium.Chromium.*`) where
  // /dev/shm is not used, and one it is killed holding stays behind; this dir goes with the file.
  const tmp = tempDir('cf-chromium-tmp-');
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: choice.executablePath,
    env: { ...process.env, ...choice.env, TMPDIR: tmp },
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  mkdirSync(ARTIFACTS, { recursive: true });
  return {
    context,
    source: choice.source,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}
