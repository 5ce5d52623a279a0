// The one way files beneath a workspace are touched (shared/adapters/fs/beneath.ts), attacked
// as an agent's code would: a link at the last name or in the middle, a folder swapped for a
// link while calls run, "..", absolute paths, FIFOs, sockets and devices at the name, hard
// links, a folder moved mid-walk, paths longer than PATH_MAX, names with NUL.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isMissing, NotRegularFileError, WorkspaceDir, WorkspacePathError } from '../../shared/adapters/fs/beneath.ts';
import { tempDir } from '../support/temp-dirs.ts';

const tmp = (prefix = 'cf-beneath-') => tempDir(prefix);

async function failure(p: Promise<unknown> | (() => unknown)): Promise<WorkspacePathError> {
  let err: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(WorkspacePathError);
  return err as WorkspacePathError;
}

/**
 * Swaps <ws>/d/m between the real folder and a link to $2 until <ws>/stop appears, then writes
 * how many times it did to <ws>/swaps. Robust to the calls it races making d/m in a gap.
 */
const SWAPPER = `cd "$1" || exit 1; n=0
while [ ! -e stop ]; do
  mv -T d/m d/real || exit 1
  until ln -s "$2" d/m 2>/dev/null; do rm -rf d/m; done
  n=$((n+1))
  rm -f d/m
  until mv -T d/real d/m 2>/dev/null; do rm -rf d/m; done
done
echo $n > swaps`;

/** A workspace with a file, and beside it (outside) a folder holding a secret. */
function setup() {
  const ws = tmp();
  const outside = tmp('cf-beneath-outside-');
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE SECRET');
  mkdirSync(join(ws, 'd', 'm'), { recursive: true });
  writeFileSync(join(ws, 'd', 'm', 'secret.txt'), 'inside');
  return { ws, outside, dir: new WorkspaceDir(ws) };
}

