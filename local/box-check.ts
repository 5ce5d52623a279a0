// Whether this machine can put each local runtime in its box (runtime-box.ts), found out once
// as the fleet starts, so a missing bubblewrap stops `npm start` with what is missing and how to
// get it rather than leave each runtime in a restart loop: the bubblewrap (installed into
// .cache/ when there is none), setpriv for a root fleet, and one box actually made.
import { findOnPath } from '../shared/adapters/fs/path-lookup.ts';
import { firstLine, runShort } from '../shared/adapters/sandbox/run-short.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { BOX_GID, BOX_UID } from './runtime-box.ts';
import type { RuntimeBoxing, RuntimeStart } from './supervisor.ts';

const HOW_TO_GET_IT =
  'Install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; or `npx clawfleet sandbox install` for a copy of its own in .cache/), ' +
  'or, to run runtimes without a box, with all of your files open to them, set "localSandbox": "off" in agents.defaults.runtime or an agent\'s runtime. See docs/local-mode.md.';

/** The probe's command inside the box: the shell the system has, and a word it must say. */
export const PROBE_ARGV = ['/bin/sh', '-c', 'echo ok'];
/** Generous: a busy machine starts two bwraps and a shell in well under a second. */
const PROBE_TIMEOUT_MS = 30_000;

/**
 * The bubblewrap boxes are made with (found, or installed by `install`), and — when this fleet
 * runs as root — setpriv, to become BOX_UID. Throws RUNTIME_BOX_UNAVAILABLE saying what is
 * missing and how to get it.
 */
export async function boxingHere(install: () => Promise<string>, path = process.env.PATH ?? ''): Promise<RuntimeBoxing> {
  let bwrap: string;
  try {
    bwrap = await install();
  } catch (err) {
    throw new ClawfleetError(
      'RUNTIME_BOX_UNAVAILABLE',
      `each agent's runtime runs in a bubblewrap box of its own (runtime.localSandbox "required", the default), and bubblewrap is not installed and could not be: ${(err as Error).message}. ${HOW_TO_GET_IT}`,
    );
  }
  if (process.getuid?.() !== 0) return { bwrap };
  const setpriv = findOnPath('setpriv', path);
  if (!setpriv)
    throw new ClawfleetError(
      'RUNTIME_BOX_UNAVAILABLE',
      `this fleet runs as root, so each runtime's box runs as user ${BOX_UID} instead, which takes setpriv (util-linux), and there is none on PATH: install util-linux, or run the fleet as a normal user. ${HOW_TO_GET_IT}`,
    );
  return { bwrap, dropTo: { uid: BOX_UID, gid: BOX_GID, setpriv } };
}

/** Makes one box as `start` describes (an agent's runtime's box, running PROBE_ARGV); throws saying why it cannot be made. */
export async function probeBox(start: RuntimeStart, bwrap: string): Promise<void> {
  const run = await runShort(start.file, start.args, { env: start.env, cwd: start.cwd, timeoutMs: PROBE_TIMEOUT_MS });
  if (!run.failure && run.code === 0 && run.stdout.trim() === 'ok') return;
  const why = run.failure ?? `exit ${run.code}: ${firstLine(run.stderr) || 'no output'}`;
  throw new ClawfleetError(
    'RUNTIME_BOX_UNAVAILABLE',
    `bubblewrap at ${bwrap} cannot make a runtime's box here (${why}). It needs unprivileged user namespaces ` +
      '(sysctl user.max_user_namespaces above 0; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for bwrap). ' +
      HOW_TO_GET_IT,
  );
}
