// One fleet per state directory. Two fleets on one directory would run two runtimes per
// agent on one workspace and hand each message to both. The lock is the kernel's: an open
// exclusive SQLite transaction on <state>/fleet.lock (an fcntl lock), so it is atomic
// between racing starts, and it goes with its process however that ends (even SIGKILL):
// a stale lock cannot exist, and nothing is taken over by guessing from a PID.
// <state>/fleet.pid names the holder for the message a second start prints.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { ClawfleetError } from '../shared/errors.ts';

/** The lock itself; never read or written by anything but SQLite (closing any other descriptor of it would drop the lock). */
export const STATE_LOCK_FILE = 'fleet.lock';
/** Who holds it: written by the holder once it has the lock. */
const STATE_PID_FILE = 'fleet.pid';
/** Racing starts: the loser waits this long for the winner to settle before it reports the directory in use. */
const LOCK_WAIT_MS = 1_000;

/**
 * Every lock this process holds, until it is released. A better-sqlite3 handle closes
 * itself when garbage-collected, and closing drops the kernel lock: a caller that kept
 * no reference to its StateLock (a script that only wants to hold the directory until it
 * exits) would lose it at the next GC, and a second start would take the directory too.
 */
const heldLocks = new Set<Database.Database>();

const HolderSchema = z.object({ pid: z.number().int().positive(), startedAt: z.number() });
export type LockHolder = z.infer<typeof HolderSchema>;

export interface StateLock {
  release(): void;
}

/** Takes the state directory for this process, or throws STATE_DIR_IN_USE naming the process that has it. */
export async function lockStateDir(stateDir: string, holder: LockHolder): Promise<StateLock> {
  const db = new Database(join(stateDir, STATE_LOCK_FILE), { timeout: LOCK_WAIT_MS });
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    if ((err as { code?: unknown }).code !== 'SQLITE_BUSY') throw err;
    throw new ClawfleetError('STATE_DIR_IN_USE', inUseMessage(stateDir, await liveHolder(stateDir)));
  }
  const pidFile = join(stateDir, STATE_PID_FILE);
  const tmp = `${pidFile}.${holder.pid}.tmp`;
  try {
    rmSync(tmp, { force: true });
    writeFileSync(tmp, `${JSON.stringify(holder)}\n`, { mode: 0o600, flag: 'wx' });
    renameSync(tmp, pidFile);
  } catch (err) {
    rmSync(tmp, { force: true });
    db.close();
    throw err;
  }
  heldLocks.add(db);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      if (readHolder(stateDir)?.pid === holder.pid) rmSync(pidFile, { force: true });
      heldLocks.delete(db);
      db.close();
    },
  };
}

/** The process that holds the state directory, as it recorded itself. */
export function readHolder(stateDir: string): LockHolder | undefined {
  try {
    const parsed = HolderSchema.safeParse(JSON.parse(readFileSync(join(stateDir, STATE_PID_FILE), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The holder as it recorded itself, once it has: a start that loses a race may be told so
 * before the winner has written its pid (SQLite gives up at once where waiting could
 * deadlock), and a pid file left by a crashed run names a process that is gone.
 */
async function liveHolder(stateDir: string): Promise<LockHolder | undefined> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    const recorded = readHolder(stateDir);
    if (recorded && alive(recorded.pid)) return recorded;
    if (Date.now() > deadline) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function inUseMessage(stateDir: string, holder: LockHolder | undefined): string {
  const who = holder
    ? `clawfleet pid ${holder.pid} (running since ${new Date(holder.startedAt).toISOString()})`
    : 'another clawfleet process (it has not written its pid yet)';
  return `the state directory ${stateDir} is in use by ${who}. Stop that fleet first (Ctrl-C where it runs${holder ? `, or kill ${holder.pid}` : ''}), or give this one another --state`;
}
