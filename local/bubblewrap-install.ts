/**
 * A bubblewrap without installing anything machine-wide and without root, for local mode's
 * `exec` (`clawfleet sandbox install`) and the test harness: a `bwrap` already on PATH (or
 * installed here before) is used as it is; otherwise Debian 12's own package, pinned by
 * version and sha256, is downloaded from Debian's pool and its `bwrap` extracted into the
 * git-ignored `.cache/bubblewrap/bin/bwrap`, which is where the runtime looks after PATH
 * (shared/adapters/sandbox/bwrap-sandbox.ts repoBwrap). Whether the kernel lets it make
 * namespaces is the runtime's probe's business.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findBwrap } from '../shared/adapters/sandbox/bwrap-sandbox.ts';

/** Where the runtime's repoBwrap() finds it: .cache/ at the repository's root. */
const REPO_BWRAP = fileURLToPath(new URL('../.cache/bubblewrap/bin/bwrap', import.meta.url));

/** Debian 12 (bookworm) bubblewrap, the version `apt-get install bubblewrap` gives there. */
export const BUBBLEWRAP_VERSION = '0.8.0-2+deb12u1';
const DEBS: Record<string, { file: string; sha256: string }> = {
  x64: { file: `bubblewrap_${BUBBLEWRAP_VERSION}_amd64.deb`, sha256: '3cc9134a3286ad01a323dcd924ba123eb634cefaeec82d774257e06308aeaadb' },
  arm64: { file: `bubblewrap_${BUBBLEWRAP_VERSION}_arm64.deb`, sha256: 'd044ba1d7961d835669035fcd1e11121f1dc960a1a2e1c6489a93ea44e083557' },
};
/** The main pool first; the security archive carries the same +deb12u1 build. */
const POOLS = ['https://deb.debian.org/debian/pool/main/b/bubblewrap/', 'https://deb.debian.org/debian-security/pool/updates/main/b/bubblewrap/'];

function run(file: string, args: string[], cwd: string): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ ok: !err, output: `${stdout}${stderr}${err && !stderr ? err.message : ''}`.trim() }),
    );
  });
}

async function download(deb: { file: string; sha256: string }): Promise<Buffer> {
  const failures: string[] = [];
  for (const pool of POOLS) {
    try {
      const res = await fetch(pool + deb.file, { signal: AbortSignal.timeout(60_000) });
      if (!res.ok) {
        failures.push(`${pool + deb.file}: HTTP ${res.status}`);
        continue;
      }
      const body = Buffer.from(await res.arrayBuffer());
      const sha = createHash('sha256').update(body).digest('hex');
      if (sha !== deb.sha256) {
        failures.push(`${pool + deb.file}: sha256 ${sha}, expected ${deb.sha256}`);
        continue;
      }
      return body;
    } catch (err) {
      failures.push(`${pool + deb.file}: ${(err as Error).message}`);
    }
  }
  throw new Error(`cannot download bubblewrap ${BUBBLEWRAP_VERSION}: ${failures.join('; ')}`);
}

/** Unpacks the .deb's data into `dir`: dpkg-deb where there is one, else ar and tar. */
async function extract(debPath: string, dir: string): Promise<void> {
  const dpkg = await run('dpkg-deb', ['-x', debPath, dir], dir);
  if (dpkg.ok) return;
  const ar = await run('ar', ['x', debPath], dir);
  const data = ['data.tar.xz', 'data.tar.zst', 'data.tar.gz'].find((f) => existsSync(join(dir, f)));
  if (!ar.ok || !data) throw new Error(`cannot unpack ${debPath}: dpkg-deb failed (${dpkg.output}) and ar found no data archive (${ar.output})`);
  const tar = await run('tar', ['-xf', data], dir);
  if (!tar.ok) throw new Error(`cannot unpack ${data} from ${debPath}: ${tar.output}`);
}

/**
 * The bwrap local runtimes will use: one on PATH or installed before, else the pinned
 * package's, installed now. Throws with what failed (no network, an unknown architecture, no unpacker).
 */
export async function ensureBubblewrap(log: (message: string) => void = () => {}): Promise<string> {
  const found = findBwrap(undefined);
  if (found) return found;
  if (process.platform !== 'linux')
    throw new Error(`bubblewrap is Linux-only; this is ${process.platform}, where exec stays off unless tools.exec.sandbox is "off"`);
  const deb = DEBS[process.arch];
  if (!deb) throw new Error(`no pinned bubblewrap package for ${process.arch}; install bubblewrap (bwrap on PATH)`);
  const started = Date.now();
  const cacheDir = join(REPO_BWRAP, '..', '..', '..');
  mkdirSync(cacheDir, { recursive: true });
  const staging = await mkdtemp(join(cacheDir, 'bubblewrap.tmp-'));
  try {
    const debPath = join(staging, deb.file);
    writeFileSync(debPath, await download(deb));
    await extract(debPath, staging);
    mkdirSync(join(staging, 'install', 'bin'), { recursive: true });
    renameSync(join(staging, 'usr', 'bin', 'bwrap'), join(staging, 'install', 'bin', 'bwrap'));
    chmodSync(join(staging, 'install', 'bin', 'bwrap'), 0o755);
    writeFileSync(join(staging, 'install', 'VERSION'), `${BUBBLEWRAP_VERSION} ${deb.file} sha256:${deb.sha256}\n`);
    try {
      renameSync(join(staging, 'install'), join(REPO_BWRAP, '..', '..'));
    } catch (err) {
      // Another test run installed it meanwhile: theirs is the same pinned file.
      if (!existsSync(REPO_BWRAP)) throw err;
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  log(`installed bubblewrap ${BUBBLEWRAP_VERSION} into .cache/bubblewrap in ${Date.now() - started} ms`);
  return REPO_BWRAP;
}
