// A root fleet's boxes run as BOX_UID (runtime-box.ts), which must own what the box writes: the
// agent's workspace and its runtime state. Given to it before each start, whatever wrote there
// meanwhile as root (a workspace push, an import, an operator): anything not the box's already
// becomes its own. The walk never follows a symlink (one is re-owned itself), opens each entry
// through its directory's descriptor, skips files with other hard links and other file systems,
// so a link or swap in the workspace cannot turn it on a file elsewhere.
import { closeSync, constants, fchownSync, fstatSync, lchownSync, openSync, type Stats } from 'node:fs';
import { lstatEntries } from './lstat-entries.ts';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Makes `dir` and everything under it owned by uid:gid; returns how many entries changed owner. */
export function giveToBox(dir: string, uid: number, gid: number): number {
  const fd = openSync(dir, OPEN_FLAGS | constants.O_DIRECTORY);
  try {
    const stat = fstatSync(fd);
    let changed = own(fd, stat, uid, gid);
    changed += walk(fd, stat.dev, uid, gid);
    return changed;
  } finally {
    closeSync(fd);
  }
}

function own(fd: number, stat: Stats, uid: number, gid: number): number {
  if (stat.uid === uid && stat.gid === gid) return 0;
  fchownSync(fd, uid, gid);
  return 1;
}

function walk(dirFd: number, dev: number, uid: number, gid: number): number {
  let changed = 0;
  const base = `/proc/self/fd/${dirFd}`;
  for (const { path, seen } of lstatEntries(base)) {
    if (seen.dev !== dev || (seen.uid === uid && seen.gid === gid && !seen.isDirectory())) continue;
    if (seen.isSymbolicLink()) {
      // The link itself (lchown does not follow the last component; the directory is the descriptor's).
      lchownSync(path, uid, gid);
      changed++;
      continue;
    }
    // A FIFO, socket or device is never opened (that may block or act); a file with other links may be someone else's too.
    if (!(seen.isFile() || seen.isDirectory()) || (seen.isFile() && seen.nlink > 1)) continue;
    let fd: number;
    try {
      fd = openSync(path, OPEN_FLAGS | (seen.isDirectory() ? constants.O_DIRECTORY : 0));
    } catch (err) {
      // Swapped for a link, or gone, since the lstat: left alone.
      if (['ELOOP', 'ENOENT', 'ENOTDIR', 'ENXIO'].includes((err as NodeJS.ErrnoException).code ?? '')) continue;
      throw err;
    }
    try {
      const stat = fstatSync(fd);
      if (stat.ino !== seen.ino || stat.dev !== seen.dev) continue;
      changed += own(fd, stat, uid, gid);
      if (stat.isDirectory()) changed += walk(fd, dev, uid, gid);
    } finally {
      closeSync(fd);
    }
  }
  return changed;
}
