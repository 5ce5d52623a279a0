// The cache installs take turns (local/install-lock.ts): real processes racing for one
// directory, as vitest's parallel test files did when each asked for OpenClaw at once.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { withInstallLock } from '../../local/install-lock.ts';
import { tempDir } from '../support/temp-dirs.ts';

const entry = fileURLToPath(new URL('../../local/install-lock.ts', import.meta.url));
const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A child that takes the lock, writes "start", holds it `holdMs` (busy, as npm install would), writes "end". */
function installer(dir: string, name: string, holdMs: number): ChildProcess {
  const script = `
    import { appendFileSync } from 'node:fs';
    const { withInstallLock } = await import(${JSON.stringify(entry)});
    const log = (line) => appendFileSync(${JSON.stringify(join(dir, 'log'))}, line + '\\n');
    log('asked ${name}');
    withInstallLock(${JSON.stringify(dir)}, () => {
      log('start ${name}');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs});
      log('end ${name}');
    });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.push(child);
  return child;
}

const exit = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('close', resolve));
const lines = (dir: string) => readFileSync(join(dir, 'log'), 'utf8').trim().split('\n');

describe('withInstallLock', () => {
  it('lets racing processes install one after another, never two at once', async () => {
    const dir = tempDir('cf-install-lock-');
    dirs.push(dir);
    const racers = ['a', 'b', 'c'].map((n) => installer(dir, n, 300));
    expect(await Promise.all(racers.map(exit))).toEqual([0, 0, 0]);
    const turns = lines(dir).filter((l) => !l.startsWith('asked'));
    expect(turns).toHaveLength(6);
    // Each start is followed by its own end before any other start.
    for (let i = 0; i < turns.length; i += 2) expect(turns[i + 1]).toBe(turns[i]?.replace('start', 'end'));
  });

  it('is free again at once when its holder is SIGKILLed mid-install (no stale lock)', async () => {
    const dir = tempDir('cf-install-lock-');
    dirs.push(dir);
    const holder = installer(dir, 'killed', 60_000);
    while (!lines0(dir).includes('start killed')) await new Promise((r) => setTimeout(r, 20));
    holder.kill('SIGKILL');
    await exit(holder);
    expect(withInstallLock(dir, () => 'mine', 2_000)).toBe('mine');
  });

  it('says which lock it waited for, and how long, when the holder never lets go', async () => {
    const dir = tempDir('cf-install-lock-');
    dirs.push(dir);
    installer(dir, 'stuck', 60_000);
    while (!lines0(dir).includes('start stuck')) await new Promise((r) => setTimeout(r, 20));
    expect(() => withInstallLock(dir, () => 'never', 300)).toThrow(/another install into .* held .*install\.lock for over 0 s/);
  });
});

function lines0(dir: string): string[] {
  try {
    return lines(dir);
  } catch {
    return [];
  }
}
