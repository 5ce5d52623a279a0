// Local mode on a full disk (issue #12, "Why" 11): a real `clawfleet start` process with its
// state directory on a size-limited tmpfs that the test fills up. Before, the first runtime
// log line or exit that needed the disk threw SQLITE_FULL/ENOSPC out of an event handler
// and the fleet died for good. Now: requests that need the disk get 503 (nothing taken),
// the fleet and its runtimes keep running (one killed meanwhile is restarted), the full
// disk is logged once, and when space returns it works again by itself — what was
// acknowledged before, including a turn in flight throughout, is answered.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAdminFile } from '../../local/admin-file.ts';
import { runtimeLogPath } from '../../local/runtime-logs.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { writeFigures } from '../support/figures.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { tempDir } from '../support/temp-dirs.ts';

const KEY = 'sk-test-disk-full-0123456789abcdef';
const ROOT = process.getuid?.() === 0;
let dir: string;
let mnt: string;
let mounted = false;
let model: FakeModel;
let fleet: ChildProcess;
let url: string;
let token: string;
const lines: { source: string; line: Record<string, unknown> }[] = [];
let releaseHeld!: () => void;
const held = new Promise<void>((resolve) => (releaseHeld = resolve));
const scan = new SecretScan();
scan.addSecrets(KEY);

const chat = (agentId: string, text: string) =>
  fetch(`${url}/api/chat/${agentId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });

async function answered(agentId: string, text: string, timeout = 30_000): Promise<void> {
  await expect
    .poll(
      async () => {
        const res = await fetch(`${url}/api/chat/${agentId}/messages?after=0`, { headers: { authorization: `Bearer ${token}` } });
        return ((await res.json()) as { messages: { role: string; text: string }[] }).messages.some((m) => m.role === 'agent' && m.text === `echo: ${text}`);
      },
      { timeout, interval: 200, message: `${agentId} answers "${text}"` },
    )
    .toBe(true);
}

/** Each agent's runtime pid and state, as `clawfleet status` gets them. */
async function runtimes(): Promise<Record<string, { state: string; pid: number | undefined }>> {
  const admin = readAdminFile(mnt)!;
  const res = await fetch(`${admin.url}/admin/status`, { headers: { authorization: `Bearer ${admin.token}` } });
  const status = (await res.json()) as { agents: { id: string; state: string; detail?: string }[] };
  return Object.fromEntries(status.agents.map((a) => [a.id, { state: a.state, pid: Number(/^pid (\d+)/.exec(a.detail ?? '')?.[1]) || undefined }]));
}

/** Waits for `check` outside a test (expect.poll works only inside one). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline || fleet.exitCode !== null)
      throw new Error(`${what}: not within ${timeoutMs} ms; the fleet said ${JSON.stringify(lines.slice(-8))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const said = (msg: string) => lines.filter((l) => l.source === 'control' && String(l.line.msg).startsWith(msg));

/** Fills the file system at `path` to the last byte it will take; returns how many bytes that was. */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 1 << 12, 1 << 9, 1]) {
      const chunk = Buffer.alloc(size, 120);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

beforeAll(async () => {
  if (!ROOT) return;
  dir = tempDir('cf-disk-full-');
  mnt = join(dir, 'state');
  mkdirSync(mnt);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=24m,mode=0700', 'tmpfs', mnt], { encoding: 'utf8' });
  if (mount.status !== 0) throw new Error(`root, yet cannot mount a tmpfs for the state directory: ${mount.stderr}`);
  mounted = true;
  model = await startModel({
    apiKey: KEY,
    responder: async (req) => {
      if (req.lastUserText.startsWith('hold:')) await held;
      return { text: `echo: ${req.lastUserText}` };
    },
  });
  writeFileSync(
    join(dir, 'clawfleet.json'),
    JSON.stringify({
      fleet: 'diskfull',
      agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'alpha', default: true }, { id: 'beta' }] },
      models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY', baseUrl: model.baseUrls['openai-completions'] } } },
    }),
  );
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({ 'clawfleet/diskfull/agents/alpha': { OPENAI_API_KEY: KEY }, 'clawfleet/diskfull/agents/beta': { OPENAI_API_KEY: KEY } }),
  );
  fleet = spawn(
    process.execPath,
    ['bin/clawfleet.js', 'start', '--config', join(dir, 'clawfleet.json'), '--secrets', join(dir, 'secrets.json'), '--state', mnt, '--port', '0', '--verbose'],
    {
      cwd: process.cwd(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let buffer = '';
  fleet.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      const m = /^\[([^\]]+)\] (\{.*\})$/.exec(text);
      if (m) lines.push({ source: m[1]!, line: JSON.parse(m[2]!) as Record<string, unknown> });
      const at = /dashboard and chat: (http:\/\/127\.0\.0\.1:\d+)\//.exec(text);
      if (at) url = at[1]!;
    }
  });
  fleet.stderr!.on('data', (chunk: Buffer) => lines.push({ source: 'stderr', line: { msg: chunk.toString() } }));
  await until(() => url !== undefined, 'the fleet prints its URL');
  token = readFileSync(join(mnt, 'dashboard-token'), 'utf8').trim();
  scan.addSecrets(token, readAdminFile(mnt)!.token);
  await until(async () => Object.values(await runtimes()).every((r) => r.state === 'running'), 'every runtime is running');
}, 120_000);

