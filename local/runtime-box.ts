// Each local runtime in a bubblewrap box of its own (issue #27): it sees the system read-only
// (the same view exec's sandbox gets: shared/adapters/sandbox/bwrap-sandbox.ts), what it
// runs from read-only, its own workspace and runtime state writable, fresh /tmp, /proc and
// /dev, and nothing else of the host — not the state database, the secrets file, the tokens,
// another agent's files, $HOME or the repository. It shares the network (the control plane on
// loopback, model providers) and has pid, ipc, uts and user namespaces of its own. Inside,
// exec, sandboxed MCP servers, the browser and an OpenClaw gateway get boxes of their own:
// bubblewrap nested in bubblewrap.
//
// Nesting needs the outer box made by a user other than root. A bwrap started by root keeps
// the right to write /proc/sys inside its user namespace, so it covers /proc/sys and the like
// with read-only mounts; a /proc with covered parts may not be mounted again from a user
// namespace (the kernel's mount_too_revealing), and every inner bwrap then fails with "Can't
// mount proc on /newroot/proc: Operation not permitted". So a fleet run as root starts each
// box in two stages:
//   1. bwrap as root, with no user namespace: it can bind anything, wherever it lies (a state
//      directory or repository only root may enter), and builds the box's whole view — on it
//      the host's /proc, fully visible, for stage 2 to mount its own over; every folder on the
//      way to a bound one 0755 (bwrap would make them root's alone); a pid namespace of its
//      own, so that killing this bwrap kills everything below it;
//   2. setpriv to BOX_UID:BOX_GID (no supplementary groups), then bwrap again as that user,
//      unprivileged, over stage 1's view: its own user, pid, ipc, uts and cgroup namespaces,
//      its own /proc and /dev, no capabilities. That is the box the runtime runs in.
// Binding by file descriptor (--bind-fd) does not help instead: bwrap 0.8 resolves the
// descriptor to its path and opens that as the unprivileged user. A fleet run by anyone else
// needs one stage: bwrap as that user makes the user namespace, the box is that user.
import { lstatSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import { basename, dirname, isAbsolute } from 'node:path';
import { ClawfleetError } from '../shared/errors.ts';
import { inside, realOrUndefined, systemView } from '../shared/adapters/sandbox/bwrap-sandbox.ts';

/**
 * Who a box runs as when the fleet runs as root: one fixed, unprivileged user and group for
 * every agent's box (numbers beside the runtime image's 20000–20100; no user of this machine
 * should have them). The workspaces and runtime state are given to it (box-owner.ts).
 */
export const BOX_UID = 20200;
export const BOX_GID = 20200;

export interface BoxSetup {
  bwrap: string;
  /** Root fleets: the user the box runs as, and setpriv (util-linux) to become it; absent, the box is the fleet's own user. */
  dropTo?: { uid: number; gid: number; setpriv: string } | undefined;
  /** What must never show, even inside a system directory: the state directory, the secrets file, the repository, $HOME. */
  hide: string[];
  /** Defaults to bwrap-sandbox.ts's SYSTEM_DIRS; tests pass their own. */
  systemDirs?: string[] | undefined;
}

export interface BoxContents {
  /** The agent's workspace and its runtime's own state: the only folders the box may write. */
  workspace: string;
  runtimeState: string;
  /** Shown read-only at the paths given, which are the paths the runtime is told (boxReadOnly). */
  readOnly: string[];
}

/** The command that runs `argv` inside the box: bwrap (or, as root, bwrap → setpriv → bwrap) and its arguments. */
export function boxCommand(setup: BoxSetup, contents: BoxContents, argv: string[]): string[] {
  const view = systemView(setup);
  const binds: string[] = [];
  const made = new Set<string>();
  // Every folder on the way to a bound path, made 0755 first: as root, bwrap makes them 0700,
  // closed to the box's user. Where a folder already shows (a system directory), nothing is made.
  const ancestors = (path: string) => {
    const chain: string[] = [];
    for (let dir = dirname(path); dir !== '/' && !made.has(dir); dir = dirname(dir)) chain.unshift(dir);
    for (const dir of chain) {
      made.add(dir);
      if (!view.shows(dir)) binds.push('--perms', '0755', '--dir', dir);
    }
  };
  // Parents before children; a path inside another read-only one is shown by it already.
  const readOnly = [...new Set(contents.readOnly)].sort();
  for (const path of readOnly.filter((p, i) => !readOnly.some((q, j) => j !== i && q !== p && inside(p, q)))) {
    if (view.shows(path)) continue;
    ancestors(path);
    binds.push('--ro-bind', path, path);
  }
  for (const path of [contents.workspace, contents.runtimeState]) {
    ancestors(path);
    binds.push('--bind', path, path);
  }
  // The box's own namespaces; the network is the host's (the control plane on loopback).
  const own = ['--unshare-all', '--unshare-user', '--share-net', '--die-with-parent', '--new-session', '--cap-drop', 'ALL'];
  if (!setup.dropTo) {
    return [
      setup.bwrap,
      ...own,
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      '--tmpfs',
      '/tmp',
      '--tmpfs',
      '/var/tmp',
      ...view.args,
      ...binds,
      '--chdir',
      contents.workspace,
      '--remount-ro',
      '/',
      '--',
      ...argv,
    ];
  }
  const { uid, gid, setpriv } = setup.dropTo;
  return [
    setup.bwrap,
    '--unshare-pid',
    '--die-with-parent',
    '--bind',
    '/proc',
    '/proc',
    '--dev',
    '/dev',
    '--perms',
    '01777',
    '--tmpfs',
    '/tmp',
    '--perms',
    '01777',
    '--tmpfs',
    '/var/tmp',
    ...view.args,
    ...binds,
    ...(view.shows(setpriv) ? [] : ['--ro-bind', setpriv, setpriv]),
    '--remount-ro',
    '/',
    '--',
    setpriv,
    '--reuid',
    String(uid),
    '--regid',
    String(gid),
    '--clear-groups',
    '--',
    setup.bwrap,
    ...own,
    '--bind',
    '/',
    '/',
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--chdir',
    contents.workspace,
    '--',
    ...argv,
  ];
}

export interface BoxNeeds {
  /** What the runtime's command runs from (runtime-entry.ts). */
  runsFrom: string[];
  /** The bubblewrap the runtime runs its own sandboxes with. */
  bwrap: string;
  fleetSkills?: string | undefined;
  /** tools.browser's Chromium, when the agent's browser is enabled. */
  chromium?: string | undefined;
  mcpServers?: Record<string, { command: string; args?: string[] | undefined } | { url: string }> | undefined;
  /** runtime.kind "openclaw": the Node and OpenClaw CLI its gateway runs on. */
  openclaw?: { node: string; cli: string } | undefined;
}

/**
 * What a runtime's box shows read-only, at the paths the runtime is told (so inside, where
 * nothing on the way is a link, each is its own real path). A folder that would show a path
 * the box hides — the secrets file beside an MCP server's script, the state directory inside
 * Chromium's folder — is refused, naming it.
 */
export function boxReadOnly(needs: BoxNeeds, hide: readonly string[]): string[] {
  const shown: { path: string; what: string }[] = [
    ...needs.runsFrom.map((path) => ({ path, what: 'the runtime' })),
    { path: needs.bwrap, what: 'bubblewrap' },
    ...(needs.fleetSkills ? [{ path: needs.fleetSkills, what: "the fleet's skills" }] : []),
    ...(needs.chromium ? [{ path: dirname(needs.chromium), what: 'tools.browser.executablePath' }] : []),
    ...mcpServerFolders(needs.mcpServers),
    ...(needs.openclaw
      ? [
          { path: dirname(dirname(needs.openclaw.node)), what: "OpenClaw's Node.js" },
          { path: nodeModulesOf(needs.openclaw.cli) ?? dirname(needs.openclaw.cli), what: 'OpenClaw' },
        ]
      : []),
  ].filter((s) => exists(s.path));
  const hidden = hide.map((p) => realOrUndefined(p) ?? p);
  for (const { path, what } of shown) {
    const real = realOrUndefined(path) ?? path;
    const secret = hidden.find((h) => inside(h, real));
    if (secret)
      throw new ClawfleetError(
        'RUNTIME_BOX_PATH_HIDDEN',
        `${what} is in ${path}, which holds ${secret}: the runtime's box would show it. Keep it in a folder of its own (docs/runtime.md, "The local sandbox")`,
      );
  }
  return [...new Set(shown.map((s) => s.path))];
}

/**
 * The folders an agent's stdio MCP servers run from: for each absolute path among a server's
 * command and arguments that exists, the node_modules folder it lies in (its dependencies are
 * there too), else its own folder. Servers named by a program on PATH are found in the system.
 */
function mcpServerFolders(servers: BoxNeeds['mcpServers']): { path: string; what: string }[] {
  const out: { path: string; what: string }[] = [];
  for (const [name, server] of Object.entries(servers ?? {})) {
    if (!('command' in server)) continue;
    for (const arg of [server.command, ...(server.args ?? [])]) {
      if (!isAbsolute(arg) || !exists(arg)) continue;
      out.push({ path: nodeModulesOf(arg) ?? (statSync(arg).isDirectory() ? arg : dirname(arg)), what: `MCP server "${name}"` });
    }
  }
  return out;
}

/** The node_modules folder `path` lies in, by its name (the path as given, links and all). */
function nodeModulesOf(path: string): string | undefined {
  for (let dir = path; dirname(dir) !== dir; dir = dirname(dir)) if (basename(dir) === 'node_modules') return dir;
  return undefined;
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A boxed runtime's exit as the runtime itself ended: bwrap exits 128 + N when the process it
 * runs is killed by signal N (a runtime SIGKILLed by hand or by the OOM killer), so that code is
 * the signal again, as a plain child's exit reports it. (The runtime itself exits 0 or 1.)
 */
export function exitThroughBox(code: number | null, signal: string | null): { code: number | null; signal: string | null } {
  if (signal !== null || code === null || code <= 128) return { code, signal };
  const name = Object.entries(constants.signals).find(([, n]) => n === code - 128)?.[0];
  return name ? { code: null, signal: name } : { code, signal };
}
