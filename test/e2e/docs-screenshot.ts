// The dashboard's pictures in docs/ (README.md and docs/dashboard.md show them) are taken by
// the e2e tests, so they show the dashboard as the code draws it. Each PNG carries a digest of
// what it shows (the dashboard's sources and the test's scenario) in a tEXt chunk: a new
// picture replaces the one in docs/ only when that digest changed. Ages, times and turn
// timings differ in every run, and a picture that differs only in those would make every
// test run a change to commit. Every picture also goes to test-artifacts/.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pngText, withPngText } from '../support/png-text.ts';
import { ARTIFACTS } from './browser.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
/** What the dashboard's pages are drawn from. */
const DASHBOARD_SOURCES = ['shared/dashboard', 'local/dashboard.ts'];
const KEYWORD = 'clawfleet-sources';

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}

/** A digest of the dashboard's sources and the scenario (the test file) that took the picture. */
export function sourcesDigest(scenario: string): string {
  const hash = createHash('sha256');
  for (const file of [...DASHBOARD_SOURCES.flatMap((p) => filesUnder(join(ROOT, p))), fileURLToPath(scenario)]) {
    hash
      .update(`${relative(ROOT, file)}\0`)
      .update(readFileSync(file))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 32);
}

/**
 * Takes a picture for docs/<name> (and test-artifacts/<name>) with `take`, and puts it in docs/
 * unless the one there shows the same sources. `scenario` is the calling test's import.meta.url.
 * Returns whether docs/ got the new picture.
 */
export async function docsScreenshot(name: string, scenario: string, take: () => Promise<Buffer>): Promise<boolean> {
  const digest = sourcesDigest(scenario);
  const png = withPngText(await take(), KEYWORD, digest);
  writeFileSync(join(ARTIFACTS, name), png);
  const target = join(DOCS, name);
  if (existsSync(target) && pngText(readFileSync(target), KEYWORD) === digest) return false;
  writeFileSync(target, png);
  // A fleet running in this process holds its umask at 077 (its state is the owner's alone).
  chmodSync(target, 0o644);
  return true;
}
