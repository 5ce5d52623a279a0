// The container's sandbox, where user namespaces are not promised (Fargate): the runtime
// runs as root in its own container only to drop privileges for tools. Each call runs
// under a uid of its own from a small pool (setpriv: no supplementary groups, no
// capabilities, no_new_privs), so another uid cannot read the runtime's or PID 1's
// /proc/<pid>/environ (PID 1 keeps the task role's AWS_CONTAINER_CREDENTIALS_RELATIVE_URI; the
// runtime re-executes itself without it, container-credentials.ts) or memory, and when the call
// ends every process of its uid is killed — `setsid` escapes a process group, not a uid —
// without touching the concurrent calls of other sessions, which hold other uids. A call
// may run at most TOOL_PROCESS_LIMIT processes, and its processes are the first the kernel
// kills when the task runs out of memory: a fork bomb or a memory hog ends, not the runtime.
import { chmodSync, chownSync, lchownSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { firstLine, runShort } from './run-short.ts';
import { baseSandboxEnv, SANDBOX_PATH, withNodeOnPath, type Sandbox, type SandboxLease, type SandboxRequest } from './sandbox-port.ts';

export interface UidPoolSetup {
  uids: number[];
  /** The pool's group: every tool uid's only group, and the workspace's group, so calls under different uids share the workspace. */
  gid: number;
  workspace: string;
  setpriv?: string;
  /** util-linux's prlimit and choom, which set a call's process limit and OOM score before setpriv drops it (default /usr/bin/…). */
  prlimit?: string;
  choom?: string;
  /** A root-owned directory (made mode 0711) where each call gets its private TMPDIR (default /tmp/clawfleet-tools). */
  tmpRoot?: string;
  /** World-writable places a call may leave files in; what its uid left there is removed after it. */
  scratchDirs?: string[];
}

const DEFAULT_SETPRIV = '/usr/bin/setpriv';

/**
 * The most processes (threads included: RLIMIT_NPROC counts tasks) one call's uid may run. A
 * build or a browser stays well under it (Chromium ≈ 200 threads); a fork bomb stops here,
 * rather than at the task's memory or its pids, where the runtime itself could no longer fork
 * to end the call (seen in the image tests: the bomb held the container's last pid and its
 * call was never cleaned up). The hard limit too, so the call cannot raise it back.
 */
export const TOOL_PROCESS_LIMIT = 1024;
/**
 * The highest OOM score adjustment: when the task runs out of memory, a tool's process goes
 * before the runtime. (A call can lower its own back to the runtime's 0, never below: that
 * needs CAP_SYS_RESOURCE; its process limit keeps a crowd of small processes small anyway.)
 */
export const TOOL_OOM_SCORE_ADJ = 1000;

/** Waits for a free uid; a call that is cancelled while waiting leaves the queue. */
class UidPool {
  private readonly free: number[];
  private readonly waiting: { take(uid: number): void }[] = [];

  constructor(uids: number[]) {
    this.free = [...uids];
  }

  acquire(signal?: AbortSignal): Promise<number> {
    const uid = this.free.shift();
    if (uid !== undefined) return Promise.resolve(uid);
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('cancelled while waiting for a free tool uid'));
      const waiter = {
        take: (u: number) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(u);
        },
      };
      const onAbort = () => {
        const i = this.waiting.indexOf(waiter);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new Error('cancelled while waiting for a free tool uid'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  release(uid: number): void {
    const next = this.waiting.shift();
    if (next) next.take(uid);
    else this.free.push(uid);
  }
}

/** Processes (not zombies) whose real, effective, saved or filesystem uid is `uid`. */
export function processesOf(uid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const uids = /^Uid:\s+(.*)$/m.exec(status)?.[1]?.split(/\s+/).map(Number) ?? [];
      const state = /^State:\s+(\S)/m.exec(status)?.[1];
      if (state !== 'Z' && uids.includes(uid)) found.push(Number(entry));
    } catch {
      // gone while we looked
    }
  }
  return found;
}