afterAll(async () => {
  releaseHeld?.();
  if (fleet && fleet.exitCode === null && fleet.signalCode === null) {
    const exited = new Promise((resolve) => fleet.once('exit', resolve));
    process.kill(-fleet.pid!, 'SIGKILL');
    await exited;
  }
  await model?.close();
  if (mounted) spawnSync('umount', ['-l', mnt]);
});

// Only root may mount a file system here; anyone else sees why this is skipped in its name.
const suite = ROOT ? describe : describe.skip;
suite(
  ROOT
    ? 'a full disk under the state directory'
    : 'a full disk under the state directory (skipped: mounting a size-limited tmpfs needs root, and this is not root)',
  () => {
    it('fails the requests that need it with 503 while the fleet and its runtimes keep running, and recovers by itself when space returns', async () => {
      await chat('alpha', 'hello').then((r) => expect(r.status).toBe(202));
      await answered('alpha', 'hello');
      // A message acknowledged before the disk fills, its turn in flight throughout.
      expect((await chat('alpha', 'hold: the answer survives')).status).toBe(202);
      await expect.poll(() => model.requests().some((r) => r.lastUserText === 'hold: the answer survives'), { timeout: 30_000 }).toBe(true);
      const before = await runtimes();

      const filler = join(mnt, 'filler');
      const filled = fill(filler);
      const fullAt = Date.now();

      // What needs the disk is refused, and says so; nothing taken means nothing to answer later.
      const statuses: number[] = [];
      const accepted: string[] = [];
      for (let i = 0; i < 10 && !statuses.includes(503); i++) {
        const text = `while full ${i}`;
        const res = await chat('beta', text);
        statuses.push(res.status);
        if (res.status === 202)
          accepted.push(text); // fitted in space a file already had
        else {
          expect(res.status).toBe(503);
          expect(res.headers.get('retry-after')).toBe('30');
          expect(await res.json()).toMatchObject({ code: 'STORAGE_FULL' });
        }
      }
      expect(statuses).toContain(503);
      const dashboardChat = await fetch(`${url}/api/fleet/beta/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"text":"while full, from the dashboard"}',
      });
      expect([202, 503]).toContain(dashboardChat.status);
      if (dashboardChat.status === 202) accepted.push('while full, from the dashboard');
      // Reads still work.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      expect((await fetch(`${url}/api/fleet`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);

      // A runtime that dies meanwhile: its exit is recorded (or not) and it is started again.
      process.kill(before.beta!.pid!, 'SIGKILL');
      await expect
        .poll(async () => (await runtimes()).beta!.pid !== before.beta!.pid && (await runtimes()).beta!.state === 'running', { timeout: 30_000, interval: 200 })
        .toBe(true);
      await expect.poll(() => said('the state directory is full').length).toBe(1);
      expect(fleet.exitCode).toBeNull();

      // Space returns: no restart, no command — it just works again.
      rmSync(filler);
      const freedAt = Date.now();
      let recoveredAt = 0;
      await expect
        .poll(
          async () => {
            const status = (await chat('beta', 'after the disk was full')).status;
            if (status === 202) recoveredAt = Date.now();
            return status;
          },
          { timeout: 30_000, interval: 200 },
        )
        .toBe(202);
      await answered('beta', 'after the disk was full');
      releaseHeld();
      await answered('alpha', 'hold: the answer survives');
      for (const text of accepted) await answered('beta', text);
      await expect.poll(() => said('the state directory is writable again').length, { timeout: 40_000, interval: 200 }).toBe(1);

      // The refused messages never reached a model: a 503 took nothing.
      const refused = statuses.flatMap((s, i) => (s === 503 ? [`while full ${i}`] : []));
      expect(model.requests().filter((r) => refused.includes(r.lastUserText))).toEqual([]);
      const now = await runtimes();
      expect(now.alpha!.pid).toBe(before.alpha!.pid);
      expect(fleet.exitCode).toBeNull();
      expect(said('the state directory is full')).toHaveLength(1);
      // The runtime log is written again too: beta's turn after the disk was freed is in it.
      const logged = readFileSync(runtimeLogPath(join(mnt, 'logs'), 'beta'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { time: string; msg: string });
      expect(logged.some((l) => l.msg === 'turn answered' && Date.parse(l.time) > freedAt)).toBe(true);
      // Nothing secret in what the fleet said through it all, nor in the runtimes' logs.
      scan.record('clawfleet start output', lines.map((l) => JSON.stringify(l)).join('\n'));
      for (const agentId of ['alpha', 'beta']) scan.record(`${agentId} log`, readFileSync(runtimeLogPath(join(mnt, 'logs'), agentId), 'utf8'));
      expect(scan.hits()).toEqual([]);
      writeFigures('disk-full', {
        tmpfsMb: 24,
        fillerBytes: filled,
        chatStatusesWhileFull: statuses,
        fullForMs: freedAt - fullAt,
        firstAcceptedAfterFreeingMs: recoveredAt - freedAt,
        fullWarnings: said('the state directory is full').length,
      });
    });
  },
);
