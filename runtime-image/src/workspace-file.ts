// Every read and append of a workspace file by the runtime goes through here, because the
// agent can put anything at a path: only a regular file inside the workspace is read or
// written (a FIFO, socket or device planted as MEMORY.md or a transcript is refused, and is
// never opened in a way that could block), and reads are asynchronous and capped in bytes,
// so neither a pipe with no writer nor a 10 GB file stops the event loop.
import { closeSync, constants, fstatSync, openSync, promises as fs, readSync, writeFileSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ClawfleetError } from '../../shared/errors.ts';
import { insideWorkspace } from './tools/workspace-path.ts';

/** A path that is not a regular file: said in words the model and the user can act on. */
export class NotRegularFileError extends ClawfleetError {
  override name = 'NotRegularFileError';
  constructor(
    readonly path: string,
    what: string,
  ) {
    super('NOT_REGULAR_FILE', `${path} is ${what}, not a regular file, so it was left alone`);
  }
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isDirectory()) return 'a folder';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

const MODES = {
  read: constants.O_RDONLY,
  append: constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
  'read+append': constants.O_RDWR | constants.O_APPEND | constants.O_CREAT,
} as const;

/**
 * Opens a regular file: O_NONBLOCK, so opening a FIFO returns at once instead of waiting for
 * a writer (or reader), and O_NOFOLLOW, so a symlink swapped in for the last component is
 * not followed; then fstat on what was opened must show a regular file, or it is closed
 * unread. One open and one fstat: the check is on the descriptor itself, so nothing can be
 * swapped between the check and the read.
 */
export async function openRegular(path: string, mode: keyof typeof MODES, shownAs = path): Promise<{ handle: FileHandle; stat: Stats }> {
  let handle: FileHandle;
  try {
    handle = await fs.open(path, MODES[mode] | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o666);
  } catch (err) {
    // ENXIO: a socket, or a FIFO opened for writing with no reader; ELOOP: a symlink.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENXIO' || code === 'ELOOP') throw new NotRegularFileError(shownAs, await kindAt(path, code));
    throw err;
  }
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new NotRegularFileError(shownAs, kindOf(stat));
  }
  return { handle, stat };
}

/** What is at a path that could not be opened, for the message. */
async function kindAt(path: string, code: string): Promise<string> {
  try {
    return kindOf(await fs.lstat(path));
  } catch {
    return code === 'ELOOP' ? 'a symbolic link' : 'a FIFO (named pipe) or socket';
  }
}

export interface CappedText {
  text: string;
  /** The file's size in bytes when it was read. */
  size: number;
  /** Whether bytes were left unread (the file is larger than maxBytes). */
  truncated: boolean;
}

const CHUNK = 1 << 20;

/**
 * Reads at most maxBytes of a regular file, in chunks (the event loop turns between them).
 * from 'end' reads the last maxBytes and drops the partial first line, for line-based logs
 * whose newest part matters.
 */
export async function readRegularFile(
  path: string,
  opts: { maxBytes: number; from?: 'start' | 'end' | undefined; shownAs?: string | undefined },
): Promise<CappedText> {
  const { handle, stat } = await openRegular(path, 'read', opts.shownAs);
  try {
    const { size } = stat;
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
  } finally {
    await handle.close();
  }
}

/** A workspace path resolved (symlinks followed, never outside the workspace) and read as readRegularFile does. */
export async function readWorkspaceFile(workspace: string, rel: string, opts: { maxBytes: number; from?: 'start' | 'end' }): Promise<CappedText> {
  return readRegularFile(insideWorkspace(workspace, rel), { ...opts, shownAs: rel });
}

/** Appends to a regular file inside the workspace, creating it if missing; fsync when asked. */
export async function appendWorkspaceFile(workspace: string, rel: string, text: string, opts: { sync?: boolean } = {}): Promise<void> {
  const { handle } = await openRegular(insideWorkspace(workspace, rel), 'append', rel);
  try {
    await handle.appendFile(text);
    if (opts.sync) await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * For a small state file the runtime keeps in the workspace and reads synchronously (the
 * MCP reaper's record): the same checks, O_NONBLOCK, at most maxBytes. Never blocks: only a
 * regular file is read, and a regular file's read returns.
 */
export function readSmallRegularFileSync(path: string, maxBytes: number): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new NotRegularFileError(path, kindOf(stat));
    const buf = Buffer.alloc(Math.min(stat.size, maxBytes));
    const got = buf.length > 0 ? readSync(fd, buf, 0, buf.length, 0) : 0;
    return buf.subarray(0, got).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Replaces a small state file; a FIFO or symlink at the path makes it fail at once (O_NONBLOCK, O_NOFOLLOW) rather than block. */
export function writeSmallFileSync(path: string, text: string): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o666);
  try {
    if (!fstatSync(fd).isFile()) throw new NotRegularFileError(path, kindOf(fstatSync(fd)));
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes bytes to a new regular file inside the workspace (an attachment landing in inbox/,
 * #16): folders made as needed, never through a link (the folders are resolved inside the
 * workspace, the file is opened O_EXCL|O_NOFOLLOW), never over another file. Where the name is
 * taken, a file of the same size is taken to be this one written before (a redelivered
 * message) and its path returned; else "name-2.ext", "name-3.ext"… Returns the path written,
 * relative to the workspace.
 */
export async function writeNewWorkspaceFile(workspace: string, rel: string, bytes: Uint8Array): Promise<string> {
  const dot = rel.lastIndexOf('.');
  const slash = rel.lastIndexOf('/');
  const [stem, ext] = dot > slash + 1 ? [rel.slice(0, dot), rel.slice(dot)] : [rel, ''];
  for (let n = 1; n <= 100; n++) {
    const candidate = n === 1 ? rel : `${stem}-${n}${ext}`;
    const path = insideWorkspace(workspace, candidate);
    await fs.mkdir(dirname(path), { recursive: true });
    // Resolved again now the folders exist: a link planted as one of them is caught here.
    const checked = insideWorkspace(workspace, candidate);
    let handle: FileHandle;
    try {
      handle = await fs.open(checked, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o644);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const st = await fs.lstat(checked);
      if (st.isFile() && st.size === bytes.byteLength) return candidate;
      continue;
    }
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
    return candidate;
  }
  throw new ClawfleetError('PATH_INVALID', `${rel} and 99 numbered names beside it are taken`);
}
