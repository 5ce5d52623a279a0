// Writes a workspace's files at their destination: never through a symlink (each folder is
// created and opened with O_NOFOLLOW through the descriptor of the one above it), each file
// into a new private temporary beside its target (O_EXCL, mode 0600, or 0700 when it was
// executable), checked against the manifest's size and SHA-256 as it arrives, synced, and
// only then renamed over its target — so a transfer cut short leaves whole files or none,
// and a replaced symlink is replaced itself, never written through.
import { constants, fsyncSync, mkdirSync, promises as fs, type Stats } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { PARTIAL_MARK, WorkspacePathSchema, WorkspaceTransferError, type ManifestFile } from '../../workspace/manifest.ts';
import type { TargetState } from '../../workspace/plan.ts';
import { DirHandle, kindOf } from './beneath.ts';

const FILE_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const NEW_FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Where each file of `files` would land in `root`, and what is there now (content hashed). */
export async function inspectTargets(root: string, files: readonly ManifestFile[]): Promise<Map<string, TargetState>> {
  const out = new Map<string, TargetState>();
  let top: DirHandle;
  try {
    top = DirHandle.openRoot(root);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    for (const f of files) out.set(f.path, { kind: 'absent' });
    return out;
  }
  try {
    for (const f of files) out.set(f.path, await inspectOne(top, f.path));
  } finally {
    top.close();
  }
  return out;
}

async function inspectOne(top: DirHandle, path: string): Promise<TargetState> {
  const parts = WorkspacePathSchema.parse(path).split('/');
  const name = parts.pop()!;
  const opened: DirHandle[] = [];
  try {
    let dir = top;
    for (const [i, part] of parts.entries()) {
      const at = parts.slice(0, i + 1).join('/');
      const seen = lstatOrUndefined(dir, part);
      if (!seen) return { kind: 'absent' };
      if (seen.isSymbolicLink()) return { kind: 'other', what: `under ${at}, a symbolic link (nothing is written through one)`, blocks: true };
      if (!seen.isDirectory()) return { kind: 'other', what: `under ${at}, which is ${seen.isFile() ? 'a file' : kindOf(seen)}, not a folder`, blocks: true };
      dir = dir.openChild(part, seen);
      opened.push(dir);
    }
    const seen = lstatOrUndefined(dir, name);
    if (!seen) return { kind: 'absent' };
    if (seen.isDirectory()) return { kind: 'other', what: 'a folder is there', blocks: true };
    if (!seen.isFile()) return { kind: 'other', what: `${kindOf(seen)} is there`, blocks: false };
    const handle = await fs.open(dir.entry(name), FILE_FLAGS);
    try {
      const hash = createHash('sha256');
      let size = 0;
      for await (const chunk of handle.createReadStream({ autoClose: false })) {
        hash.update(chunk as Buffer);
        size += (chunk as Buffer).length;
      }
      return { kind: 'file', size, sha256: hash.digest('hex') };
    } finally {
      await handle.close();
    }
  } finally {
    for (const d of opened) d.close();
  }
}

const lstatOrUndefined = (dir: DirHandle, name: string): Stats | undefined => dir.lstatOrUndefined(name);

export class WorkspaceWriter {
  /** Creates the destination folder (0700) if it is not there. */
  constructor(readonly root: string) {
    mkdirSync(root, { recursive: true, mode: 0o700 });
  }

  /**
   * Writes one file from `chunks`, which must be exactly the manifest's bytes. With `replace`
   * false, anything that appeared at the path since the plan is left alone and the write fails.
   */
  async write(file: ManifestFile, chunks: AsyncIterable<Uint8Array>, opts: { replace: boolean }): Promise<void> {
    const parts = WorkspacePathSchema.parse(file.path).split('/');
    const name = parts.pop()!;
    const opened: DirHandle[] = [DirHandle.openRoot(this.root)];
    try {
      for (const part of parts) opened.push(this.folder(opened.at(-1)!, part, file.path));
      const dir = opened.at(-1)!;
      const temp = `${PARTIAL_MARK}${name.slice(0, 64)}.${randomBytes(6).toString('hex')}`;
      const handle = await fs.open(dir.entry(temp), NEW_FILE_FLAGS, file.executable ? 0o700 : 0o600);
      let renamed = false;
      let closed = false;
      try {
        const hash = createHash('sha256');
        let size = 0;
        for await (const chunk of chunks) {
          size += chunk.length;
          if (size > file.size)
            throw new WorkspaceTransferError('FILE_CORRUPT', `${file.path}: more bytes arrived than the manifest's ${file.size}; nothing was written`);
          hash.update(chunk);
          await handle.write(chunk);
        }
        const sha256 = hash.digest('hex');
        if (size !== file.size || sha256 !== file.sha256) {
          throw new WorkspaceTransferError(
            'FILE_CORRUPT',
            `${file.path}: the bytes that arrived (${size} B, sha256 ${sha256.slice(0, 12)}…) are not the manifest's (${file.size} B, ${file.sha256.slice(0, 12)}…); nothing was written`,
          );
        }
        await handle.sync();
        await handle.close();
        closed = true;
        const there = lstatOrUndefined(dir, name);
        if (there?.isDirectory()) throw new WorkspaceTransferError('TARGET_BLOCKED', `${file.path}: a folder is there`);
        if (there && !opts.replace)
          throw new WorkspaceTransferError('TARGET_APPEARED', `${file.path}: something appeared there during the transfer; it was left alone`);
        // rename(2) replaces the entry itself: a symlink at the target is replaced, never followed.
        await fs.rename(dir.entry(temp), dir.entry(name));
        renamed = true;
        fsyncSync(dir.fd);
      } finally {
        if (!closed) await handle.close().catch(() => undefined);
        if (!renamed) await fs.unlink(dir.entry(temp)).catch(() => undefined);
      }
    } finally {
      for (const d of opened) d.close();
    }
  }

  /** A subfolder, made (0700) if missing, refused if a symlink or a file is in its place. */
  private folder(parent: DirHandle, name: string, forPath: string): DirHandle {
    for (let attempt = 0; ; attempt++) {
      const seen = lstatOrUndefined(parent, name);
      if (seen === undefined) {
        try {
          mkdirSync(parent.entry(name), { mode: 0o700 });
          fsyncSync(parent.fd);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 2) throw err;
        }
        continue;
      }
      if (!seen.isDirectory()) {
        throw new WorkspaceTransferError(
          'TARGET_BLOCKED',
          `${forPath}: ${name} on its way is ${seen.isSymbolicLink() ? 'a symbolic link (nothing is written through one)' : kindOf(seen)}; nothing was written`,
        );
      }
      return parent.openChild(name, seen);
    }
  }
}
