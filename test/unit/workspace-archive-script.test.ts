// The script the workspace archive task runs, run here as the task runs it (`node -e`) on
// directories standing in for its two mounts: everything is copied to a dated directory,
// links as links, the workspace emptied but kept; a FIFO is left out and named; a copy that
// cannot be made removes nothing.
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARCHIVE_SCRIPT } from '../../infra/workspace-archive-script.ts';
import { tempDir } from '../support/temp-dirs.ts';

function runArchive(source: string, root: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', ARCHIVE_SCRIPT], { env: { ARCHIVE_SOURCE: source, ARCHIVE_ROOT: root } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

function mounts() {
  const dir = tempDir('cf-archive-');
  const workspace = join(dir, 'workspace');
  const archive = join(dir, 'archive');
  mkdirSync(workspace);
  mkdirSync(archive);
  return { dir, workspace, archive };
}

describe('the workspace archive script', () => {
  it('copies everything to a dated directory, links as links, and leaves the workspace empty', async () => {
    const { workspace, archive } = mounts();
    mkdirSync(join(workspace, 'sessions', 'agent:fran:main'), { recursive: true });
    writeFileSync(join(workspace, 'MEMORY.md'), 'remember the milk\n');
    writeFileSync(join(workspace, 'sessions', 'agent:fran:main', 'transcript.jsonl'), '{"role":"user"}\n'.repeat(100));
    writeFileSync(join(workspace, '.hidden'), 'dot files too');
    // An agent's link out of its workspace: kept as a link, its target neither read nor copied.
    symlinkSync('/etc/passwd', join(workspace, 'passwd-link'));
    symlinkSync('sessions', join(workspace, 'sessions-link'));

    const run = await runArchive(workspace, archive);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const said = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    const [stamp] = readdirSync(archive);
    expect(stamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z$/);
    const to = join(archive, stamp!);
    expect(said).toEqual({ level: 'info', msg: 'workspace archived', to, entries: 5, files: 3, bytes: 18 + 1600 + 13, skipped: [] });
    expect(readFileSync(join(to, 'MEMORY.md'), 'utf8')).toBe('remember the milk\n');
    expect(readFileSync(join(to, 'sessions', 'agent:fran:main', 'transcript.jsonl'), 'utf8')).toHaveLength(1600);
    expect(readFileSync(join(to, '.hidden'), 'utf8')).toBe('dot files too');
    expect(lstatSync(join(to, 'passwd-link')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(to, 'passwd-link'))).toBe('/etc/passwd');
    expect(readlinkSync(join(to, 'sessions-link'))).toBe('sessions');
    // Emptied, but there: the access point's root stays for whatever is archived next.
    expect(existsSync(workspace)).toBe(true);
    expect(readdirSync(workspace)).toEqual([]);
    expect(existsSync('/etc/passwd')).toBe(true);
  });

  it('leaves out a FIFO an agent made, naming it, instead of hanging on it', async () => {
    const { workspace, archive } = mounts();
    writeFileSync(join(workspace, 'notes.txt'), 'keep me');
    await new Promise<void>((resolve, reject) => execFile('mkfifo', [join(workspace, 'trap')], (err) => (err ? reject(err) : resolve())));
    const run = await runArchive(workspace, archive);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trim())).toMatchObject({ files: 1, skipped: ['trap'] });
    expect(readdirSync(workspace)).toEqual([]);
  });

  it('removes nothing when the copy cannot be made', async () => {
    const { dir, workspace } = mounts();
    writeFileSync(join(workspace, 'MEMORY.md'), 'still here');
    writeFileSync(join(dir, 'not-a-directory'), '');
    const run = await runArchive(workspace, join(dir, 'not-a-directory'));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/ENOTDIR/);
    expect(readFileSync(join(workspace, 'MEMORY.md'), 'utf8')).toBe('still here');
  });

  it('archives an empty workspace as an empty directory, so running it again is harmless', async () => {
    const { workspace, archive } = mounts();
    expect((await runArchive(workspace, archive)).code).toBe(0);
    expect((await runArchive(workspace, archive)).code).toBe(0);
    const runs = readdirSync(archive);
    expect(runs).toHaveLength(2);
    for (const r of runs) expect(readdirSync(join(archive, r))).toEqual([]);
  });
});
