// `clawfleet workspace push|pull` on this machine with no fleet running: between a folder
// and <state>/workspaces/<id>, under the state directory's lock, with private modes, links
// left behind, nothing overwritten without --force, and the last transfer recorded for the
// dashboard. (With a fleet running: test/integration/workspace-local-fleet.test.ts.)
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { FileWorkspaceSyncLog } from '../../shared/adapters/local/file-workspace-sync-log.ts';
import { lockStateDir } from '../../local/state-lock.ts';
import { captureIO } from './cli-io.ts';
import { tempDir } from '../support/temp-dirs.ts';

function setup() {
  const cwd = tempDir('cf-wslocal-');
  writeFileSync(join(cwd, 'clawfleet.json'), readFileSync('clawfleet.json'));
  const mine = join(cwd, 'mine');
  mkdirSync(join(mine, 'memory'), { recursive: true });
  writeFileSync(join(mine, 'SOUL.md'), 'I am Fran.\n');
  writeFileSync(join(mine, 'memory', '2026-11-30.md'), 'notes\n');
  return { cwd, mine, workspace: join(cwd, '.clawfleet', 'workspaces', 'fran') };
}

async function cli(cwd: string, ...argv: string[]) {
  const io = captureIO({ cwd });
  const code = await runCli(['workspace', ...argv], io);
  return { code, out: io.outText(), err: io.errText() };
}

describe('clawfleet workspace (local, no fleet running)', () => {
  it('pushes a folder into the agent’s workspace and pulls it back out, privately, recording each', async () => {
    const s = setup();
    const push = await cli(s.cwd, 'push', '--agent', 'fran', 'mine');
    expect(push.code, push.err).toBe(0);
    expect(push.out).toBe("pushed mine to fran's workspace: 2 files — 2 new, 0 replaced, 0 unchanged");
    expect(readFileSync(join(s.workspace, 'memory', '2026-11-30.md'), 'utf8')).toBe('notes\n');
    expect(statSync(join(s.workspace, 'SOUL.md')).mode & 0o777).toBe(0o600);
    expect(await new FileWorkspaceSyncLog(join(s.cwd, '.clawfleet')).last('fran')).toMatchObject({
      direction: 'push',
      files: 2,
      workspaceFiles: 2,
      where: s.mine,
    });

    const pull = await cli(s.cwd, 'pull', '--agent', 'fran', 'backup');
    expect(pull.code, pull.err).toBe(0);
    expect(readFileSync(join(s.cwd, 'backup', 'SOUL.md'), 'utf8')).toBe('I am Fran.\n');
    expect(statSync(join(s.cwd, 'backup')).mode & 0o777).toBe(0o700);
    expect(await new FileWorkspaceSyncLog(join(s.cwd, '.clawfleet')).last('fran')).toMatchObject({ direction: 'pull' });
  });

  it('counts every file it scanned and wrote, not the first one', async () => {
    const s = setup();
    onTestFinished(() => rmSync(s.cwd, { recursive: true, force: true }));
    for (let i = 1; i <= 5; i++) writeFileSync(join(s.mine, `note-${i}.md`), `note ${i}\n`);
    const push = await cli(s.cwd, 'push', '--agent', 'fran', 'mine');
    expect(push.code, push.err).toBe(0);
    expect(push.err).toBe('  scanned: 7 files (52 B)\n  writing: 7/7 new or changed files, 52 B of 52 B');
    writeFileSync(join(s.mine, 'note-6.md'), 'note 6\n');
    const again = await cli(s.cwd, 'push', '--agent', 'fran', 'mine');
    expect(again.err).toBe('  scanned: 8 files (59 B)\n  writing: 1/1 new or changed file, 7 B of 7 B');
    expect(again.out).toBe("pushed mine to fran's workspace: 8 files — 1 new, 0 replaced, 7 unchanged");
  });

  it('refuses to overwrite what differs without --force, and leaves a link out of the folder behind', async () => {
    const s = setup();
    await cli(s.cwd, 'push', '--agent', 'fran', 'mine');
    writeFileSync(join(s.mine, 'SOUL.md'), 'I am a new Fran.\n');
    symlinkSync('/etc/passwd', join(s.mine, 'passwd'));
    const refused = await cli(s.cwd, 'push', '--agent', 'fran', 'mine');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/SOUL\.md: exists with other content \(--force replaces it\)[\s\S]*\(WORKSPACE_CONFLICT\)/);
    const forced = await cli(s.cwd, 'push', '--agent', 'fran', 'mine', '--force');
    expect(forced.code, forced.err).toBe(0);
    expect(forced.err).toMatch(/skipped passwd: a symbolic link \(not followed\)/);
    expect(readFileSync(join(s.workspace, 'SOUL.md'), 'utf8')).toBe('I am a new Fran.\n');
    expect(existsSync(join(s.workspace, 'passwd'))).toBe(false);
  });

  it('waits for no fleet: one starting meanwhile is kept out by the lock, and a transfer finds the lock taken', async () => {
    const s = setup();
    mkdirSync(join(s.cwd, '.clawfleet'), { recursive: true });
    const held = await lockStateDir(join(s.cwd, '.clawfleet'), { pid: process.pid, startedAt: Date.now() });
    try {
      const r = await cli(s.cwd, 'push', '--agent', 'fran', 'mine');
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/in use by clawfleet pid[\s\S]*Nothing was transferred/);
      expect(existsSync(s.workspace)).toBe(false);
    } finally {
      held.release();
    }
  });

  it('says what is wrong with the command line', async () => {
    const s = setup();
    expect((await cli(s.cwd, 'push', 'mine')).err).toMatch(/--agent <id> is required/);
    expect((await cli(s.cwd, 'push', '--agent', 'nobody', 'mine')).err).toMatch(/no agent "nobody"/);
    expect((await cli(s.cwd, 'sync', '--agent', 'fran', 'mine')).code).toBe(2);
    expect((await cli(s.cwd, 'pull', '--agent', 'fran', 'out')).err).toMatch(/fran has no workspace in .* yet/);
    expect((await cli(s.cwd, 'push', '--agent', 'fran', 'missing')).err).toMatch(/missing is not a folder/);
  });
});
