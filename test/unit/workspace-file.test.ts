// The one way the runtime opens workspace files: a FIFO, socket, device, folder or symlink
// is refused without being opened blocking, reads are capped and asynchronous (the event
// loop turns during a long read), and the tail of a log is read whole lines only.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendWorkspaceFile,
  NotRegularFileError,
  openRegular,
  readRegularFile,
  readSmallRegularFileSync,
  readWorkspaceFile,
  writeSmallFileSync,
} from '../../runtime-image/src/workspace-file.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ws = () => tempDir('cf-wsfile-');
const mkfifo = (path: string) => execFileSync('mkfifo', [path]);

async function refusal(p: Promise<unknown>): Promise<NotRegularFileError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NotRegularFileError);
  return err as NotRegularFileError;
}

describe('opening workspace files', () => {
  it('refuses a FIFO for reading and for appending, at once, saying what it is', async () => {
    const dir = ws();
    mkfifo(join(dir, 'MEMORY.md'));
    expect((await refusal(readWorkspaceFile(dir, 'MEMORY.md', { maxBytes: 100 }))).message).toBe(
      'MEMORY.md is a FIFO (named pipe), not a regular file, so it was left alone',
    );
    expect((await refusal(appendWorkspaceFile(dir, 'MEMORY.md', 'x'))).code).toBe('NOT_REGULAR_FILE');
    expect(() => readSmallRegularFileSync(join(dir, 'MEMORY.md'), 100)).toThrow(NotRegularFileError);
    expect(() => writeSmallFileSync(join(dir, 'MEMORY.md'), 'x')).toThrow(/ENXIO|not a regular file/);
  });

  it('refuses a socket, a device, a folder and a symlink in the last component', async () => {
    const dir = ws();
    const server = createServer().listen(join(dir, 'agent.sock'));
    await new Promise((r) => server.once('listening', r));
    try {
      expect((await refusal(readWorkspaceFile(dir, 'agent.sock', { maxBytes: 10 }))).message).toMatch(/is a socket/);
    } finally {
      server.close();
    }
    expect((await refusal(readRegularFile('/dev/zero', { maxBytes: 10 }))).message).toMatch(/is a character device/);
    mkdirSync(join(dir, 'notes'));
    expect((await refusal(readWorkspaceFile(dir, 'notes', { maxBytes: 10 }))).message).toMatch(/is a folder/);
    writeFileSync(join(dir, 'real.md'), 'hi');
    symlinkSync(join(dir, 'real.md'), join(dir, 'link.md'));
    expect((await refusal(openRegular(join(dir, 'link.md'), 'read'))).message).toMatch(/is a symbolic link/);
  });

  it('follows a symlink only to a regular file inside the workspace', async () => {
    const dir = ws();
    writeFileSync(join(dir, 'real.md'), 'inside');
    symlinkSync('real.md', join(dir, 'AGENTS.md'));
    symlinkSync('/proc/self/environ', join(dir, 'MEMORY.md'));
    mkfifo(join(dir, 'pipe'));
    symlinkSync('pipe', join(dir, 'USER.md'));
    expect((await readWorkspaceFile(dir, 'AGENTS.md', { maxBytes: 100 })).text).toBe('inside');
    await expect(readWorkspaceFile(dir, 'MEMORY.md', { maxBytes: 100 })).rejects.toThrow(/outside the workspace/);
    await refusal(readWorkspaceFile(dir, 'USER.md', { maxBytes: 100 }));
  });

  it('passes ENOENT through for reads, and creates a missing file for appends', async () => {
    const dir = ws();
    await expect(readWorkspaceFile(dir, 'nope.md', { maxBytes: 10 })).rejects.toMatchObject({ code: 'ENOENT' });
    await appendWorkspaceFile(dir, 'memory/../note.md', 'one\n');
    await appendWorkspaceFile(dir, 'note.md', 'two\n', { sync: true });
    expect(readFileSync(join(dir, 'note.md'), 'utf8')).toBe('one\ntwo\n');
  });
});

describe('capped reads', () => {
  it('reads the first maxBytes of a 10 GB file and says it stopped', async () => {
    const dir = ws();
    const big = join(dir, 'huge.log');
    writeFileSync(big, 'first line\n');
    truncateSync(big, 10 * 2 ** 30); // sparse: no disk used
    const read = await readRegularFile(big, { maxBytes: 1 << 20 });
    expect(read).toMatchObject({ size: 10 * 2 ** 30, truncated: true });
    expect(read.text.length).toBe(1 << 20);
    expect(read.text.startsWith('first line\n')).toBe(true);
  });

  it('lets the event loop turn between the chunks of a long read', async () => {
    const dir = ws();
    const big = join(dir, 'big.bin');
    writeFileSync(big, '');
    truncateSync(big, 16 << 20);
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns++;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    await readRegularFile(big, { maxBytes: 16 << 20 });
    spinning = false;
    // One chunk is 1 MB: sixteen reads, each a trip through the event loop.
    expect(turns).toBeGreaterThanOrEqual(8);
  });

  it('reads the tail in whole lines', async () => {
    const dir = ws();
    const log = join(dir, 't.jsonl');
    writeFileSync(log, 'aaaa\nbbbb\ncccc\n');
    expect(await readRegularFile(log, { maxBytes: 7, from: 'end' })).toEqual({ text: 'cccc\n', size: 15, truncated: true });
    // A window that starts exactly on a line keeps that line.
    expect((await readRegularFile(log, { maxBytes: 10, from: 'end' })).text).toBe('bbbb\ncccc\n');
    expect(await readRegularFile(log, { maxBytes: 100, from: 'end' })).toEqual({ text: 'aaaa\nbbbb\ncccc\n', size: 15, truncated: false });
  });
});
