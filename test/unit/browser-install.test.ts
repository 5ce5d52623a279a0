// The browser's parts as the runtime image lays them out (#19, "Browser on AWS"), checked
// without the image (no Docker here): Chromium at /usr/bin/chromium and playwright-core in
// /app/node_modules, found from the bundle in /app/dist/chunks as Node resolves the bare
// import the bundle keeps — shown in a tree of the same shape — and the Dockerfile's browser
// stage and the bundler holding up their side of that contract.
import { accessSync, chmodSync, constants, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findBrowserInstall } from '../../runtime-image/src/browser/browser-install.ts';
import { DEFAULT_CHROMIUM } from '../../shared/runtime-limits.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** A root shaped like the image's: app/dist/chunks (the bundle), app/node_modules/playwright-core, usr/bin/chromium. */
function imageTree(parts: { chromium?: boolean; playwright?: boolean }) {
  const root = tempDir('cf-image-tree-');
  mkdirSync(join(root, 'app', 'dist', 'chunks'), { recursive: true });
  const chunk = join(root, 'app', 'dist', 'chunks', 'agent-runtime-abc123.mjs');
  writeFileSync(chunk, '');
  if (parts.playwright) {
    mkdirSync(join(root, 'app', 'node_modules', 'playwright-core'), { recursive: true });
    writeFileSync(
      join(root, 'app', 'node_modules', 'playwright-core', 'package.json'),
      JSON.stringify({ name: 'playwright-core', exports: { '.': './index.js', './package.json': './package.json' } }),
    );
  }
  const chromium = join(root, 'usr', 'bin', 'chromium');
  if (parts.chromium) {
    mkdirSync(join(root, 'usr', 'bin'), { recursive: true });
    writeFileSync(chromium, '#!/bin/sh\n');
    chmodSync(chromium, 0o755);
  }
  return { root, chunk, chromium };
}

describe("the runtime's browser lookup", () => {
  it('looks for Chromium at /usr/bin/chromium unless tools.browser.executablePath says otherwise', () => {
    expect(DEFAULT_CHROMIUM).toBe('/usr/bin/chromium');
    const { chunk } = imageTree({ playwright: true });
    expect(findBrowserInstall(undefined, pathToFileURL(chunk))).toEqual(
      existsExecutable('/usr/bin/chromium')
        ? { executablePath: '/usr/bin/chromium', playwrightCore: expect.any(String) }
        : { missing: expect.stringMatching(/^no Chromium at \/usr\/bin\/chromium \(run the runtime image's browser variant/) },
    );
  });

  it("finds playwright-core in the node_modules beside the bundle's dist, as the image has it", () => {
    const { root, chunk, chromium } = imageTree({ chromium: true, playwright: true });
    expect(findBrowserInstall(chromium, pathToFileURL(chunk))).toEqual({
      executablePath: chromium,
      playwrightCore: join(root, 'app', 'node_modules', 'playwright-core'),
    });
  });

  it('says which part is missing: playwright-core where the bundle looks, or Chromium where it was told', () => {
    const bare = imageTree({ chromium: true });
    expect(findBrowserInstall(bare.chromium, pathToFileURL(bare.chunk))).toEqual({
      missing: `playwright-core is not installed where the runtime looks for it (node_modules from ${join(bare.root, 'app', 'dist', 'chunks')} upward; the image's browser stage puts it in /app/node_modules)`,
    });
    const noChromium = imageTree({ playwright: true });
    expect(findBrowserInstall(noChromium.chromium, pathToFileURL(noChromium.chunk))).toEqual({
      missing: expect.stringContaining(`no Chromium at ${noChromium.chromium}`),
    });
    // A file that is there but cannot be run is no Chromium either.
    const notExecutable = imageTree({ chromium: true, playwright: true });
    chmodSync(notExecutable.chromium, 0o644);
    expect(findBrowserInstall(notExecutable.chromium, pathToFileURL(notExecutable.chunk))).toEqual({ missing: expect.stringContaining('no Chromium at') });
  });
});

describe("the image's side of it", () => {
  const dockerfile = readFileSync('runtime-image/Dockerfile', 'utf8');
  const browserStage = dockerfile.slice(dockerfile.indexOf('FROM runtime AS browser'), dockerfile.lastIndexOf('FROM runtime'));

  it('installs Chromium where the runtime looks, and copies playwright-core to /app/node_modules beside the bundle in /app/dist', () => {
    expect(browserStage).toContain('apt-get install -y --no-install-recommends chromium');
    expect(browserStage).toContain(`test -x ${DEFAULT_CHROMIUM}`);
    expect(browserStage).toMatch(/^COPY --from=build \/src\/node_modules\/playwright-core\/ \/app\/node_modules\/playwright-core\/$/m);
    expect(dockerfile).toMatch(/^CMD \[.*"\/app\/dist\/main\.mjs"\]$/m);
  });

  it('keeps playwright-core out of the bundle, so the import looks for the package', () => {
    expect(readFileSync('runtime-image/build.mjs', 'utf8')).toMatch(/external: \['playwright-core'\]/);
  });
});

function existsExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
