// The turn lock and the attempt log: shared turns overlap, a lone turn waits for those
// running and goes before those that ask later, and nothing new is taken while it is due;
// attempts counted per inbound message survive in the workspace, are taken back after a
// drain, and anything planted in their place counts as nothing and is never written through.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { WorkspaceAttemptLog } from '../../runtime-image/src/worker/attempt-log.ts';
import { TurnLock } from '../../runtime-image/src/worker/turn-lock.ts';
import { tempDir } from '../support/temp-dirs.ts';

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('TurnLock', () => {
  it('runs shared turns side by side, and a lone turn only after them and before later ones', async () => {
    const lock = new TurnLock();
    const events: string[] = [];
    const a = gate();
    const b = gate();
    const c = gate();
    const runA = lock.runShared(async () => (events.push('a start'), await a.opened, events.push('a end')));
    const runB = lock.runShared(async () => (events.push('b start'), await b.opened, events.push('b end')));
    const runSolo = lock.runAlone(async () => (events.push('solo start'), await c.opened, events.push('solo end')));
    const runD = lock.runShared(async () => void events.push('d'));
    await tick();
    expect(events).toEqual(['a start', 'b start']);
    a.open();
    await tick();
    expect(events).toEqual(['a start', 'b start', 'a end']);
    b.open();
    await runB;
    await tick();
    expect(events.slice(-1)).toEqual(['solo start']);
    c.open();
    await Promise.all([runA, runSolo, runD]);
    expect(events).toEqual(['a start', 'b start', 'a end', 'b end', 'solo start', 'solo end', 'd']);
  });

  it('is quiet — more work may be taken — only while no lone turn runs or waits', async () => {
    const lock = new TurnLock();
    await lock.whenQuiet();
    const held = gate();
    const shared = lock.runShared(() => held.opened);
    await lock.whenQuiet(); // shared turns do not hold the queue
    const solo = lock.runAlone(async () => {});
    let quiet = false;
    const waited = lock.whenQuiet().then(() => (quiet = true));
    await tick();
    expect(quiet).toBe(false);
    held.open();
    await Promise.all([shared, solo, waited]);
    expect(quiet).toBe(true);
  });

  it('lets the next turn in when one throws', async () => {
    const lock = new TurnLock();
    await expect(lock.runAlone(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.runShared(async () => 'after')).toBe('after');
    await expect(lock.runShared(async () => Promise.reject(new Error('bang')))).rejects.toThrow('bang');
    expect(await lock.runAlone(async () => 'alone after')).toBe('alone after');
  });
});

describe('WorkspaceAttemptLog', () => {
  const workspace = () => tempDir('cf-attempts-');

  it('counts attempts per inbound across instances (a new runtime reads what the dead one wrote), takes one back, and clears', async () => {
    const ws = workspace();
    const first = new WorkspaceAttemptLog(ws);
    expect(await first.start('tg.fran.1')).toBe(1);
    expect(await first.start('tg.fran.1')).toBe(2);
    expect(await first.count('tg.fran.2')).toBe(0);
    const next = new WorkspaceAttemptLog(ws);
    expect(await next.count('tg.fran.1')).toBe(2);
    await next.takeBack('tg.fran.1');
    expect(await next.count('tg.fran.1')).toBe(1);
    await next.clear('tg.fran.1');
    expect(await next.count('tg.fran.1')).toBe(0);
    await next.takeBack('tg.fran.1');
    expect(await next.count('tg.fran.1')).toBe(0);
  });

  it('counts whatever the agent planted in its place as nothing, and never writes through a planted link', async () => {
    const ws = workspace();
    const log = new WorkspaceAttemptLog(ws);
    await log.start('tg.fran.1');
    const dir = join(ws, '.clawfleet', 'attempts');
    const [file] = execFileSync('ls', [dir], { encoding: 'utf8' }).trim().split('\n');
    // A FIFO in place of the record: read without blocking, counted as nothing.
    execFileSync('rm', [join(dir, file!)]);
    execFileSync('mkfifo', [join(dir, file!)]);
    expect(await log.count('tg.fran.1')).toBe(0);
    // The folder replaced by a link out of the workspace: refused, nothing written outside.
    const outside = tempDir('cf-outside-');
    execFileSync('rm', ['-rf', dir]);
    symlinkSync(outside, dir);
    await expect(log.start('tg.fran.1')).rejects.toThrow(/is a symbolic link, which file tools do not follow/);
    expect(execFileSync('ls', [outside], { encoding: 'utf8' })).toBe('');
    // A link at the temp name the writer uses: replaced, never written through.
    execFileSync('rm', [dir]);
    mkdirSync(dir);
    const target = join(outside, 'victim');
    writeFileSync(target, 'untouched');
    const name = execFileSync('sh', ['-c', `printf %s tg.fran.9 | sha256sum | cut -c1-40`], { encoding: 'utf8' }).trim();
    symlinkSync(target, join(dir, `${name}.${process.pid}.tmp`));
    expect(await log.start('tg.fran.9')).toBe(1);
    expect(readFileSync(target, 'utf8')).toBe('untouched');
  });
});
