// The parts of a local runtime's box (issue #27) that need no runtime: the lifeline a boxed
// runtime hears its fleet on, what the box shows read-only and what it refuses to show, the
// arguments that build it for a normal user and for root, and handing a workspace to the
// box's user without following what an agent left in it.
import { chmodSync, linkSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boxingHere } from '../../local/box-check.ts';
import { giveToBox } from '../../local/box-owner.ts';
import { BOX_GID, BOX_UID, boxCommand, boxReadOnly, exitThroughBox } from '../../local/runtime-box.ts';
import { watchLifeline, type LifelineSignal } from '../../runtime-image/src/connection/lifeline.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ROOT = process.getuid?.() === 0;
const boxDir = () => tempDir('cf-box-unit-');

describe('the lifeline', () => {
  it('stops on a signal’s name, ignores anything else, and says once that the fleet is gone when the pipe ends', () => {
    const input = new PassThrough();
    const stops: LifelineSignal[] = [];
    let gone = 0;
    watchLifeline(input, { stop: (s) => stops.push(s), gone: () => gone++ });
    input.write('SIGTE');
    input.write('RM\nSIGKILL\nrm -rf /\n');
    input.write(`${'x'.repeat(10_000)}\nSIGINT\n`);
    input.end();
    input.destroy();
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(stops).toEqual(['SIGTERM', 'SIGINT']);
        expect(gone).toBe(1);
        resolve();
      }),
    );
  });
});

describe('what a box shows read-only', () => {
  it('takes what the runtime runs from, bubblewrap, the fleet’s skills, Chromium’s folder and an MCP server’s node_modules, at the paths given', () => {
    const d = boxDir();
    for (const p of ['dist', 'skills', 'chrome', 'mods/node_modules/srv/dist']) mkdirSync(join(d, p), { recursive: true });
    writeFileSync(join(d, 'bwrap'), '');
    writeFileSync(join(d, 'chrome', 'chromium'), '');
    writeFileSync(join(d, 'mods/node_modules/srv/dist/index.js'), '');
    const shown = boxReadOnly(
      {
        runsFrom: [join(d, 'dist'), join(d, 'not-there')],
        bwrap: join(d, 'bwrap'),
        fleetSkills: join(d, 'skills'),
        chromium: join(d, 'chrome', 'chromium'),
        mcpServers: { srv: { command: 'node', args: [join(d, 'mods/node_modules/srv/dist/index.js'), '--verbose'] }, web: { url: 'https://example.com/mcp' } },
      },
      [join(d, 'state'), join(d, 'secrets.json')],
    );
    expect(shown.sort()).toEqual([join(d, 'bwrap'), join(d, 'chrome'), join(d, 'dist'), join(d, 'mods/node_modules'), join(d, 'skills')].sort());
  });

  it('refuses a folder that holds what the box hides, naming it', () => {
    const d = boxDir();
    writeFileSync(join(d, 'secrets.json'), '{}');
    writeFileSync(join(d, 'chromium'), '');
    expect(() => boxReadOnly({ runsFrom: [], bwrap: '/usr/bin/bwrap', chromium: join(d, 'chromium') }, [join(d, 'secrets.json')])).toThrow(
      expect.objectContaining({
        code: 'RUNTIME_BOX_PATH_HIDDEN',
        message: expect.stringContaining(`tools.browser.executablePath is in ${d}, which holds ${join(d, 'secrets.json')}`),
      }),
    );
  });
});