export class UidPoolSandbox implements Sandbox {
  readonly kind = 'uid-pool' as const;
  readonly isolatesNetwork = false;
  readonly path = withNodeOnPath(SANDBOX_PATH);
  readonly description: string;
  private readonly pool: UidPool;
  private readonly setpriv: string;
  private readonly prlimit: string;
  private readonly choom: string;
  private readonly tmpRoot: string;

  constructor(private readonly setup: UidPoolSetup) {
    this.pool = new UidPool(setup.uids);
    this.setpriv = setup.setpriv ?? DEFAULT_SETPRIV;
    this.prlimit = setup.prlimit ?? '/usr/bin/prlimit';
    this.choom = setup.choom ?? '/usr/bin/choom';
    // Tool uids cannot create entries here, so none can plant a link where another call's TMPDIR goes.
    this.tmpRoot = setup.tmpRoot ?? '/tmp/clawfleet-tools';
    mkdirSync(this.tmpRoot, { recursive: true, mode: 0o711 });
    chownSync(this.tmpRoot, 0, 0);
    chmodSync(this.tmpRoot, 0o711);
    this.description = `tool uids ${setup.uids[0]}–${setup.uids.at(-1)} (group ${setup.gid}), dropped with ${this.setpriv}`;
  }

  /** setpriv's arguments that make the rest of the command line run as `uid` with nothing else. */
  private dropTo(uid: number): string[] {
    return ['--reuid', String(uid), '--regid', String(this.setup.gid), '--clear-groups', '--no-new-privs', '--inh-caps=-all', '--bounding-set=-all', '--'];
  }

  async lease(request: SandboxRequest): Promise<SandboxLease> {
    const uid = await this.pool.acquire(request.signal);
    const tmp = join(this.tmpRoot, String(uid));
    try {
      rmSync(tmp, { recursive: true, force: true });
      mkdirSync(tmp, { mode: 0o700 });
      chownSync(tmp, uid, this.setup.gid);
    } catch (err) {
      this.pool.release(uid);
      throw err;
    }
    let released: Promise<void> | undefined;
    return {
      // choom and prlimit set what setpriv's uid then inherits: raising the hard limit back needs
      // CAP_SYS_RESOURCE, which the call does not have.
      launch: {
        file: this.choom,
        args: [
          '-n',
          String(TOOL_OOM_SCORE_ADJ),
          '--',
          this.prlimit,
          `--nproc=${TOOL_PROCESS_LIMIT}:${TOOL_PROCESS_LIMIT}`,
          '--',
          this.setpriv,
          ...this.dropTo(uid),
          ...request.argv,
        ],
        env: { ...request.env, TMPDIR: tmp },
        cwd: this.setup.workspace,
      },
      release: () => (released ??= this.cleanUp(uid, tmp)),
    };
  }

  /** Kills every process of the uid, removes what it left in the scratch places, and frees the uid. */
  private async cleanUp(uid: number, tmp: string): Promise<void> {
    try {
      const gone = await this.killAll(uid);
      for (const dir of this.setup.scratchDirs ?? ['/tmp', '/var/tmp', '/dev/shm']) removeOwned(dir, uid);
      rmSync(tmp, { recursive: true, force: true });
      // A uid whose processes could not all be killed is not handed to another call.
      if (gone) this.pool.release(uid);
    } catch {
      this.pool.release(uid);
    }
  }

  /**
   * `kill -KILL -1` run as the uid itself: the kernel signals every process that uid may
   * signal (its own) in one pass under the task list lock, so a forking loop cannot
   * outrun it. Repeated while a scan still finds one (a process mid-exec).
   */
  async killAll(uid: number): Promise<boolean> {
    for (let round = 0; round < 5; round++) {
      await runShort(
        this.setpriv,
        ['--reuid', String(uid), '--regid', String(this.setup.gid), '--clear-groups', '--', '/bin/sh', '-c', 'kill -KILL -1 2>/dev/null; exit 0'],
        {
          env: { PATH: SANDBOX_PATH },
          cwd: '/',
          timeoutMs: 5_000,
        },
      );
      if (processesOf(uid).length === 0) return true;
    }
    return false;
  }
}

