// Copying a workspace safely (shared/adapters/fs): regular files only, never through a
// symlink on either side, hard links and FIFOs left behind with a note, sizes capped,
// nothing overwritten without force, every file checked against its hash, private modes,
// and a second run after an interruption writing only what is missing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyWorkspace } from '../../shared/adapters/fs/copy-workspace.ts';
import { scanWorkspace } from '../../shared/adapters/fs/workspace-reader.ts';
import { WorkspaceWriter } from '../../shared/adapters/fs/workspace-writer.ts';
import { parseManifest, PARTIAL_MARK, WorkspacePathSchema } from '../../shared/workspace/manifest.ts';
import { tempDir } from '../support/temp-dirs.ts';

const clock = { now: () => 1_700_000_000_000 };
const tmp = (name: string) => tempDir(`cf-wscopy-${name}-`);
const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const copy = (src: string, dst: string, extra: Partial<Parameters<typeof copyWorkspace>[2]> = {}) =>
  copyWorkspace(src, dst, { agentId: 'fran', clock, force: false, ...extra });

/** Every path under `dir`, files and folders, relative; symlinks are listed, not followed. */
function tree(dir: string, prefix = ''): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      return e.isDirectory() ? [`${rel}/`, ...tree(join(dir, e.name), rel)] : [rel];
    })
    .sort();
}