describe('the box’s arguments', () => {
  const contents = {
    workspace: '/srv/state/workspaces/fran',
    runtimeState: '/srv/state/runtime/fran',
    readOnly: ['/srv/app/dist', '/srv/app/dist/chunks', '/srv/app/bwrap'],
  };
  const setup = { bwrap: '/srv/app/bwrap', hide: ['/srv/state'], systemDirs: ['/usr', '/bin'] };

  it('for a normal user: one bwrap with namespaces of its own, each folder on the way made 0755, parents before children, the workspace its working directory', () => {
    const [file, ...args] = boxCommand(setup, contents, ['node', 'main.mjs']);
    expect(file).toBe('/srv/app/bwrap');
    expect(args.slice(0, 7)).toEqual(['--unshare-all', '--unshare-user', '--share-net', '--die-with-parent', '--new-session', '--cap-drop', 'ALL']);
    const line = args.join(' ');
    expect(line).toContain('--proc /proc --dev /dev --tmpfs /tmp');
    expect(line).toContain('--perms 0755 --dir /srv --perms 0755 --dir /srv/app --ro-bind /srv/app/bwrap /srv/app/bwrap --ro-bind /srv/app/dist /srv/app/dist');
    expect(line).not.toContain('/srv/app/dist/chunks'); // shown by its parent
    expect(line).toContain(
      '--perms 0755 --dir /srv/state --perms 0755 --dir /srv/state/workspaces --bind /srv/state/workspaces/fran /srv/state/workspaces/fran',
    );
    expect(line).toMatch(
      /--bind \/srv\/state\/runtime\/fran \/srv\/state\/runtime\/fran --chdir \/srv\/state\/workspaces\/fran --remount-ro \/ -- node main\.mjs$/,
    );
    expect(args.filter((a) => a === 'bwrap' || a.endsWith('/setpriv'))).toEqual([]);
  });

  it('for root: a first stage that builds the view as root, then setpriv to the box’s user and an unprivileged bwrap over it', () => {
    const [file, ...args] = boxCommand({ ...setup, dropTo: { uid: BOX_UID, gid: BOX_GID, setpriv: '/usr/bin/setpriv' } }, contents, ['node', 'main.mjs']);
    expect(file).toBe('/srv/app/bwrap');
    const line = args.join(' ');
    expect(line.startsWith('--unshare-pid --die-with-parent --bind /proc /proc --dev /dev --perms 01777 --tmpfs /tmp')).toBe(true);
    expect(line).toContain(
      `--remount-ro / -- /usr/bin/setpriv --reuid ${BOX_UID} --regid ${BOX_GID} --clear-groups -- /srv/app/bwrap --unshare-all --unshare-user --share-net --die-with-parent --new-session --cap-drop ALL --bind / / --proc /proc --dev /dev --chdir /srv/state/workspaces/fran -- node main.mjs`,
    );
    // The binds are the first stage's: the second sees them through its --bind / /.
    expect(line.indexOf('--bind /srv/state/workspaces/fran')).toBeLessThan(line.indexOf('setpriv'));
  });
});

describe('a boxed runtime’s exit', () => {
  it('is the signal that killed the runtime where bwrap says 128 + its number, and otherwise as bwrap ended', () => {
    expect(exitThroughBox(137, null)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(exitThroughBox(143, null)).toEqual({ code: null, signal: 'SIGTERM' });
    // The runtime's own exits, bwrap's own failure, and bwrap itself killed (after the grace) stay as they are.
    for (const [code, signal] of [
      [0, null],
      [1, null],
      [128, null],
      [null, 'SIGKILL'],
      [250, null],
    ] as const)
      expect(exitThroughBox(code, signal)).toEqual({ code, signal });
  });
});

describe.skipIf(!ROOT)('a workspace given to the box’s user', () => {
  it('changes the owner of what is in it, a link itself rather than what it points to, and leaves hard-linked files and what lies outside alone', () => {
    const d = boxDir();
    const workspace = join(d, 'ws');
    mkdirSync(join(workspace, 'notes'), { recursive: true });
    writeFileSync(join(workspace, 'notes', 'a.md'), 'a');
    const outside = join(d, 'outside.txt');
    writeFileSync(outside, 'not the box’s');
    const outsideDir = join(d, 'outside-dir');
    mkdirSync(outsideDir);
    writeFileSync(join(outsideDir, 'x'), 'x');
    symlinkSync(outside, join(workspace, 'link-to-file'));
    symlinkSync(outsideDir, join(workspace, 'notes', 'link-to-dir'));
    linkSync(outside, join(workspace, 'hard-link'));
    chmodSync(workspace, 0o700);
    expect(giveToBox(workspace, BOX_UID, BOX_GID)).toBe(5); // ws, notes, a.md and the two links
    for (const p of ['', 'notes', 'notes/a.md']) expect(statSync(join(workspace, p)).uid, p).toBe(BOX_UID);
    expect(lstatSync(join(workspace, 'link-to-file')).uid).toBe(BOX_UID);
    expect(lstatSync(join(workspace, 'notes', 'link-to-dir')).uid).toBe(BOX_UID);
    for (const p of [outside, outsideDir, join(outsideDir, 'x')]) expect(statSync(p).uid, p).toBe(0);
    // Done once: a second start changes nothing.
    expect(giveToBox(workspace, BOX_UID, BOX_GID)).toBe(0);
  });

  it('names setpriv as missing when the fleet is root and none is on PATH', async () => {
    await expect(boxingHere(async () => '/usr/bin/bwrap', '/nowhere')).rejects.toMatchObject({
      code: 'RUNTIME_BOX_UNAVAILABLE',
      message: expect.stringContaining(`runs as user ${BOX_UID} instead, which takes setpriv (util-linux), and there is none on PATH`),
    });
    expect(await boxingHere(async () => '/usr/bin/bwrap', '/usr/bin:/bin')).toMatchObject({ bwrap: '/usr/bin/bwrap', dropTo: { uid: BOX_UID, gid: BOX_GID } });
  });
});
