// The one way the runtime and the CLI touch files beneath a directory that someone else can
// write (an agent's workspace, a user's OpenClaw state): every path is walked one component at
// a time from a descriptor on that directory, each folder opened O_DIRECTORY|O_NOFOLLOW through
// its parent's descriptor and the last component O_NOFOLLOW, so no symlink is ever followed and
// nothing swapped in after a check can redirect a read or a write — the effect of
// openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), which Node has no binding for.
//
// How, without *at() calls: on Linux /proc/self/fd/<fd> is a magic link to the very folder the
// descriptor holds (wherever it has moved), so `/proc/self/fd/<fd>/<name>` looks <name> up in
// that folder. That is the only /proc path this module ever opens: the descriptor is one it
// opened itself, and <name> is ONE validated component (no "/", not "." or "..", no NUL, at most
// 255 bytes). A path from a tool call is split and checked lexically first ("..", absolute
// paths outside the root: refused), so no path anyone supplies can land in /proc or anywhere
// outside the root.
//
// Where /proc/self/fd does not exist (macOS dev machines), each component is opened by its full
// path instead, still O_NOFOLLOW per component, and each folder's identity is checked against
// the descriptor held on it; what that costs is a window between the check of a parent and the
// lookup of its child in which a folder higher up can be swapped. Such machines have no local
// box either (bubblewrap is Linux-only): there, run agents you do not trust on Linux.
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  promises as fs,
  readdirSync,
  readSync,
  realpathSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { ClawfleetError, type ErrorCode } from '../../errors.ts';

const FD_PATHS = existsSync('/proc/self/fd');
/** One name's limit in bytes (NAME_MAX on Linux and macOS). */
const NAME_MAX = 255;
/** Folders deep a path may go: far past any real workspace, short of running out of descriptors. */
const MAX_DEPTH = 256;

export const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
const NOFOLLOW = constants.O_NOFOLLOW;

let unchecked = false;
/**
 * Test-only: resolve paths the naive way (joined to the root and opened by name, symlinks
 * followed, no lexical check), so a test can show what the runtime's box holds by itself. The
 * runtime calls this only when CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS=1 (runtime-image/src/env.ts),
 * which nothing in a fleet's config or an agent's reach can set.
 */
export function resolvePathsUncheckedForTests(): void {
  unchecked = true;
}

export type WorkspacePathCode = Extract<
  ErrorCode,
  'PATH_OUTSIDE_WORKSPACE' | 'PATH_INVALID' | 'PATH_SYMLINK' | 'PATH_NOT_FOUND' | 'PATH_NOT_FOLDER' | 'NOT_REGULAR_FILE' | 'FILE_ACCESS_FAILED'
>;

/** A path refused or an operation that failed, said with the path as the caller gave it (never a /proc or host path). */
export class WorkspacePathError extends ClawfleetError {
  override name = 'WorkspacePathError';
  constructor(
    override readonly code: WorkspacePathCode,
    message: string,
    /** The errno behind it, where there was one (ENOENT, EACCES…). */
    readonly errno?: string,
  ) {
    super(code, message);
  }
}

/** Kept as its own class: a transcript that is not a regular file fails a turn in its own words (turn.ts). */
export class NotRegularFileError extends WorkspacePathError {
  override name = 'NotRegularFileError';
  constructor(
    readonly path: string,
    what: string,
  ) {
    super('NOT_REGULAR_FILE', `${path} is ${what}, not a regular file, so it was left alone`);
  }
}

/** Whether an error says the path is not there (so a caller can treat "missing" as empty). */
export function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException | WorkspacePathError)?.code === 'ENOENT' || (err instanceof WorkspacePathError && err.errno === 'ENOENT');
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

const ERRNO_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'over the disk quota',
  EROFS: 'on a read-only file system',
  EISDIR: 'a folder',
  ENAMETOOLONG: 'a name too long',
  ENOTEMPTY: 'a folder that is not empty',
  EEXIST: 'already there',
  EXDEV: 'on another file system',
  EMFILE: 'too many open files',
};

/** An errno error from a /proc path, said with the caller's path instead. */
function translate(err: unknown, shown: string): Error {
  if (err instanceof WorkspacePathError || !(err as NodeJS.ErrnoException)?.code) return err as Error;
  const code = (err as NodeJS.ErrnoException).code!;
  if (code === 'ENOENT') return new WorkspacePathError('PATH_NOT_FOUND', `${shown} does not exist in the workspace`, code);
  if (code === 'ENOTDIR') return new WorkspacePathError('PATH_NOT_FOLDER', `a part of ${shown} is a file, not a folder`, code);
  return new WorkspacePathError('FILE_ACCESS_FAILED', `${shown}: ${ERRNO_WORDS[code] ?? 'failed'} (${code})`, code);
}