describe('a link is never followed', () => {
  it('at the last name: read, append, send-style open and the sync read refuse it, saying it is a link', async () => {
    const { ws, outside, dir } = setup();
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'MEMORY.md'));
    const err = await failure(dir.readText('MEMORY.md', { maxBytes: 100 }));
    expect(err).toMatchObject({ code: 'PATH_SYMLINK', message: 'MEMORY.md is a symbolic link, which file tools do not follow; use the path it points to' });
    expect((await failure(dir.append('MEMORY.md', 'x'))).code).toBe('PATH_SYMLINK');
    expect((await failure(dir.open('MEMORY.md', 'read+append'))).code).toBe('PATH_SYMLINK');
    expect((await failure(() => dir.readTextSync('MEMORY.md', 100))).code).toBe('PATH_SYMLINK');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('OUTSIDE SECRET');
  });

  it('in the middle: nothing is read, written, made, listed or removed through it', async () => {
    const { ws, outside, dir } = setup();
    symlinkSync(outside, join(ws, 'link'));
    const err = await failure(dir.readText('link/secret.txt', { maxBytes: 100 }));
    expect(err).toMatchObject({ code: 'PATH_SYMLINK', message: 'link is a symbolic link, which file tools do not follow; use the path it points to' });
    expect((await failure(() => dir.writeAtomic('link/new.txt', 'x'))).code).toBe('PATH_SYMLINK');
    expect((await failure(() => dir.writeNew('link/new.txt', 'x'))).code).toBe('PATH_SYMLINK');
    expect((await failure(dir.createNew('link/inbox/a.jpg', new Uint8Array([1])))).code).toBe('PATH_SYMLINK');
    expect((await failure(dir.append('link/log.md', 'x'))).code).toBe('PATH_SYMLINK');
    expect((await failure(() => dir.mkdirp('link/deeper/still'))).code).toBe('PATH_SYMLINK');
    expect((await failure(() => dir.list('link'))).code).toBe('PATH_SYMLINK');
    expect((await failure(() => dir.remove('link/secret.txt'))).code).toBe('PATH_SYMLINK');
    expect((await failure(() => dir.rename('d/m/secret.txt', 'link/moved.txt'))).code).toBe('PATH_SYMLINK');
    // stat does not follow it either: it is a link.
    expect(dir.stat('link')?.isSymbolicLink()).toBe(true);
    // Removing the link removes the link, never what it points to.
    dir.remove('link', { recursive: true });
    expect(existsSync(join(ws, 'link'))).toBe(false);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('OUTSIDE SECRET');
  });

  it('a write replaces a link at the name itself (rename), never writes through it', () => {
    const { ws, outside, dir } = setup();
    symlinkSync(join(outside, 'secret.txt'), join(ws, 'notes.md'));
    dir.writeAtomic('notes.md', 'mine');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('OUTSIDE SECRET');
    expect(readFileSync(join(ws, 'notes.md'), 'utf8')).toBe('mine');
    expect(dir.stat('notes.md')?.isFile()).toBe(true);
  });

  it('a folder swapped for a link and back while thousands of calls run: nothing outside is ever read or written', async () => {
    const { ws, outside, dir } = setup();
    // Another process swaps d/m between the real folder and a link out, as fast as it can.
    const swapper = spawn('sh', ['-c', SWAPPER, 'sh', ws, outside], { stdio: 'ignore' });
    const exited = new Promise((resolve) => swapper.once('exit', resolve));
    const counts = { inside: 0, refused: 0, leaked: 0 };
    try {
      // Wait until it has swapped at least once, so the calls overlap the swapping.
      await expect.poll(() => existsSync(join(ws, 'd', 'real')) || dir.stat('d/m')?.isSymbolicLink(), { timeout: 20_000, interval: 1 }).toBe(true);
      for (let i = 0; i < 3000; i++) {
        try {
          const text = i % 3 === 0 ? dir.readTextSync('d/m/secret.txt', 100) : (await dir.readText('d/m/secret.txt', { maxBytes: 100 })).text;
          if (text === 'inside') counts.inside++;
          else counts.leaked++;
        } catch (err) {
          if (!(err instanceof WorkspacePathError)) throw err;
          counts.refused++;
        }
        try {
          dir.writeAtomic(`d/m/w${i % 7}.txt`, 'x');
        } catch (err) {
          if (!(err instanceof WorkspacePathError)) throw err;
        }
      }
    } finally {
      writeFileSync(join(ws, 'stop'), '');
      await exited;
    }
    const swaps = Number(readFileSync(join(ws, 'swaps'), 'utf8'));
    expect(counts.leaked).toBe(0);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    // Not vacuous: the folder really was swapped, some calls found it real, some found the link.
    expect(swaps).toBeGreaterThan(0);
    expect(counts.inside).toBeGreaterThan(0);
    expect(counts.refused).toBeGreaterThan(0);
  }, 120_000);

  it('a folder moved while held: the call acts on the folder that was checked, wherever it now is', () => {
    const { ws, dir } = setup();
    const held = dir.openFolder('d/m');
    try {
      renameSync(join(ws, 'd', 'm'), join(ws, 'moved'));
      symlinkSync('/', join(ws, 'd', 'm'));
      expect(held.names()).toEqual(['secret.txt']);
      expect(readFileSync(held.entry('secret.txt'), 'utf8')).toBe('inside');
    } finally {
      held.close();
    }
    // A new walk sees what is there now: the link, refused.
    expect(() => dir.list('d/m')).toThrow(/symbolic link/);
  });
});