/** Top-level entries of `dir` owned by `uid`, removed (symlinks themselves, never their targets). */
function removeOwned(dir: string, uid: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (lstatSync(path).uid === uid) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone, or not ours to judge
    }
  }
}

/**
 * Makes the workspace shared by the pool's group: the tree group-owned and group-writable
 * (directories setgid, so new files keep the group), and this process's umask 007 so what
 * the runtime writes later is too. On EFS through an access point every file operation is
 * mapped to the access point's POSIX user anyway, so a tool uid can write the workspace
 * there whatever the modes say; the first chown that the file system refuses ends the walk.
 */
function shareWorkspaceWithGroup(workspace: string, gid: number): void {
  process.umask(0o007);
  const root = statSync(workspace);
  if (root.gid === gid && (root.mode & 0o2070) === 0o2070) return; // done by an earlier start
  const walk = (path: string): boolean => {
    const st = lstatSync(path);
    if (st.isSymbolicLink()) return true;
    try {
      lchownSync(path, st.uid, gid);
    } catch {
      return false;
    }
    const groupBits = st.isDirectory() ? 0o2070 : 0o060 | ((st.mode & 0o100) >> 3);
    chmodSync(path, (st.mode & 0o7777) | groupBits);
    if (st.isDirectory()) for (const name of readdirSync(path)) if (!walk(join(path, name))) return false;
    return true;
  };
  walk(workspace);
}

/**
 * Whether the uid pool works here: the runtime must be root, setpriv must drop to a pool
 * uid, and that uid must be able to write the workspace. Runs `id -u` as the first uid.
 */
export async function probeUidPool(setup: UidPoolSetup): Promise<{ sandbox: UidPoolSandbox } | { unavailable: string }> {
  if (process.getuid?.() !== 0) return { unavailable: 'the tool uid pool needs the runtime to run as root (it only drops privileges for tools)' };
  if (setup.uids.length === 0) return { unavailable: 'the tool uid pool is empty (CLAWFLEET_TOOL_UIDS)' };
  try {
    shareWorkspaceWithGroup(setup.workspace, setup.gid);
  } catch (err) {
    return { unavailable: `the workspace ${setup.workspace} cannot be shared with the tool group ${setup.gid}: ${(err as Error).message}` };
  }
  const sandbox = new UidPoolSandbox(setup);
  let lease: SandboxLease;
  try {
    lease = await sandbox.lease({ argv: ['/bin/sh', '-c', 'test -w . && test -x . && id -u'], env: baseSandboxEnv(setup.workspace), network: true });
  } catch (err) {
    return { unavailable: `the tool uid pool cannot be set up: ${(err as Error).message}` };
  }
  const run = await runShort(lease.launch.file, lease.launch.args, { env: lease.launch.env, cwd: lease.launch.cwd, timeoutMs: 10_000 });
  // The probe's own cleanup (kill -1 as its uid, the scratch sweep) need not hold up the
  // answer, and with it the runtime's start: the uid returns to the pool once that is done,
  // and a call meanwhile takes another. release() never throws.
  void lease.release();
  const uid = setup.uids[0]!;
  if (run.failure) return { unavailable: `setpriv ${run.failure}` };
  if (run.code !== 0 || run.stdout.trim() !== String(uid)) {
    const why = firstLine(run.stderr) || `uid ${uid} cannot write the workspace ${setup.workspace}`;
    return { unavailable: `the tool uid pool does not work here (exit ${run.code}: ${why})` };
  }
  return { sandbox };
}
