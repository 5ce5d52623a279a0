// The vocabulary of sandboxes for code the agent chooses (exec, sandboxed stdio MCP
// servers): what a sandbox hands its caller to spawn, and the promise that releasing the
// lease leaves nothing of the call running. One file per kind implements it.
import { dirname } from 'node:path';

export type SandboxKind = 'bwrap' | 'uid-pool' | 'none';

/** What to run inside, with the whole environment it gets: nothing of the runtime's is added. */
export interface SandboxRequest {
  argv: string[];
  env: Record<string, string>;
  /** Whether the call may use the network (a sandbox that cannot cut it says so in `isolatesNetwork`). */
  network: boolean;
  /** Paths outside the system directories the command must see, read-only (the browser's Chromium where it is installed elsewhere). */
  readOnly?: string[] | undefined;
  /** Waiting for the sandbox (a free tool uid) gives up when this aborts. */
  signal?: AbortSignal | undefined;
}

/** What the caller spawns (in a process group of its own): the sandbox's launcher and the command behind it. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

export interface SandboxLease {
  launch: SandboxLaunch;
  /**
   * Called once the launched process has exited (or been killed): kills whatever the call
   * started that still runs — a `setsid` grandchild included — and frees what the lease
   * held. Idempotent; never throws.
   */
  release(): Promise<void>;
}

export interface Sandbox {
  readonly kind: SandboxKind;
  /** One line for logs: which sandbox, and how it is set up. */
  readonly description: string;
  /** Whether `network: false` is enforced (bubblewrap's own network namespace); a uid cannot cut the network. */
  readonly isolatesNetwork: boolean;
  /** The PATH commands see inside (an allowlisted program is looked up on it). */
  readonly path: string;
  lease(request: SandboxRequest): Promise<SandboxLease>;
}

/** The PATH inside every sandbox: the system's directories only, never the workspace or $HOME. */
export const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** `path` with Node.js's own directory added when it is elsewhere (nvm, a tarball), so `node` and `npx` are found. */
export function withNodeOnPath(path: string, nodeBin = dirname(process.execPath)): string {
  return path.split(':').includes(nodeBin) ? path : `${path}:${nodeBin}`;
}

/** The environment every sandboxed command starts from; HOME is the workspace, so tools' dotfiles stay in it. */
export function baseSandboxEnv(workspace: string, path = SANDBOX_PATH): Record<string, string> {
  return { PATH: path, HOME: workspace, LANG: 'C.UTF-8' };
}
