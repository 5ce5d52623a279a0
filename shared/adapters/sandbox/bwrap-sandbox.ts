// The sandbox where bubblewrap works (local mode on Linux): each call gets namespaces of its
// own (user, pid, ipc, uts, cgroup, and the network unless allowed) and a root that shows
// the system read-only, the agent's workspace read-write and fresh /tmp, /proc and /dev —
// no $HOME, no state directory, no other agent. The pid namespace dies when the command
// exits (or bwrap is killed, or the lease is released), so a `setsid` grandchild dies with it.
import { randomUUID } from 'node:crypto';
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findOnPath, isExecutableFile } from '../fs/path-lookup.ts';
import { killProcessesWithArgument } from './host-processes.ts';
import { firstLine, runShort } from './run-short.ts';
import { baseSandboxEnv, SANDBOX_PATH, withNodeOnPath, type Sandbox, type SandboxLease, type SandboxRequest } from './sandbox-port.ts';

/** Shown read-only (a symlink is recreated as one): the system, never / as a whole. */
export const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/opt'];
/** Files under /etc that hold credentials and that no tool needs: bound over with /dev/null (unreadable). */
const ETC_SECRET_FILES = ['/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/sudoers', '/etc/security/opasswd'];
const ETC_SECRET_DIRS = ['/etc/sudoers.d', '/etc/ssl/private'];

/** Where `clawfleet sandbox install` and the test harness put a bubblewrap (local/bubblewrap-install.ts), under the repository. */
const REPO_BWRAP_IN_REPO = join('.cache', 'bubblewrap', 'bin', 'bwrap');

/**
 * The repository's own bubblewrap (.cache/bubblewrap), found by walking up from this module: it runs from its source
 * (shared/adapters/sandbox/) and from the bundle (runtime-image/dist/, or a chunk below
 * it), which sit at different depths in the repository.
 */
function repoBwrap(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, REPO_BWRAP_IN_REPO);
    if (isExecutableFile(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** bubblewrap: the path the runtime was given, else `bwrap` on PATH, else the copy `clawfleet sandbox install` (or the test harness) put in .cache/. */
export function findBwrap(explicit: string | undefined, path = process.env.PATH ?? ''): string | undefined {
  if (explicit) return isExecutableFile(explicit) ? explicit : undefined;
  return findOnPath('bwrap', path) ?? repoBwrap();
}

export interface BwrapSetup {
  bwrap: string;
  workspace: string;
  /** Paths never shown, even where they lie inside a system directory (the state directory, the secrets file). */
  hide?: string[];
  /** Defaults to SYSTEM_DIRS; tests pass their own. */
  systemDirs?: string[];
  /** Whether this bwrap has --disable-userns (0.8+): the sandbox cannot make user namespaces of its own. */
  disableUserns?: boolean;
  /**
   * Directories writable besides the workspace, shown even inside a hidden one: a managed
   * OpenClaw gateway's own directory (its config, home, logs), which sits in the runtime's state.
   */
  writable?: string[];
}

/** Whether `path` is `dir` or lies under it. */
export const inside = (path: string, dir: string) => path === dir || path.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

export function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The mounts every call gets, worked out once from what exists on this machine. */
function sandboxMounts(setup: BwrapSetup): string[] {
  // Fresh /proc, /dev, /tmp and /var/tmp first: what is bound after them (a system directory,
  // Node's prefix or the workspace that lies under /tmp) is then shown on top, not hidden.
  const args: string[] = ['--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp', ...systemView(setup).args];
  args.push('--bind', setup.workspace, setup.workspace);
  for (const dir of setup.writable ?? []) args.push('--bind', dir, dir);
  args.push('--chdir', setup.workspace);
  // The root bwrap builds is a writable tmpfs; once everything is mounted on it, it is not.
  args.push('--remount-ro', '/');
  return args;
}

/**
 * The system as every sandbox of ours shows it (exec's, the gateway's, a local runtime's box,
 * local/runtime-box.ts): the system directories read-only, Node.js's installation, the
 * credential files of /etc masked, and `hide` masked wherever it lies inside what is shown.
 * `shows` says whether a path is visible through these mounts.
 */
export function systemView(setup: Pick<BwrapSetup, 'systemDirs' | 'hide'>): { args: string[]; shows(path: string): boolean } {
  const args: string[] = [];
  const bound: string[] = [];
  for (const dir of setup.systemDirs ?? SYSTEM_DIRS) {
    let st;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) args.push('--symlink', readlinkSync(dir), dir);
    else if (st.isDirectory()) {
      args.push('--ro-bind', dir, dir);
      bound.push(dir);
    }
  }
  const shown = (p: string) => bound.some((d) => inside(p, d));
  // Node.js itself, when it is installed outside the system directories (nvm, a tarball):
  // a sandboxed `node` or `npx` MCP server needs it. Its installation holds no secrets.
  const nodePrefix = dirname(dirname(realOrUndefined(process.execPath) ?? process.execPath));
  if (!shown(nodePrefix) && nodePrefix !== '/') args.push('--ro-bind', nodePrefix, nodePrefix);
  // A resolv.conf that points elsewhere (systemd-resolved's /run/...) is shown where it points, or DNS fails.
  const resolv = realOrUndefined('/etc/resolv.conf');
  if (resolv && shown('/etc') && !shown(resolv)) args.push('--ro-bind', resolv, resolv);

  const masks: string[] = [];
  const mask = (path: string) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return;
    }
    if (st.isSymbolicLink()) return; // a symlink's target is masked (or not shown) on its own
    if (st.isDirectory()) args.push('--tmpfs', path);
    else args.push('--ro-bind', '/dev/null', path);
    masks.push(path);
  };
  if (shown('/etc')) {
    for (const f of ETC_SECRET_FILES) mask(f);
    for (const d of ETC_SECRET_DIRS) mask(d);
    try {
      for (const name of readdirSync('/etc/ssh')) if (/^ssh_host_.*_key$/.test(name)) mask(join('/etc/ssh', name));
    } catch {
      // no sshd here
    }
  }
  // Never one of the system directories the sandbox needs itself (a fleet run from /usr).
  const needed = bound.filter((d) => d !== '/opt');
  for (const path of setup.hide ?? []) {
    const real = realOrUndefined(path);
    if (real && shown(real) && !masks.some((m) => inside(real, m)) && !needed.some((d) => inside(d, real))) mask(real);
  }
  return { args, shows: (p) => (shown(p) || (nodePrefix !== '/' && inside(p, nodePrefix))) && !masks.some((m) => inside(p, m)) };
}