function checkName(name: string): void {
  if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0'))
    throw new WorkspacePathError('PATH_INVALID', `"${name.replaceAll('\0', '\\0')}" is not a file name`);
  if (Buffer.byteLength(name) > NAME_MAX) throw new WorkspacePathError('PATH_INVALID', `a name in the path is longer than ${NAME_MAX} bytes`);
}

/** A folder held open by its descriptor; its entries are named through it. */
export class DirHandle {
  private closed = false;

  private constructor(
    readonly fd: number,
    /** The folder's path as reached: for the fallback without /proc, and for the caller's own messages. */
    readonly path: string,
    readonly stat: Stats,
    /** Unchecked (test-only) handles name entries by path and follow links. */
    private readonly byName = false,
  ) {}

  /** The root of a walk: a symlink here is followed (the operator named this folder), nothing below it is. */
  static openRoot(path: string): DirHandle {
    const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY);
    return new DirHandle(fd, path, fstatSync(fd), unchecked);
  }

  /**
   * Where an entry of this folder is, as a path the kernel resolves through the descriptor: the
   * only /proc path the module builds, a descriptor of its own and one checked name.
   */
  entry(name: string): string {
    checkName(name);
    return FD_PATHS && !this.byName ? `/proc/self/fd/${this.fd}/${name}` : join(this.path, name);
  }

  /** The folder's own listing (through the descriptor on Linux). */
  listPath(): string {
    return FD_PATHS && !this.byName ? `/proc/self/fd/${this.fd}` : this.path;
  }

  /** Names in this folder, sorted. */
  names(): string[] {
    return readdirSync(this.listPath()).sort();
  }

  /**
   * A subfolder, never through a symlink: O_NOFOLLOW refuses one at the name, and where `seen`
   * (an lstat of the name) is given the descriptor's identity must be what it described.
   */
  openChild(name: string, seen?: Stats, shown = join(this.path, name)): DirHandle {
    let fd: number;
    try {
      fd = openSync(this.entry(name), (this.byName ? constants.O_RDONLY | constants.O_DIRECTORY : DIR_FLAGS) | constants.O_NONBLOCK);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // O_DIRECTORY|O_NOFOLLOW on a symlink gives ENOTDIR (ELOOP from some kernels): say which it was.
      if (code === 'ENOTDIR' || code === 'ELOOP') {
        const st = this.lstatOrUndefined(name);
        if (st?.isSymbolicLink() || code === 'ELOOP') throw symlinkError(shown);
        if (st) throw new WorkspacePathError('PATH_NOT_FOLDER', `${shown} is ${st.isFile() ? 'a file' : kindOf(st)}, not a folder`, code);
      }
      throw translate(err, shown);
    }
    const stat = fstatSync(fd);
    if (seen && (stat.ino !== seen.ino || stat.dev !== seen.dev)) {
      closeSync(fd);
      throw new WorkspacePathError('FILE_ACCESS_FAILED', `${shown} changed while it was read`, 'ECHANGED');
    }
    // Without /proc the child was opened by path: check it is the one this folder holds now.
    if (!FD_PATHS && !this.byName) {
      const now = lstatSync(join(this.path, name));
      if (now.ino !== stat.ino || now.dev !== stat.dev) {
        closeSync(fd);
        throw new WorkspacePathError('FILE_ACCESS_FAILED', `${shown} changed while it was opened`, 'ECHANGED');
      }
    }
    return new DirHandle(fd, join(this.path, name), stat, this.byName);
  }

  /** A subfolder, made (with `mode`) if it is missing. */
  openOrMakeChild(name: string, mode: number, shown?: string): DirHandle {
    for (let attempt = 0; ; attempt++) {
      try {
        return this.openChild(name, undefined, shown);
      } catch (err) {
        if (!(err instanceof WorkspacePathError && err.errno === 'ENOENT') || attempt > 2) throw err;
      }
      try {
        mkdirSync(this.entry(name), { mode });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw translate(err, shown ?? name);
      }
    }
  }

  lstatEntry(name: string): Stats {
    return lstatSync(this.entry(name));
  }

  lstatOrUndefined(name: string): Stats | undefined {
    try {
      return this.lstatEntry(name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw translate(err, name);
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

function symlinkError(shown: string): WorkspacePathError {
  return new WorkspacePathError('PATH_SYMLINK', `${shown} is a symbolic link, which file tools do not follow; use the path it points to`, 'ELOOP');
}

/** What a path names beneath the root: the folders on the way and the last name (undefined for the root itself). */
interface Located {
  dirs: string[];
  name: string | undefined;
  /** The path as the caller gave it, for messages. */
  shown: string;
}

export interface CappedText {
  text: string;
  /** The file's size in bytes when it was read. */
  size: number;
  /** Whether bytes were left unread (the file is larger than maxBytes). */
  truncated: boolean;
}

export interface Entry {
  name: string;
  kind: 'file' | 'folder' | 'symlink' | 'other';
}

const CHUNK = 1 << 20;
const READ = constants.O_RDONLY;
const APPEND = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT;
const READ_APPEND = constants.O_RDWR | constants.O_APPEND | constants.O_CREAT;
const NEW_FILE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL;

/**
 * A directory that others write, and the operations the runtime needs beneath it. It holds no
 * descriptor between calls: each call opens the root, walks, acts and closes what it opened.
 */
export class WorkspaceDir {
  private realRoot: string | undefined;

  constructor(
    /** The root as configured (a symlink in it is followed: the operator named it). */
    readonly root: string,
  ) {}

  /**
   * Splits a path into names beneath the root, lexically: "." and empty names dropped, ".."
   * taken off the folder before it and refused where it would climb out (sound because no link
   * is ever followed, so a name's parent is the folder that holds it), an absolute path taken
   * only where it lies inside the root as configured or as resolved.
   */
  locate(path: string): Located {
    if (path.includes('\0')) throw new WorkspacePathError('PATH_INVALID', `the path holds a NUL byte, which no file name can`);
    let rel = path;
    if (isAbsolute(path)) {
      const inside = this.relativeToRoot(resolve(path));
      if (inside === undefined)
        throw new WorkspacePathError('PATH_OUTSIDE_WORKSPACE', `${path} is outside the workspace; give a path relative to the workspace`);
      rel = inside;
    }
    const parts: string[] = [];
    for (const part of rel.split('/')) {
      if (part === '' || part === '.') continue;
      if (part === '..') {
        if (parts.length === 0) throw new WorkspacePathError('PATH_OUTSIDE_WORKSPACE', `${path} climbs out of the workspace with ".."; paths stay inside it`);
        parts.pop();
        continue;
      }
      checkName(part);
      parts.push(part);
    }
    if (parts.length > MAX_DEPTH) throw new WorkspacePathError('PATH_INVALID', `${path} is more than ${MAX_DEPTH} folders deep`);
    const name = parts.pop();
    return { dirs: parts, name, shown: path };
  }

  private relativeToRoot(abs: string): string | undefined {
    for (const root of [resolve(this.root), this.real()]) {
      if (abs === root) return '.';
      if (abs.startsWith(root.endsWith(sep) ? root : root + sep)) return abs.slice(root.length).replace(/^\/+/, '');
    }
    return undefined;
  }

  private real(): string {
    if (this.realRoot === undefined) {
      try {
        this.realRoot = realpathSync(this.root);
      } catch {
        return resolve(this.root);
      }
    }
    return this.realRoot;
  }

  /**
   * The folder that holds the path's last name, open (the caller closes it), walked from the
   * root without following a link; with `make`, missing folders are made, each created through
   * its parent's descriptor and then opened through it like any other.
   */
  private walkTo(path: string, opts: { make?: number }): { dir: DirHandle; name: string | undefined; shown: string } {
    if (unchecked) {
      // The test-only naive resolution: joined, opened by path, links followed.
      const full = resolve(this.root, path);
      const slash = full.lastIndexOf('/');
      const parent = full.slice(0, slash) || '/';
      if (opts.make !== undefined) mkdirSync(parent, { recursive: true });
      return { dir: DirHandle.openRoot(parent), name: full.slice(slash + 1) || undefined, shown: path };
    }
    const { dirs, name, shown } = this.locate(path);
    let dir = this.openRootDir(opts.make !== undefined);
    try {
      for (let i = 0; i < dirs.length; i++) {
        const upTo = dirs.slice(0, i + 1).join('/');
        const child = opts.make !== undefined ? dir.openOrMakeChild(dirs[i]!, opts.make, upTo) : dir.openChild(dirs[i]!, undefined, upTo);
        dir.close();
        dir = child;
      }
    } catch (err) {
      dir.close();
      throw err;
    }
    return { dir, name, shown };
  }

  /** The root, made first when asked to make folders and it is missing (its path is the operator's, so made by path as before). */
  private openRootDir(make: boolean): DirHandle {
    try {
      return DirHandle.openRoot(this.root);
    } catch (err) {
      if (!make || (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      mkdirSync(this.root, { recursive: true });
      return DirHandle.openRoot(this.root);
    }
  }

  private withParent<T>(path: string, opts: { make?: number }, use: (dir: DirHandle, name: string | undefined, shown: string) => T): T {
    const at = this.walkTo(path, opts);
    try {
      return use(at.dir, at.name, at.shown);
    } finally {
      at.dir.close();
    }
  }

  private async withParentAsync<T>(
    path: string,
    opts: { make?: number },
    use: (dir: DirHandle, name: string | undefined, shown: string) => Promise<T>,
  ): Promise<T> {
    const at = this.walkTo(path, opts);
    try {
      return await use(at.dir, at.name, at.shown);
    } finally {
      at.dir.close();
    }
  }

  /** The folder a path names, held open (the caller closes it); the root for "." */
  openFolder(path: string): DirHandle {
    if (unchecked) return DirHandle.openRoot(resolve(this.root, path));
    return this.withParent(path, {}, (dir, name, shown) => (name === undefined ? DirHandle.openRoot(this.root) : dir.openChild(name, undefined, shown)));
  }

  /**
   * Opens a regular file: O_NOFOLLOW (a link at the name is refused), O_NONBLOCK (a FIFO returns
   * at once instead of waiting for a writer), then fstat on the descriptor must show a regular
   * file or it is closed unread, so nothing can be swapped between the check and the use.
   */
  async open(path: string, mode: 'read' | 'append' | 'read+append'): Promise<{ handle: FileHandle; stat: Stats }> {
    return this.withParentAsync(path, mode === 'read' ? {} : { make: 0o777 }, async (dir, name, shown) => {
      if (name === undefined) throw new NotRegularFileError(shown, 'the workspace itself');
      return openRegularAt(dir, name, { read: READ, append: APPEND, 'read+append': READ_APPEND }[mode], shown);
    });
  }

  /** Reads at most maxBytes of a regular file ('end': the last maxBytes, from a whole line). */
  async readText(path: string, opts: { maxBytes: number; from?: 'start' | 'end' | undefined }): Promise<CappedText> {
    const { handle, stat } = await this.open(path, 'read');
    try {
      return await readCapped(handle, stat.size, opts);
    } finally {
      await handle.close();
    }
  }

  /** readText for a small state file read synchronously (the MCP reaper's record). */
  readTextSync(path: string, maxBytes: number): string {
    return this.readBytesSync(path, maxBytes).bytes.toString('utf8');
  }

  /** At most maxBytes of a regular file, synchronously, with its size (to tell a file cut short). */
  readBytesSync(path: string, maxBytes: number): { bytes: Buffer; size: number } {
    return this.withParent(path, {}, (dir, name, shown) => {
      if (name === undefined) throw new NotRegularFileError(shown, 'the workspace itself');
      const fd = openRegularAtSync(dir, name, READ, shown);
      try {
        const size = fstatSync(fd).size;
        const buf = Buffer.alloc(Math.min(size, maxBytes));
        let got = 0;
        while (got < buf.length) {
          const n = readSync(fd, buf, got, buf.length - got, got);
          if (n === 0) break;
          got += n;
        }
        return { bytes: buf.subarray(0, got), size };
      } finally {
        closeSync(fd);
      }
    });
  }

  /** Appends to a regular file, creating it (and its folders) if missing; fsync when asked. */
  async append(path: string, text: string, opts: { sync?: boolean } = {}): Promise<void> {
    const { handle } = await this.open(path, 'append');
    try {
      await handle.appendFile(text);
      if (opts.sync) await handle.sync();
    } finally {
      await handle.close();
    }
  }

  /**
   * Replaces a file whole: a temporary created O_EXCL in the verified folder, written, then
   * renamed over the name through the same folder's descriptor (rename replaces a link at the
   * name itself, never writes through it). Folders on the way are made.
   */
  writeAtomic(path: string, content: string | Uint8Array, opts: { mode?: number } = {}): void {
    this.withParent(path, { make: 0o777 }, (dir, name, shown) => {
      if (name === undefined) throw new WorkspacePathError('FILE_ACCESS_FAILED', `${shown} is the workspace itself, not a file`, 'EISDIR');
      const there = dir.lstatOrUndefined(name);
      if (there?.isDirectory()) throw new WorkspacePathError('FILE_ACCESS_FAILED', `${shown} is a folder; it was left alone`, 'EISDIR');
      const temp = `.${name.slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`;
      let fd: number;
      try {
        fd = openSync(dir.entry(temp), NEW_FILE | NOFOLLOW | constants.O_NONBLOCK, opts.mode ?? 0o666);
      } catch (err) {
        throw translate(err, shown);
      }
      let open = true;
      let renamed = false;
      try {
        writeAll(fd, typeof content === 'string' ? Buffer.from(content) : content);
        closeSync(fd);
        open = false;
        renameSync(dir.entry(temp), dir.entry(name));
        renamed = true;
      } catch (err) {
        throw translate(err, shown);
      } finally {
        if (open) closeSync(fd);
        if (!renamed) rmQuiet(dir, temp);
      }
    });
  }

  /**
   * Writes a new file, never over anything (O_EXCL|O_NOFOLLOW), folders made as needed. Throws
   * with errno EEXIST when the name is taken.
   */
  writeNew(path: string, content: string | Uint8Array, opts: { mode?: number } = {}): void {
    this.withParent(path, { make: 0o777 }, (dir, name, shown) => {
      if (name === undefined) throw new WorkspacePathError('FILE_ACCESS_FAILED', `${shown} is the workspace itself, not a file`, 'EISDIR');
      let fd: number;
      try {
        fd = openSync(dir.entry(name), NEW_FILE | NOFOLLOW | constants.O_NONBLOCK, opts.mode ?? 0o666);
      } catch (err) {
        throw translate(err, shown);
      }
      try {
        writeAll(fd, typeof content === 'string' ? Buffer.from(content) : content);
      } finally {
        closeSync(fd);
      }
    });
  }

  /**
   * Writes bytes to a new file (an attachment landing in inbox/): where the name is taken, a
   * regular file of the same size is taken to be this one written before (a redelivered
   * message) and its path returned; else "name-2.ext", "name-3.ext"… Returns the path written.
   */
  async createNew(path: string, bytes: Uint8Array): Promise<string> {
    const dot = path.lastIndexOf('.');
    const slash = path.lastIndexOf('/');
    const [stem, ext] = dot > slash + 1 ? [path.slice(0, dot), path.slice(dot)] : [path, ''];
    for (let n = 1; n <= 100; n++) {
      const candidate = n === 1 ? path : `${stem}-${n}${ext}`;
      try {
        this.writeNew(candidate, bytes, { mode: 0o644 });
        return candidate;
      } catch (err) {
        if (!(err instanceof WorkspacePathError && err.errno === 'EEXIST')) throw err;
        const st = this.stat(candidate);
        if (st?.isFile() && st.size === bytes.byteLength) return candidate;
      }
    }
    throw new WorkspacePathError('PATH_INVALID', `${path} and 99 numbered names beside it are taken`);
  }

  /** Makes a folder and every missing one above it. */
  mkdirp(path: string, mode = 0o777): void {
    this.withParent(path, { make: mode }, (dir, name, shown) => {
      if (name !== undefined) dir.openOrMakeChild(name, mode, shown).close();
    });
  }

  /** What is at a path, not following a link at it; undefined if nothing is. */
  stat(path: string): Stats | undefined {
    try {
      return this.withParent(path, {}, (dir, name) => (name === undefined ? dir.stat : dir.lstatOrUndefined(name)));
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  /** A folder's entries, sorted, each with what it is (a link is a link, not what it points to). */
  list(path: string): Entry[] {
    const dir = this.openFolder(path);
    try {
      return listEntries(dir);
    } catch (err) {
      throw translate(err, path);
    } finally {
      dir.close();
    }
  }

  /** Renames within the root: both ends walked without links (rename itself replaces a link at the target). */
  rename(from: string, to: string): void {
    this.withParent(from, {}, (src, fromName, shownFrom) =>
      this.withParent(to, { make: 0o777 }, (dst, toName) => {
        if (fromName === undefined || toName === undefined) throw new WorkspacePathError('PATH_INVALID', `the workspace itself cannot be renamed`);
        try {
          renameSync(src.entry(fromName), dst.entry(toName));
        } catch (err) {
          throw translate(err, shownFrom);
        }
      }),
    );
  }

  /** Removes a file, a link (never what it points to) or, with recursive, a folder and all in it; missing is fine. */
  remove(path: string, opts: { recursive?: boolean } = {}): void {
    try {
      this.withParent(path, {}, (dir, name, shown) => {
        if (name === undefined) throw new WorkspacePathError('PATH_INVALID', `the workspace itself is not removed`);
        removeEntry(dir, name, opts.recursive ?? false, shown);
      });
    } catch (err) {
      if (isMissing(err)) return;
      throw err;
    }
  }
}

/** Opens `name` in `dir` as a regular file (see WorkspaceDir.open). */
export async function openRegularAt(dir: DirHandle, name: string, flags: number, shown: string): Promise<{ handle: FileHandle; stat: Stats }> {
  let handle: FileHandle;
  try {
    handle = await fs.open(dir.entry(name), flags | (unchecked ? 0 : NOFOLLOW) | constants.O_NONBLOCK, 0o666);
  } catch (err) {
    throw refusal(err, dir, name, shown);
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new NotRegularFileError(shown, kindOf(stat));
  }
  return { handle, stat };
}

function openRegularAtSync(dir: DirHandle, name: string, flags: number, shown: string): number {
  let fd: number;
  try {
    fd = openSync(dir.entry(name), flags | (unchecked ? 0 : NOFOLLOW) | constants.O_NONBLOCK, 0o666);
  } catch (err) {
    throw refusal(err, dir, name, shown);
  }
  const stat = fstatSync(fd);
  if (!stat.isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(shown, kindOf(stat));
  }
  return fd;
}

/** ELOOP: a symlink at the name; ENXIO: a socket, or a FIFO opened to write with no reader; EISDIR: a folder. */
function refusal(err: unknown, dir: DirHandle, name: string, shown: string): Error {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return symlinkError(shown);
  if (code === 'ENXIO' || code === 'EISDIR') {
    let what = code === 'EISDIR' ? 'a folder' : 'a FIFO (named pipe) or socket';
    try {
      what = kindOf(dir.lstatEntry(name));
    } catch {
      // gone since: the errno's guess stands
    }
    return new NotRegularFileError(shown, what);
  }
  return translate(err, shown);
}

async function readCapped(handle: FileHandle, size: number, opts: { maxBytes: number; from?: 'start' | 'end' | undefined }): Promise<CappedText> {
  const fromEnd = opts.from === 'end' && size > opts.maxBytes;
  // From the end, one byte more: if it is a newline, the window starts on a whole line.
  const start = fromEnd ? size - opts.maxBytes - 1 : 0;
  const want = fromEnd ? opts.maxBytes + 1 : Math.min(size, opts.maxBytes);
  const buf = Buffer.alloc(want);
  let got = 0;
  while (got < want) {
    const { bytesRead } = await handle.read(buf, got, Math.min(CHUNK, want - got), start + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  let bytes = buf.subarray(0, got);
  if (fromEnd) bytes = bytes.subarray(bytes.indexOf(0x0a) + 1);
  return { text: bytes.toString('utf8'), size, truncated: size > opts.maxBytes };
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let off = 0; off < bytes.byteLength; ) off += writeSync(fd, bytes, off, bytes.byteLength - off);
}

export function listEntries(dir: DirHandle): Entry[] {
  return readdirSync(dir.listPath(), { withFileTypes: true })
    .map((e) => ({ name: e.name, kind: e.isSymbolicLink() ? 'symlink' : e.isDirectory() ? 'folder' : e.isFile() ? 'file' : 'other' }) as Entry)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

function rmQuiet(dir: DirHandle, name: string): void {
  try {
    unlinkSync(dir.entry(name));
  } catch {
    // nothing to clean
  }
}

/** unlink first (a link or file goes, never what a link points to); a folder is emptied through its own descriptor, then removed. */
function removeEntry(dir: DirHandle, name: string, recursive: boolean, shown: string): void {
  try {
    unlinkSync(dir.entry(name));
    return;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    if (code !== 'EISDIR' && code !== 'EPERM') throw translate(err, shown);
  }
  if (!recursive) throw new WorkspacePathError('FILE_ACCESS_FAILED', `${shown} is a folder`, 'EISDIR');
  const child = dir.openChild(name, undefined, shown);
  try {
    for (const inner of child.names()) removeEntry(child, inner, true, `${shown}/${inner}`);
  } finally {
    child.close();
  }
  try {
    rmdirSync(dir.entry(name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw translate(err, shown);
  }
}

/** fsync a folder, so a rename or a new entry in it survives a crash. */
export function syncFolder(dir: DirHandle): void {
  fsyncSync(dir.fd);
}