function source(): string {
  const src = tmp('src');
  writeFileSync(join(src, 'SOUL.md'), 'I am Fran.\n');
  mkdirSync(join(src, 'memory', 'deep'), { recursive: true });
  writeFileSync(join(src, 'memory', '2026-01-02.md'), 'the cat is called Miso\n');
  writeFileSync(join(src, 'memory', 'deep', 'note.md'), 'deep\n');
  writeFileSync(join(src, 'run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
  return src;
}

describe('copying a workspace', () => {
  it('copies every regular file byte for byte, with private modes (0600, 0700 for folders and executables)', async () => {
    const src = source();
    const dst = join(tmp('dst'), 'workspace');
    const result = await copy(src, dst);
    expect(result.created.sort()).toEqual(['SOUL.md', 'memory/2026-01-02.md', 'memory/deep/note.md', 'run.sh']);
    expect(tree(dst)).toEqual(['SOUL.md', 'memory/', 'memory/2026-01-02.md', 'memory/deep/', 'memory/deep/note.md', 'run.sh']);
    expect(readFileSync(join(dst, 'memory', '2026-01-02.md'), 'utf8')).toBe('the cat is called Miso\n');
    expect(statSync(join(dst, 'SOUL.md')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dst, 'run.sh')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dst, 'memory')).mode & 0o777).toBe(0o700);
    expect(statSync(dst).mode & 0o777).toBe(0o700);
    expect(result.manifest.files.find((f) => f.path === 'SOUL.md')).toEqual({ path: 'SOUL.md', size: 11, sha256: sha('I am Fran.\n'), executable: false });
  });

  it('never follows a symlink out of the source: a linked file or folder is left behind and named', async () => {
    const src = source();
    const outside = tmp('outside');
    writeFileSync(join(outside, 'id_rsa'), 'PRIVATE KEY');
    symlinkSync(join(outside, 'id_rsa'), join(src, 'key'));
    symlinkSync(outside, join(src, 'memory', 'linked'));
    const dst = tmp('dst');
    const result = await copy(src, dst);
    expect(result.skipped).toEqual(
      expect.arrayContaining([
        { path: 'key', reason: 'a symbolic link (not followed), not a regular file' },
        { path: 'memory/linked', reason: 'a symbolic link (not followed), not a regular file' },
      ]),
    );
    expect(existsSync(join(dst, 'key'))).toBe(false);
    expect(JSON.stringify(tree(dst))).not.toContain('id_rsa');
  });

  it('skips FIFOs, sockets and files with other hard links without blocking, naming each', async () => {
    const src = source();
    execFileSync('mkfifo', [join(src, 'pipe')]);
    const sock = createServer();
    await new Promise<void>((r) => sock.listen(join(src, 'sock'), r));
    const outside = tmp('outside');
    writeFileSync(join(outside, 'secret'), 'S3CRET');
    linkSync(join(outside, 'secret'), join(src, 'hardlink'));
    try {
      const result = await copy(src, tmp('dst'));
      expect(result.skipped).toEqual(
        expect.arrayContaining([
          { path: 'pipe', reason: 'a FIFO (named pipe), not a regular file' },
          { path: 'sock', reason: 'a socket, not a regular file' },
          { path: 'hardlink', reason: expect.stringMatching(/other hard links/) },
        ]),
      );
      expect(result.created).not.toContain('hardlink');
    } finally {
      sock.close();
    }
  });

  it('caps one file with a note and refuses a workspace over the total cap, writing nothing', async () => {
    const src = source();
    writeFileSync(join(src, 'big.bin'), Buffer.alloc(4096, 1));
    const capped = await copy(src, tmp('dst'), { maxFileBytes: 1024 });
    expect(capped.skipped).toContainEqual({ path: 'big.bin', reason: '4.0 KiB, over the 1.0 KiB cap for one file' });
    const dst = tmp('dst');
    await expect(copy(src, dst, { maxTotalBytes: 1024 })).rejects.toMatchObject({ code: 'WORKSPACE_TOO_LARGE' });
    expect(readdirSync(dst)).toEqual([]);
  });

  it('refuses to overwrite a file with other content unless forced, and writes nothing else meanwhile', async () => {
    const src = source();
    const dst = tmp('dst');
    writeFileSync(join(dst, 'SOUL.md'), 'I am someone else.\n');
    await expect(copy(src, dst)).rejects.toMatchObject({
      code: 'WORKSPACE_CONFLICT',
      message: expect.stringMatching(/SOUL\.md: exists with other content \(--force replaces it\)/),
    });
    expect(tree(dst)).toEqual(['SOUL.md']);
    expect(readFileSync(join(dst, 'SOUL.md'), 'utf8')).toBe('I am someone else.\n');
    const forced = await copy(src, dst, { force: true });
    expect(forced.replaced).toEqual(['SOUL.md']);
    expect(readFileSync(join(dst, 'SOUL.md'), 'utf8')).toBe('I am Fran.\n');
  });

  it('never writes through a symlink in the destination: a linked folder blocks even --force, a linked file is replaced itself', async () => {
    const src = source();
    const dst = tmp('dst');
    const outside = tmp('outside');
    symlinkSync(outside, join(dst, 'memory'));
    const victim = join(tmp('victim'), 'SOUL.md');
    writeFileSync(victim, 'untouched');
    symlinkSync(victim, join(dst, 'SOUL.md'));
    await expect(copy(src, dst, { force: true })).rejects.toMatchObject({
      message: expect.stringMatching(/memory\/2026-01-02\.md: under memory, a symbolic link/),
    });
    expect(readdirSync(outside)).toEqual([]);
    unlinkSync(join(dst, 'memory'));
    await expect(copy(src, dst)).rejects.toMatchObject({
      message: expect.stringMatching(/SOUL\.md: a symbolic link \(not followed\) is there \(--force replaces it\)/),
    });
    await copy(src, dst, { force: true });
    expect(lstatSync(join(dst, 'SOUL.md')).isFile()).toBe(true);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a second run after an interruption writes only what did not arrive', async () => {
    const src = source();
    const dst = tmp('dst');
    await copy(src, dst);
    unlinkSync(join(dst, 'memory', 'deep', 'note.md'));
    // A write cut short leaves only its private temporary, which is never copied or counted.
    writeFileSync(join(dst, 'memory', `${PARTIAL_MARK}2026-01-02.md.abc`), 'half');
    const again = await copy(src, dst);
    expect(again.created).toEqual(['memory/deep/note.md']);
    expect(again.unchanged.sort()).toEqual(['SOUL.md', 'memory/2026-01-02.md', 'run.sh']);
    expect((await scanWorkspace(dst)).files.map((f) => f.path)).not.toContain(`memory/${PARTIAL_MARK}2026-01-02.md.abc`);
  });

  it('refuses bytes that are not the manifest’s, leaving no file and no temporary', async () => {
    const dst = tmp('dst');
    const writer = new WorkspaceWriter(dst);
    async function* bytes(s: string) {
      yield Buffer.from(s);
    }
    const file = { path: 'MEMORY.md', size: 5, sha256: sha('hello'), executable: false };
    await expect(writer.write(file, bytes('hellO'), { replace: false })).rejects.toMatchObject({ code: 'FILE_CORRUPT' });
    await expect(writer.write(file, bytes('hello!'), { replace: false })).rejects.toMatchObject({ code: 'FILE_CORRUPT' });
    expect(readdirSync(dst)).toEqual([]);
    await writer.write(file, bytes('hello'), { replace: false });
    expect(readFileSync(join(dst, 'MEMORY.md'), 'utf8')).toBe('hello');
  });

  it('reads nothing it cannot open as a regular file, and keeps going (an unreadable file is named)', async () => {
    const src = source();
    writeFileSync(join(src, 'locked.md'), 'x');
    chmodSync(join(src, 'locked.md'), 0o000);
    const result = await copy(src, tmp('dst'));
    // Root reads it anyway; anyone else gets it named as unreadable. Either way the rest is copied.
    expect(result.created).toContain('SOUL.md');
    if (!result.created.includes('locked.md')) expect(result.skipped).toContainEqual({ path: 'locked.md', reason: expect.stringMatching(/could not be read/) });
  });
});

describe('manifests from elsewhere', () => {
  it('refuses paths that climb out, are absolute, or are not plain names', () => {
    for (const bad of ['../x', '/etc/passwd', 'a//b', 'a/./b', 'a/../b', 'a\0b', '.', '', 'a/'])
      expect(WorkspacePathSchema.safeParse(bad).success, bad).toBe(false);
    for (const good of ['MEMORY.md', 'memory/2026-01-02.md', '.hidden', 'a/..b']) expect(WorkspacePathSchema.safeParse(good).success, good).toBe(true);
  });

  it('refuses another agent’s manifest and one naming a path twice', () => {
    const file = { path: 'a.md', size: 1, sha256: sha('a'), executable: false };
    const m = { v: 1, agentId: 'jerry', createdAt: 1, files: [file], skipped: [], totalBytes: 1 };
    expect(() => parseManifest(m, 'fran')).toThrow(/agent "jerry"'s, not "fran"'s/);
    expect(() => parseManifest({ ...m, agentId: 'fran', files: [file, file] }, 'fran')).toThrow(/names a\.md twice/);
    expect(() => parseManifest({ ...m, agentId: 'fran', files: [{ ...file, path: '../../etc/cron.d/x' }] }, 'fran')).toThrow(/not a workspace manifest/);
  });
});
