// The state directory is its owner's alone: conversations, transcripts, memory, tokens.
// New files get it from the umask the fleet sets for itself and its runtimes (files 0600,
// directories 0700, whoever creates them); what an earlier version or run left readable
// is tightened at start, before any runtime runs. The walk never follows a symlink, never
// touches a file with other hard links, and stays on the state directory's file system, so
// a link an agent left in its workspace cannot turn it on a file elsewhere.
import { chmodSync, closeSync, constants, existsSync, fchmodSync, fstatSync, openSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { lstatEntries } from './lstat-entries.ts';

/** No permission for group or others on anything the fleet or its runtimes create. */
const STATE_UMASK = 0o077;

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/**
 * Linux: each entry is opened through its directory's open descriptor, so swapping a
 * directory for a symlink while the walk runs cannot move it outside the state directory.
 */
const FD_PATHS = existsSync('/proc/self/fd');

let umaskHolders = 0;
let umaskBefore = 0;

/**
 * Sets the process's umask to STATE_UMASK while a fleet runs in it; runtimes and whatever
 * they start inherit it. Counted, so two fleets in one process (tests) restore it once.
 */
export function holdStateUmask(): () => void {
  if (umaskHolders++ === 0) umaskBefore = process.umask(STATE_UMASK);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (--umaskHolders === 0) process.umask(umaskBefore);
  };
}

export interface TightenResult {
  /** Entries whose mode lost its group and other bits. */
  tightened: number;
  /** Entries left as they were: symlinks, sockets, FIFOs, devices, multiply linked files, other file systems. */
  skipped: number;
}

/**
 * Removes group and other permissions from `dir` and everything under it. `leave` names
 * entries directly in `dir` that must not be opened (the held lock file: closing any other
 * descriptor of it would release the lock); they are tightened by path instead.
 */
export function tightenStateModes(dir: string, leave: readonly string[] = []): TightenResult {
  const result: TightenResult = { tightened: 0, skipped: 0 };
  // The directory itself may be a symlink the owner made (--state pointing elsewhere): followed.
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    const stat = fstatSync(fd);
    tighten(fd, stat, result);
    walk(fd, dir, stat.dev, result, new Set(leave));
  } finally {
    closeSync(fd);
  }
  return result;
}

function tighten(fd: number, stat: Stats, result: TightenResult): void {
  if ((stat.mode & 0o077) === 0) return;
  fchmodSync(fd, stat.mode & 0o700);
  result.tightened++;
}

function walk(dirFd: number, dirPath: string, dev: number, result: TightenResult, leave: ReadonlySet<string>): void {
  const base = FD_PATHS ? `/proc/self/fd/${dirFd}` : dirPath;
  for (const { name, path, seen } of lstatEntries(base)) {
    // Only plain files and directories: never a symlink, and never a FIFO or device (opening one may block or act).
    if (!(seen.isFile() || seen.isDirectory()) || seen.dev !== dev || (seen.isFile() && seen.nlink > 1)) {
      result.skipped++;
      continue;
    }
    if (seen.isFile() && (seen.mode & 0o077) === 0) continue;
    if (leave.has(name)) {
      // lstat just ruled out a symlink, and nothing but the fleet writes the top level.
      chmodSync(path, seen.mode & 0o700);
      result.tightened++;
      continue;
    }
    let fd: number;
    try {
      fd = openSync(path, OPEN_FLAGS | (seen.isDirectory() ? constants.O_DIRECTORY : 0));
    } catch (err) {
      // Swapped for a symlink (ELOOP) or something else, or gone, since the lstat: left alone.
      if (['ELOOP', 'ENOENT', 'ENOTDIR', 'ENXIO', 'EACCES', 'EPERM'].includes((err as NodeJS.ErrnoException).code ?? '')) {
        result.skipped++;
        continue;
      }
      throw err;
    }
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== seen.ino || stat.dev !== seen.dev) {
        result.skipped++;
        continue;
      }
      tighten(fd, stat, result);
      if (stat.isDirectory()) walk(fd, join(dirPath, name), dev, result, NOTHING);
    } finally {
      closeSync(fd);
    }
  }
}

const NOTHING: ReadonlySet<string> = new Set();
