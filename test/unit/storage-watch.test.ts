// How a full disk is recognised (shared/storage-full.ts) and reported in local mode
// (local/storage-watch.ts): one warning however many writes fail, one all-clear after.
import { describe, expect, it } from 'vitest';
import { isStorageFull } from '../../shared/storage-full.ts';
import { StorageWatch, STORAGE_QUIET_MS } from '../../local/storage-watch.ts';
import { memoryLogger } from '../../shared/log.ts';

describe('a full disk', () => {
  it('is SQLite’s SQLITE_FULL or the file system’s ENOSPC or EDQUOT, also as the cause of another error', () => {
    const sqlite = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(isStorageFull(sqlite)).toBe(true);
    expect(isStorageFull(Object.assign(new Error('no space left on device'), { code: 'ENOSPC' }))).toBe(true);
    expect(isStorageFull(Object.assign(new Error('quota'), { code: 'EDQUOT' }))).toBe(true);
    expect(isStorageFull(new Error('wrapped', { cause: sqlite }))).toBe(true);
    for (const other of [
      new Error('x'),
      Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' }),
      Object.assign(new Error('io'), { code: 'EIO' }),
      'SQLITE_FULL',
      undefined,
      null,
    ]) {
      expect(isStorageFull(other)).toBe(false);
    }
  });

  it('is logged once however many writes fail, and its end once, after a quiet spell with a write that works', () => {
    const log = memoryLogger();
    let now = 1_000_000;
    const watch = new StorageWatch(log, { now: () => now });
    const full = Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
    expect(watch.failed(new Error('something else'), 'x')).toBe(false);
    for (let i = 0; i < 50; i++) {
      expect(watch.failed(full, `write ${i}`)).toBe(true);
      now += 100;
    }
    expect(watch.full).toBe(true);
    // A write that fits in space a file already had proves nothing right after a failure.
    watch.wrote();
    expect(watch.full).toBe(true);
    now += STORAGE_QUIET_MS;
    watch.wrote();
    watch.wrote();
    expect(watch.full).toBe(false);
    expect(log.lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', expect.stringMatching(/^the state directory is full/)],
      ['info', 'the state directory is writable again'],
    ]);
    expect(log.lines[0]).toMatchObject({ where: 'write 0', errorCode: 'SQLITE_FULL' });
    expect(log.lines[1]).toMatchObject({ failedWrites: 50 });
  });
});
