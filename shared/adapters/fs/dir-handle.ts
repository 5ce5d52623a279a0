// A folder held open by its descriptor, and its entries named through it: on Linux,
// /proc/self/fd/<fd>/<name> resolves <name> inside the folder the descriptor holds, wherever
// it has moved, so a folder swapped for a symlink after it was opened cannot redirect a read
// or a write elsewhere (the *at() calls Node lacks). Elsewhere the folder's path is used,
// with a window between check and use that /proc closes (as local/state-modes.ts does).
import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { WorkspaceTransferError } from '../../workspace/manifest.ts';

const FD_PATHS = existsSync('/proc/self/fd');

export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

export class DirHandle {
  private closed = false;

  private constructor(
    readonly fd: number,
    /** The folder's path as reached, for messages and the non-Linux fallback. */
    readonly path: string,
    readonly stat: Stats,
  ) {}

  /** The root of a walk: a symlink here is followed (the person named this folder), nothing below it is. */
  static openRoot(path: string): DirHandle {
    const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
    return new DirHandle(fd, path, fstatSync(fd));
  }

  /** Where an entry of this folder is, as a path the kernel resolves through the descriptor. */
  entry(name: string): string {
    if (name.includes('/') || name === '.' || name === '..' || name.includes('\0'))
      throw new WorkspaceTransferError('PATH_INVALID', `"${name}" is not a file name`);
    return FD_PATHS ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /** The folder's own listing (through the descriptor on Linux). */
  listPath(): string {
    return FD_PATHS ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /**
   * A subfolder, never through a symlink: O_NOFOLLOW refuses one at the name (ELOOP), and
   * the descriptor's identity must be what `seen` (an lstat of the name) described.
   */
  openChild(name: string, seen?: Stats): DirHandle {
    const fd = openSync(this.entry(name), DIR_FLAGS | constants.O_NONBLOCK);
    const stat = fstatSync(fd);
    if (seen && (stat.ino !== seen.ino || stat.dev !== seen.dev)) {
      closeSync(fd);
      throw Object.assign(new Error(`${join(this.path, name)} changed while it was read`), { code: 'ECHANGED' });
    }
    return new DirHandle(fd, join(this.path, name), stat);
  }

  lstatEntry(name: string): Stats {
    return lstatSync(this.entry(name));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** What a non-regular entry is, in words a person acts on. */
export function kindOf(st: Stats): string {
  if (st.isSymbolicLink()) return 'a symbolic link (not followed)';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a folder';
  return 'not a regular file';
}
