// The container's sandbox (the tool uid pool) holds what docs/security.md claims: a call
// runs as a uid of its own with no groups, no capabilities and no_new_privs; it cannot
// read a root process's environment (where the task role's credentials URI lives) or
// memory; it gets a private TMPDIR; everything its uid runs is killed when it ends —
// `setsid` included — while a concurrent call under another uid runs on; the workspace
// stays writable for every uid of the pool. The pool needs root (the image runs the
// runtime as root only to drop privileges for tools): these tests run as root here and in
// CI; elsewhere they are skipped, saying so in their name.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import { McpHost } from '../../runtime-image/src/mcp/mcp-host.ts';
import { baseSandboxEnv } from '../../shared/adapters/sandbox/sandbox-port.ts';
import { processesOf, probeUidPool, TOOL_OOM_SCORE_ADJ, TOOL_PROCESS_LIMIT, UidPoolSandbox } from '../../shared/adapters/sandbox/uid-pool-sandbox.ts';
import { runSandboxed } from '../../runtime-image/src/tools/exec-tool.ts';
import { livingWith, uniqueSleep } from '../support/processes.ts';
import { tempDir } from '../support/temp-dirs.ts';

const ROOT = process.getuid?.() === 0;
/** This file's own uids, apart from every other test's (kill -1 as a uid reaches all of that uid's processes). */
const UIDS = [20201, 20202, 20203];
const GID = 20200;
const TITLE = ROOT ? 'the tool uid pool' : 'the tool uid pool — SKIPPED: these tests are not running as root, which dropping to the tool uids needs';

let workspace: string;
let pool: UidPoolSandbox;
let holder: ChildProcess | undefined;
const CREDENTIALS_URI = `/v2/credentials/${crypto.randomUUID()}`;

/** Runs `command` (sh -c) in `box` as exec does, stdout and stderr together. */
function sh(command: string, opts: { box?: UidPoolSandbox; signal?: AbortSignal; timeoutMs?: number } = {}) {
  return runSandboxed(['/bin/sh', '-c', `{ ${command}\n} 2>&1`], {
    sandbox: opts.box ?? pool,
    env: baseSandboxEnv(workspace),
    network: true,
    timeoutMs: opts.timeoutMs ?? 20_000,
    maxOutputBytes: 200_000,
    signal: opts.signal,
  });
}