describe('paths stay beneath the root, lexically', () => {
  it('refuses ".." that climbs out and absolute paths outside; takes ".." within and absolute paths inside', async () => {
    const { ws, dir } = setup();
    for (const path of ['..', '../x', 'd/../../x', 'd/m/../../../etc/passwd']) {
      expect((await failure(dir.readText(path, { maxBytes: 10 }))).code).toBe('PATH_OUTSIDE_WORKSPACE');
    }
    for (const path of ['/etc/passwd', `${ws}-other/x`, '/proc/self/environ', `/proc/self/fd/0/x`]) {
      expect((await failure(dir.readText(path, { maxBytes: 10 }))).message).toBe(`${path} is outside the workspace; give a path relative to the workspace`);
    }
    expect((await dir.readText('d/x/../m/./secret.txt', { maxBytes: 10 })).text).toBe('inside');
    expect((await dir.readText(join(ws, 'd/m/secret.txt'), { maxBytes: 10 })).text).toBe('inside');
    expect(dir.locate(`${ws}/d/../d/m`)).toMatchObject({ dirs: ['d'], name: 'm' });
  });

  it('refuses a NUL anywhere, a name over 255 bytes, and a path over 256 folders deep; walks paths longer than PATH_MAX', async () => {
    const { dir } = setup();
    expect((await failure(dir.readText('d/m\0/secret.txt', { maxBytes: 10 }))).code).toBe('PATH_INVALID');
    expect((await failure(() => dir.writeAtomic('a\0b', 'x'))).code).toBe('PATH_INVALID');
    expect((await failure(() => dir.writeAtomic('x'.repeat(256), 'x'))).code).toBe('PATH_INVALID');
    expect((await failure(() => dir.mkdirp(Array(300).fill('a').join('/')))).code).toBe('PATH_INVALID');
    // 150 folders of 40 bytes: 6,000 bytes, past PATH_MAX (4,096), fine one name at a time.
    const deep = Array.from({ length: 150 }, (_, i) => `${String(i).padStart(3, '0')}${'x'.repeat(37)}`).join('/');
    dir.writeAtomic(`${deep}/leaf.txt`, 'deep');
    expect((await dir.readText(`${deep}/leaf.txt`, { maxBytes: 10 })).text).toBe('deep');
    // Removed one folder at a time through descriptors too (rm by path would fail: ENAMETOOLONG).
    dir.remove(deep.split('/')[0]!, { recursive: true });
    expect(dir.list('.').map((e) => e.name)).toEqual(['d']);
  });

  it('says what a path is in the caller’s words, never a /proc or host path', async () => {
    const { ws, dir } = setup();
    const missing = await failure(dir.readText('d/nope.txt', { maxBytes: 10 }));
    expect(missing).toMatchObject({ code: 'PATH_NOT_FOUND', message: 'd/nope.txt does not exist in the workspace', errno: 'ENOENT' });
    expect(isMissing(missing)).toBe(true);
    writeFileSync(join(ws, 'file'), '');
    expect((await failure(dir.readText('file/x', { maxBytes: 10 }))).message).toBe('file is a file, not a folder');
    for (const err of [missing, await failure(dir.readText('file/x', { maxBytes: 10 }))]) {
      expect(err.message).not.toMatch(/\/proc|\/tmp/);
    }
  });
});

describe('only regular files are opened, and never in a way that blocks', () => {
  it('refuses a FIFO for reading and appending, at once, saying what it is', async () => {
    const { ws, dir } = setup();
    execFileSync('mkfifo', [join(ws, 'MEMORY.md')]);
    const err = await failure(dir.readText('MEMORY.md', { maxBytes: 100 }));
    expect(err).toBeInstanceOf(NotRegularFileError);
    expect(err.message).toBe('MEMORY.md is a FIFO (named pipe), not a regular file, so it was left alone');
    expect((await failure(dir.append('MEMORY.md', 'x'))).code).toBe('NOT_REGULAR_FILE');
    expect(() => dir.readTextSync('MEMORY.md', 100)).toThrow(NotRegularFileError);
    // A write replaces the FIFO's name with a file; it never opens the FIFO.
    dir.writeAtomic('MEMORY.md', 'x');
    expect(readFileSync(join(ws, 'MEMORY.md'), 'utf8')).toBe('x');
  });

  it('refuses a socket, a device and a folder at the name', async () => {
    const { ws, dir } = setup();
    const server = createServer().listen(join(ws, 'agent.sock'));
    await new Promise((r) => server.once('listening', r));
    try {
      expect((await failure(dir.readText('agent.sock', { maxBytes: 10 }))).message).toMatch(/is a socket/);
      expect((await failure(dir.append('agent.sock', 'x'))).message).toMatch(/is a socket/);
    } finally {
      server.close();
    }
    expect((await failure(new WorkspaceDir('/dev').readText('zero', { maxBytes: 10 }))).message).toBe(
      'zero is a character device, not a regular file, so it was left alone',
    );
    expect((await failure(dir.readText('d', { maxBytes: 10 }))).message).toMatch(/d is a folder/);
    expect((await failure(() => dir.writeAtomic('d', 'x'))).message).toMatch(/d is a folder/);
  });

  it('a hard link is the file itself: read as any file, but a write replaces the name, so the other name keeps its bytes', async () => {
    // What holds here is the box: inside it an agent's code sees only its workspace, and
    // link(2) across mounts fails (EXDEV), so it cannot make a hard link to a file outside.
    // Workspace push/pull skips files with other links (workspace-reader.ts).
    const { ws, outside, dir } = setup();
    linkSync(join(outside, 'secret.txt'), join(ws, 'hard.txt'));
    expect(dir.stat('hard.txt')?.nlink).toBe(2);
    expect((await dir.readText('hard.txt', { maxBytes: 100 })).text).toBe('OUTSIDE SECRET');
    dir.writeAtomic('hard.txt', 'replaced');
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('OUTSIDE SECRET');
  });
});

