// Reads a workspace for a transfer: walks it without ever following a symlink (a link to
// ~/.ssh in an agent's workspace stays a link and is left behind, named), takes regular
// files only (a FIFO, socket or device is named and skipped, never opened in a way that
// blocks), skips a file with other hard links (it may be a file from outside the workspace),
// caps each file's size with a note, and hashes each file as it is read. Every folder and
// file is opened through the descriptor of the folder that holds it (beneath.ts).
import { formatBytes } from '../../format-bytes.ts';
import { constants, promises as fs, readdirSync, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import {
  DEFAULT_MAX_FILE_BYTES,
  DEFAULT_MAX_TOTAL_BYTES,
  MAX_DEPTH,
  MAX_ENTRIES,
  PARTIAL_MARK,
  WorkspacePathSchema,
  WorkspaceTransferError,
  type ManifestFile,
  type SkippedEntry,
} from '../../workspace/manifest.ts';
import { DirHandle, kindOf } from './beneath.ts';

export interface ScanOptions {
  maxFileBytes?: number | undefined;
  maxTotalBytes?: number | undefined;
  /** Why to leave an entry out (a folder with everything in it), or undefined to take it. */
  exclude?: ((path: string, kind: 'file' | 'folder') => string | undefined) | undefined;
  /** Called after each file is hashed. */
  onFile?: ((done: { files: number; bytes: number }) => void) | undefined;
}

export interface ScanResult {
  files: ManifestFile[];
  skipped: SkippedEntry[];
}

const CHUNK = 1 << 20;
const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Every regular file under `root` with its SHA-256, and everything left out with why. */
export async function scanWorkspace(root: string, opts: ScanOptions = {}): Promise<ScanResult> {
  const maxFile = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const maxTotal = opts.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES;
  const files: ManifestFile[] = [];
  const skipped: SkippedEntry[] = [];
  let entries = 0;
  let total = 0;
  const top = DirHandle.openRoot(root);

  const walk = async (dir: DirHandle, prefix: string, depth: number): Promise<void> => {
    for (const name of readdirSync(dir.listPath()).sort()) {
      if (++entries > MAX_ENTRIES)
        throw new WorkspaceTransferError('WORKSPACE_TOO_MANY_FILES', `${root} holds more than ${MAX_ENTRIES} entries; nothing was copied`);
      const rel = prefix ? `${prefix}/${name}` : name;
      if (name.startsWith(PARTIAL_MARK)) continue; // a write of ours that never finished
      if (!WorkspacePathSchema.safeParse(rel).success) {
        skipped.push({ path: rel.slice(0, 4096), reason: 'a name that cannot be carried (too long or not a plain name)' });
        continue;
      }
      let seen: Stats;
      try {
        seen = dir.lstatEntry(name);
      } catch {
        continue; // gone since the listing
      }
      if (seen.isDirectory()) {
        const why = opts.exclude?.(rel, 'folder');
        if (why) {
          skipped.push({ path: `${rel}/`, reason: why });
          continue;
        }
        if (depth >= MAX_DEPTH) {
          skipped.push({ path: `${rel}/`, reason: `deeper than ${MAX_DEPTH} folders` });
          continue;
        }
        let child: DirHandle;
        try {
          child = dir.openChild(name, seen);
        } catch (err) {
          skipped.push({
            path: `${rel}/`,
            reason: `could not be opened (${(err as { errno?: string }).errno ?? (err as Error).message}); a folder swapped for a link is never followed`,
          });
          continue;
        }
        try {
          await walk(child, rel, depth + 1);
        } finally {
          child.close();
        }
        continue;
      }
      if (!seen.isFile()) {
        skipped.push({ path: rel, reason: `${kindOf(seen)}, not a regular file` });
        continue;
      }
      const why = opts.exclude?.(rel, 'file');
      if (why) {
        skipped.push({ path: rel, reason: why });
        continue;
      }
      if (seen.nlink > 1) {
        skipped.push({ path: rel, reason: 'has other hard links (it may be a file from outside the workspace), so it was not read' });
        continue;
      }
      if (seen.size > maxFile) {
        skipped.push({ path: rel, reason: `${formatBytes(seen.size)}, over the ${formatBytes(maxFile)} cap for one file` });
        continue;
      }
      let hashed: { size: number; sha256: string; executable: boolean };
      try {
        hashed = await hashEntry(dir, name, seen);
      } catch (err) {
        if (err instanceof WorkspaceTransferError) throw err;
        skipped.push({ path: rel, reason: `could not be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` });
        continue;
      }
      total += hashed.size;
      if (total > maxTotal) {
        throw new WorkspaceTransferError(
          'WORKSPACE_TOO_LARGE',
          `${root} holds more than ${formatBytes(maxTotal)} of files; nothing was copied (raise the cap if that is meant)`,
        );
      }
      files.push({ path: rel, ...hashed });
      opts.onFile?.({ files: files.length, bytes: total });
    }
  };
  try {
    await walk(top, '', 0);
  } finally {
    top.close();
  }
  return { files, skipped };
}

/** Opens one entry of `dir` as a regular file, checking on the descriptor that it is what the walk saw. */
async function openEntry(dir: DirHandle, name: string, seen?: Stats): Promise<{ handle: FileHandle; stat: Stats }> {
  const handle = await fs.open(dir.entry(name), FILE_FLAGS);
  const stat = await handle.stat();
  if (!stat.isFile() || (seen && (stat.ino !== seen.ino || stat.dev !== seen.dev))) {
    await handle.close();
    throw Object.assign(new Error(`${name} changed while it was read`), { code: 'ECHANGED' });
  }
  return { handle, stat };
}

async function hashEntry(dir: DirHandle, name: string, seen: Stats): Promise<{ size: number; sha256: string; executable: boolean }> {
  const { handle, stat } = await openEntry(dir, name, seen);
  try {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of chunksOf(handle)) {
      hash.update(chunk);
      size += chunk.length;
    }
    return { size, sha256: hash.digest('hex'), executable: (stat.mode & 0o100) !== 0 };
  } finally {
    await handle.close();
  }
}

async function* chunksOf(handle: FileHandle): AsyncGenerator<Buffer> {
  const buf = Buffer.alloc(CHUNK);
  for (let pos = 0; ; ) {
    const { bytesRead } = await handle.read(buf, 0, CHUNK, pos);
    if (bytesRead === 0) return;
    pos += bytesRead;
    yield Buffer.from(buf.subarray(0, bytesRead));
  }
}

/**
 * The bytes of one workspace file, reached folder by folder without following a link; the
 * caller checks them against the manifest (a file changed since the scan fails there).
 */
export async function* readWorkspaceFile(root: string, path: string): AsyncGenerator<Buffer> {
  const parts = WorkspacePathSchema.parse(path).split('/');
  const name = parts.pop()!;
  const opened: DirHandle[] = [DirHandle.openRoot(root)];
  try {
    for (const part of parts) opened.push(opened.at(-1)!.openChild(part));
    const { handle } = await openEntry(opened.at(-1)!, name);
    try {
      yield* chunksOf(handle);
    } finally {
      await handle.close();
    }
  } finally {
    for (const d of opened) d.close();
  }
}

/** A file's SHA-256 and size as `readWorkspaceFile` reads it. */
export async function hashWorkspaceFile(root: string, path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of readWorkspaceFile(root, path)) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}