describe.skipIf(!ROOT)(TITLE, () => {
  beforeAll(async () => {
    // As in the image: /workspace is reachable by every uid (its parents traversable).
    const parent = tempDir('cf-uidpool-');
    chmodSync(parent, 0o711);
    workspace = join(parent, 'workspace');
    mkdirSync(workspace, { mode: 0o700 });
    writeFileSync(join(workspace, 'MEMORY.md'), '# seeded by the runtime\n');
    const probed = await probeUidPool({ uids: UIDS, gid: GID, workspace });
    if (!('sandbox' in probed)) throw new Error(probed.unavailable);
    pool = probed.sandbox;
    // A root process holding the credentials URI in its environment, as the runtime and PID 1 do in a task.
    holder = spawn('sleep', ['600'], { env: { AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: CREDENTIALS_URI, PATH: '/usr/bin:/bin' }, stdio: 'ignore' });
    await new Promise((r) => holder!.once('spawn', r));
  });

  afterAll(() => {
    holder?.kill('SIGKILL');
  });

  it('runs a call as a pool uid with no other group, no capability and no_new_privs', async () => {
    const r = await sh('id -u; id -G; grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status');
    const [uid, groups] = r.output.split('\n');
    expect(UIDS).toContain(Number(uid));
    expect(groups).toBe(String(GID));
    expect(r.output).toMatch(/CapEff:\s+0{16}/);
    expect(r.output).toMatch(/CapBnd:\s+0{16}/);
    expect(r.output).toMatch(/NoNewPrivs:\s+1/);
  });

  it('caps a call at TOOL_PROCESS_LIMIT processes, which it cannot raise, and makes its processes the first the OOM killer takes', async () => {
    const r = await sh(
      'grep "Max processes" /proc/self/limits; cat /proc/self/oom_score_adj; prlimit --pid $$ --nproc=unlimited:unlimited && echo raised; echo -1 > /proc/self/oom_score_adj && echo below-the-runtime',
    );
    expect(r.output).toMatch(new RegExp(`^Max processes\\s+${TOOL_PROCESS_LIMIT}\\s+${TOOL_PROCESS_LIMIT}\\s+processes`, 'm'));
    expect(r.output.split('\n')[1]).toBe(String(TOOL_OOM_SCORE_ADJ));
    // Without CAP_SYS_RESOURCE it can come back down to the runtime's 0 at most, never below.
    expect(r.output).not.toMatch(/^(raised|below-the-runtime)$/m);
    expect(r.output).toMatch(/failed to set the NPROC resource limit: Operation not permitted/);
  });

  it('cannot read a root process’s environment (the credentials URI) or memory', async () => {
    // The probe is real: root reads the URI there.
    expect(readFileSync(`/proc/${holder!.pid}/environ`, 'utf8')).toContain(CREDENTIALS_URI);
    const r = await sh(
      `tr '\\0' '\\n' </proc/${holder!.pid}/environ; cat /proc/1/environ; head -c 64 /proc/${holder!.pid}/mem; for f in /proc/[0-9]*/environ; do cat "$f"; done; env`,
    );
    expect(r.output).not.toContain(CREDENTIALS_URI);
    expect(r.output).toMatch(new RegExp(`/proc/${holder!.pid}/environ: Permission denied`));
    expect(r.output).toMatch(new RegExp(`/proc/${holder!.pid}/mem'? for reading: Permission denied`));
    expect(r.output).not.toMatch(/^(AWS|ECS)_/m);
  });

  it('kills every process of the call’s uid when it ends — a setsid grandchild too — and leaves another uid’s call running until its turn is cancelled', async () => {
    const theirs = uniqueSleep();
    const mine = uniqueSleep();
    // A concurrent call of another session: holds its uid while it sleeps (and its own setsid child).
    const abort = new AbortController();
    const other = sh(`setsid sh -c "sleep ${theirs}" >/dev/null 2>&1 </dev/null & sleep ${theirs}`, { signal: abort.signal });
    await expect.poll(() => livingWith(theirs).length).toBeGreaterThan(0);
    const r = await sh(`setsid sh -c "sleep ${mine}" >/dev/null 2>&1 </dev/null & echo started`);
    expect(r.output).toContain('started');
    await expect.poll(() => livingWith(mine)).toEqual([]);
    expect(livingWith(theirs).length).toBeGreaterThan(0);
    // Its turn is cancelled: everything of its uid goes, the setsid child too.
    abort.abort();
    expect(await other).toMatchObject({ aborted: true });
    await expect.poll(() => livingWith(theirs)).toEqual([]);
    for (const uid of UIDS) expect(processesOf(uid)).toEqual([]);
  });

  it('kills everything of the call when it times out, even what holds its output open', async () => {
    const marker = uniqueSleep();
    const r = await sh(`setsid sh -c "sleep ${marker}" & sleep ${marker}`, { timeoutMs: 1_000 });
    expect(r).toMatchObject({ timedOut: true });
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('gives each call a private TMPDIR and removes what its uid left in /tmp', async () => {
    const r = await sh(
      'echo "$TMPDIR"; stat -c "%a %u" "$TMPDIR"; echo x > "$TMPDIR/scratch"; echo y > /tmp/cf-uidpool-left-$$; echo "/tmp/cf-uidpool-left-$$"',
    );
    const [tmp, mode, left] = [r.output.split('\n')[0]!, r.output.split('\n')[1]!, r.output.split('\n')[2]!];
    expect(tmp).toMatch(/^\/tmp\/clawfleet-tools\/\d+$/);
    // Its parent is root's, and no tool uid may add to it (no link planted where another call's TMPDIR goes).
    expect(statSync('/tmp/clawfleet-tools')).toMatchObject({ uid: 0, mode: expect.any(Number) });
    expect(statSync('/tmp/clawfleet-tools').mode & 0o777).toBe(0o711);
    expect(mode).toMatch(/^700 \d+$/);
    expect(existsSync(tmp)).toBe(false);
    expect(existsSync(left)).toBe(false);
  });

  it('keeps the workspace writable for every uid of the pool: a file one call made, another (another uid) edits', async () => {
    const first = await sh('echo one > shared.txt && id -u');
    // Whichever uid the pool handed out (its order depends on the calls before), the edit comes from another.
    const pool2 = new UidPoolSandbox({ uids: [UIDS.find((u) => String(u) !== first.output.trim())!], gid: GID, workspace });
    const second = await sh('echo two >> shared.txt && cat MEMORY.md shared.txt && id -u', { box: pool2 });
    expect(second.output).toContain('# seeded by the runtime\none\ntwo');
    expect(first.output.trim()).not.toBe(second.output.trim().split('\n').at(-1));
    // Group-shared, setgid directories keep the group.
    expect(statSync(join(workspace, 'shared.txt')).gid).toBe(GID);
    expect(statSync(workspace).mode & 0o2070).toBe(0o2070);
  });

  it('makes a call wait for a free uid when all are busy, and a cancelled waiter gives up its place', async () => {
    const one = new UidPoolSandbox({ uids: [UIDS[0]!], gid: GID, workspace });
    const marker = uniqueSleep();
    const busy = new AbortController();
    const holding = sh(`sleep ${marker}`, { box: one, signal: busy.signal });
    await expect.poll(() => livingWith(marker).length).toBeGreaterThan(0);
    const gaveUp = new AbortController();
    const waiting = sh('echo never', { box: one, signal: gaveUp.signal });
    const next = sh('echo next', { box: one });
    gaveUp.abort();
    expect(await waiting).toMatchObject({ aborted: true, output: '' });
    busy.abort();
    await holding;
    expect((await next).output).toBe('next\n');
  });

  it('runs a sandboxed MCP server as a tool uid, and stopping it kills everything of that uid', async () => {
    copyFileSync(fileURLToPath(new URL('./fixtures/probe-mcp-server.mjs', import.meta.url)), join(workspace, 'server.mjs'));
    const marker = uniqueSleep();
    const host = new McpHost(
      { probe: { command: process.execPath, args: [join(workspace, 'server.mjs'), marker, '/root'], sandbox: true } },
      { workspace, runtimeState: join(workspace, '.clawfleet'), secrets: {}, log: memoryLogger(), sandbox: { sandbox: pool } },
    );
    await host.start();
    try {
      const tool = host.tools().find((t) => t.name === 'probe__probe')!;
      const seen = JSON.parse((await tool.run({}, { signal: new AbortController().signal, sessionKey: 's', inboundId: 'i', request: async () => 'x' })).text);
      expect(UIDS).toContain(seen.uid);
      expect(seen.parentEnviron).toBe('unreadable: EACCES');
      await expect.poll(() => livingWith(marker).length).toBeGreaterThan(0);
    } finally {
      await host.stop();
    }
    await expect.poll(() => livingWith(marker)).toEqual([]);
  });

  it('leaves nothing of any pool uid running at the end', () => {
    for (const uid of UIDS) expect(processesOf(uid)).toEqual([]);
    expect(readdirSync('/tmp/clawfleet-tools').filter((n) => UIDS.map(String).includes(n))).toEqual([]);
  });
});
