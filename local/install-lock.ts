// One installer at a time per cache directory. Two processes that install into one directory
// at once (vitest starts its test files in parallel, each asking for the same OpenClaw) run
// two `npm install`s over one node_modules, and each removes what the other is writing
// (ENOTEMPTY, a postinstall script missing halfway). The lock is the kernel's, taken through
// SQLite as local/state-lock.ts takes the fleet's: an exclusive transaction on
// <dir>/install.lock, atomic between racing processes and released however its holder ends
// (even SIGKILL), so no stale lock is ever left to guess about. A second installer waits for
// the first, then finds the install done and does nothing.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const INSTALL_LOCK_FILE = 'install.lock';
/** A first install downloads ≈ 800 MB; a waiter gives up only after this long. */
export const INSTALL_LOCK_WAIT_MS = 30 * 60_000;

/** Runs `install` while holding `dir`'s install lock, waiting (blocking) for another holder to finish. */
export function withInstallLock<T>(dir: string, install: () => T, waitMs: number = INSTALL_LOCK_WAIT_MS): T {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, INSTALL_LOCK_FILE);
  const db = new Database(file, { timeout: waitMs });
  try {
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err;
      throw new Error(`another install into ${dir} held ${file} for over ${Math.round(waitMs / 1000)} s; is one stuck?`);
    }
    return install();
  } finally {
    db.close();
  }
}