/** bwrap's arguments for one call (everything but the environment, which bwrap passes on as it gets it). */
export function bwrapArgs(setup: BwrapSetup, mounts: string[], request: Pick<SandboxRequest, 'argv' | 'network' | 'readOnly'>): string[] {
  // Extra read-only paths go in before the root is made read-only (their mount points are made then).
  const cut = mounts.lastIndexOf('--remount-ro');
  if (request.readOnly?.length && cut >= 0) mounts = [...mounts.slice(0, cut), ...request.readOnly.flatMap((p) => ['--ro-bind', p, p]), ...mounts.slice(cut)];
  return [
    // Explicit --unshare-user: without a user namespace the call must fail, not run as us.
    '--unshare-all',
    '--unshare-user',
    ...(request.network ? ['--share-net'] : []),
    ...(setup.disableUserns ? ['--disable-userns'] : []),
    '--die-with-parent',
    '--new-session',
    // When the runtime runs as root, bwrap would otherwise keep root's capabilities inside.
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    ...mounts,
    '--',
    ...request.argv,
  ];
}

export class BwrapSandbox implements Sandbox {
  readonly kind = 'bwrap' as const;
  readonly isolatesNetwork = true;
  // Node.js's installation is shown read-only wherever it is (sandboxMounts), so it is on the PATH too.
  readonly path = withNodeOnPath(SANDBOX_PATH, dirname(realOrUndefined(process.execPath) ?? process.execPath));
  readonly description: string;
  private readonly mounts: string[];

  constructor(private readonly setup: BwrapSetup) {
    this.mounts = sandboxMounts(setup);
    this.description = `bubblewrap (${setup.bwrap}): own namespaces, system read-only, workspace ${[setup.workspace, ...(setup.writable ?? [])].join(' and ')} writable`;
  }

  async lease(request: SandboxRequest): Promise<SandboxLease> {
    // The environment reaches the command as bwrap's own (spawned with exactly this env),
    // not as --setenv arguments: an MCP server's secret values would be in bwrap's command
    // line, which every process of the host can read. So no --clearenv either.
    //
    // The call's pid namespace dies with its pid 1, and pid 1 (bwrap's init) dies with bwrap
    // by --die-with-parent — but only once it has set that up, after forking the command: a
    // bwrap killed in between (a turn cancelled as its command starts, on a busy machine)
    // leaves pid 1 and everything in the namespace running with no parent to die with
    // (containers/bubblewrap#633). So each lease tags its bwrap with an argument of no effect
    // that bwrap's init carries too (a fork, not an exec), and release kills whatever still
    // carries it: killing pid 1 ends the namespace.
    const tag = `CLAWFLEET_LEASE_${randomUUID().replaceAll('-', '')}`;
    return {
      launch: {
        file: this.setup.bwrap,
        args: ['--unsetenv', tag, ...bwrapArgs(this.setup, this.mounts, request)],
        env: request.env,
        cwd: this.setup.workspace,
      },
      release: async () => killProcessesWithArgument(tag),
    };
  }
}

/**
 * Finds out whether bubblewrap works here (unprivileged user namespaces may be off) by
 * running `sh -c 'echo ok'` through exactly the arguments real calls get: first with
 * --disable-userns, and without it on a bubblewrap older than 0.8 that does not know it.
 * `writable` are further directories the calls may write (BwrapSetup.writable). Returns the
 * sandbox, or why not.
 */
export async function probeBwrap(
  bwrap: string,
  workspace: string,
  hide: string[],
  writable: string[] = [],
): Promise<{ sandbox: BwrapSandbox } | { unavailable: string }> {
  let real: string;
  let realWritable: string[];
  try {
    real = realpathSync(workspace);
    realWritable = writable.map((d) => realpathSync(d));
  } catch (err) {
    return { unavailable: `bubblewrap cannot be set up: ${(err as Error).message}` };
  }
  let failure = '';
  for (const disableUserns of [true, false]) {
    const sandbox = new BwrapSandbox({ bwrap, workspace: real, hide, disableUserns, writable: realWritable });
    const lease = await sandbox.lease({ argv: ['/bin/sh', '-c', 'echo ok'], env: baseSandboxEnv(real), network: false });
    const run = await runShort(lease.launch.file, lease.launch.args, { env: lease.launch.env, cwd: lease.launch.cwd, timeoutMs: 10_000 });
    if (run.failure) return { unavailable: `bubblewrap at ${bwrap} ${run.failure}` };
    if (run.code === 0 && run.stdout.trim() === 'ok') return { sandbox };
    failure = `exit ${run.code}: ${firstLine(run.stderr) || 'no output'}`;
    if (!/disable-userns/.test(run.stderr)) break;
  }
  return { unavailable: `bubblewrap at ${bwrap} does not work here (${failure})` };
}
