// Where the browser's two parts are, checked at start: Chromium (the image's browser stage
// installs Debian's at /usr/bin/chromium; tools.browser.executablePath overrides) and
// playwright-core, which the bundle leaves out (build.mjs) and imports by name, so Node finds it
// from the bundle's own folder upward (/app/dist/… → /app/node_modules/playwright-core, where
// the browser stage copies it). Either missing is said at start, not at the model's first call.
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CHROMIUM } from '../../../shared/runtime-limits.ts';

export type BrowserInstall = { executablePath: string; playwrightCore: string } | { missing: string };

/**
 * `from`: the module the runtime imports playwright-core from (in the image, a chunk of
 * /app/dist): resolution starts at its folder, as the import will.
 */
export function findBrowserInstall(executablePath: string | undefined, from: string | URL = import.meta.url): BrowserInstall {
  const chromium = executablePath ?? DEFAULT_CHROMIUM;
  try {
    accessSync(chromium, constants.X_OK);
  } catch {
    return { missing: `no Chromium at ${chromium} (run the runtime image's browser variant, install Chromium, or set tools.browser.executablePath)` };
  }
  const require = createRequire(from);
  try {
    return { executablePath: chromium, playwrightCore: dirname(require.resolve('playwright-core/package.json')) };
  } catch {
    const at = dirname(typeof from === 'string' && !from.startsWith('file:') ? from : fileURLToPath(from));
    return {
      missing: `playwright-core is not installed where the runtime looks for it (node_modules from ${at} upward; the image's browser stage puts it in /app/node_modules)`,
    };
  }
}