describe('the operations', () => {
  it('appends (creating folders), writes atomically, creates new files beside taken names, lists, renames and removes', async () => {
    const { ws, dir } = setup();
    await dir.append('memory/../memory/day.md', 'one\n');
    await dir.append('memory/day.md', 'two\n', { sync: true });
    expect(readFileSync(join(ws, 'memory/day.md'), 'utf8')).toBe('one\ntwo\n');
    dir.writeAtomic('a/b/c.txt', 'x');
    dir.writeAtomic('a/b/c.txt', 'y');
    expect(readFileSync(join(ws, 'a/b/c.txt'), 'utf8')).toBe('y');
    expect(readdirSync(join(ws, 'a/b'))).toEqual(['c.txt']); // no temp file left
    expect(await dir.createNew('inbox/p.jpg', new Uint8Array([1, 2]))).toBe('inbox/p.jpg');
    expect(await dir.createNew('inbox/p.jpg', new Uint8Array([1, 2]))).toBe('inbox/p.jpg'); // the same again: the same file
    expect(await dir.createNew('inbox/p.jpg', new Uint8Array([3]))).toBe('inbox/p-2.jpg');
    symlinkSync('/etc/passwd', join(ws, 'inbox', 'q.jpg'));
    expect(await dir.createNew('inbox/q.jpg', new Uint8Array([3]))).toBe('inbox/q-2.jpg'); // never through the link
    expect(dir.list('inbox')).toEqual([
      { name: 'p-2.jpg', kind: 'file' },
      { name: 'p.jpg', kind: 'file' },
      { name: 'q-2.jpg', kind: 'file' },
      { name: 'q.jpg', kind: 'symlink' },
    ]);
    dir.rename('a/b/c.txt', 'moved/c.txt');
    expect(readFileSync(join(ws, 'moved/c.txt'), 'utf8')).toBe('y');
    dir.remove('a', { recursive: true });
    dir.remove('nothing-here');
    expect(existsSync(join(ws, 'a'))).toBe(false);
    expect((await failure(() => dir.remove('moved'))).errno).toBe('EISDIR');
  });

  it('reads capped: the first maxBytes of a 10 GB file, or the tail in whole lines', async () => {
    const { ws, dir } = setup();
    writeFileSync(join(ws, 'huge.log'), 'first line\n');
    truncateSync(join(ws, 'huge.log'), 10 * 2 ** 30); // sparse: no disk used
    const read = await dir.readText('huge.log', { maxBytes: 1 << 20 });
    expect(read).toMatchObject({ size: 10 * 2 ** 30, truncated: true });
    expect(read.text.startsWith('first line\n')).toBe(true);
    writeFileSync(join(ws, 't.jsonl'), 'aaaa\nbbbb\ncccc\n');
    expect(await dir.readText('t.jsonl', { maxBytes: 7, from: 'end' })).toEqual({ text: 'cccc\n', size: 15, truncated: true });
    expect((await dir.readText('t.jsonl', { maxBytes: 10, from: 'end' })).text).toBe('bbbb\ncccc\n');
    expect(dir.readBytesSync('t.jsonl', 4)).toEqual({ bytes: Buffer.from('aaaa'), size: 15 });
  });

  it('lets the event loop turn between the chunks of a long read', async () => {
    const { ws, dir } = setup();
    writeFileSync(join(ws, 'big.bin'), '');
    truncateSync(join(ws, 'big.bin'), 16 << 20);
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    await dir.readText('big.bin', { maxBytes: 16 << 20 });
    spinning = false;
    expect(turns).toBeGreaterThanOrEqual(8);
  });
});
