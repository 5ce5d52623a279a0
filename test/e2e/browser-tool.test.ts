// The browser tool against pages this test serves on 127.0.0.1, with the harness's Chromium
// run inside bubblewrap and behind the guard proxy: navigate, snapshot, click a button that
// changes the page, type into a form, a screenshot written into the workspace, a download
// kept there; loopback, private and metadata addresses refused — as a navigation, a
// redirect and a subresource — and nothing of the browser left once it is stopped; run by a
// runtime; and, as root, under the container's tool uid pool instead of bubblewrap.
import { queueLocalMessage, replySent } from '../support/memory-turn.ts';
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { memoryLogger } from '../../shared/log.ts';
import { AgentBrowser } from '../../runtime-image/src/browser/agent-browser.ts';
import { browserTool } from '../../runtime-image/src/browser/browser-tool.ts';
import { fetchPolicy } from '../../runtime-image/src/net/fetch-guard.ts';
import type { AgentTool, ToolCallContext, ToolResult } from '../../runtime-image/src/tools/tool.ts';
import { processes, tree } from '../support/process-tree.ts';
import { bwrapSandbox } from '../support/sandbox.ts';
import { tempDir } from '../support/temp-dirs.ts';

const PAGE = `<!doctype html><html><head><title>Test shop</title></head><body>
<h1>Welcome</h1>
<p id="status">Nothing ordered yet.</p>
<button id="order" onclick="document.getElementById('status').textContent='Order placed!'">Place order</button>
<form action="/search" method="get"><label for="q">Search</label><input id="q" name="q"><button type="submit">Go</button></form>
<a href="/file.txt" download="notes.txt">Get the notes</a>
</body></html>`;

function listen(server: Server, host: string): Promise<string> {
  return new Promise((resolve) => server.listen(0, host, () => resolve(`http://${host}:${(server.address() as AddressInfo).port}`)));
}

let site: string;
let inside: string;
const insideHits: string[] = [];
const siteServer = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  if (url.pathname === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  if (url.pathname === '/search') return res.writeHead(200, { 'content-type': 'text/html' }).end(`<h1>Results for ${url.searchParams.get('q')}</h1>`);
  if (url.pathname === '/file.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('the notes');
  if (url.pathname === '/redirect') return res.writeHead(302, { location: `${inside}/secret` }).end();
  if (url.pathname === '/leaky')
    return res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<h1>Leaky</h1><img src="${inside}/pixel.png"><script>fetch('${inside}/api').catch(()=>{})</script>`);
  res.writeHead(404).end();
});
// Stands for an intranet service: loopback, but not the name the config allows.
const insideServer = createServer((req, res) => {
  insideHits.push(req.url ?? '');
  res.end('secret');
});

const workspace = tempDir('cf-browser-ws-');
let browser: AgentBrowser;
let tool: AgentTool;

beforeAll(async () => {
  site = await listen(siteServer, '127.0.0.1');
  inside = await listen(insideServer, '127.0.0.2');
  const chromium = inject('chromium');
  // The test's site is on loopback: allowed by name, as an operator allows an intranet host.
  const policy = fetchPolicy(['127.0.0.1']);
  browser = new AgentBrowser({
    executablePath: chromium.executablePath,
    env: chromium.env,
    workspace,
    runtimeState: tempDir('cf-browser-state-'),
    sandbox: await bwrapSandbox(workspace),
    policy,
    idleMs: 60_000,
    log: memoryLogger(),
  });
  tool = browserTool({ browser, workspace, policy, clock: { now: () => Date.parse('2026-12-01T05:00:00Z') } });
});
afterAll(async () => {
  await browser?.stop();
  siteServer.closeAllConnections();
  siteServer.close();
  insideServer.close();
});

async function act(args: Record<string, unknown>): Promise<ToolResult> {
  const parsed = tool.parse(args);
  if (!parsed.ok) throw new Error(parsed.error);
  return tool.run(parsed.value, { signal: new AbortController().signal } as ToolCallContext);
}

const refOf = (text: string, what: RegExp) => {
  const line = text.split('\n').find((l) => what.test(l));
  return /\[(e\d+)\]/.exec(line ?? '')?.[1];
};

describe('the browser tool', () => {
  it('navigates, shows the page with references, clicks a button that changes it, types into a form and submits it', async () => {
    const opened = await act({ action: 'navigate', url: `${site}/` });
    expect(opened.isError).toBeUndefined();
    expect(opened.untrusted).toEqual({ source: 'browser', meta: { url: `${site}/`, title: 'Test shop' } });
    expect(opened.text).toContain('# Welcome');
    expect(opened.text).toContain('Nothing ordered yet.');
    const button = refOf(opened.text, /button "Place order"/);
    expect(button).toBeDefined();

    const clicked = await act({ action: 'click', ref: button });
    expect(clicked.text).toContain('Order placed!');

    const box = refOf(clicked.text, /textbox "Search"/);
    const typed = await act({ action: 'type', ref: box, text: 'lobster', submit: true });
    expect(typed.text).toContain('# Results for lobster');
    expect(typed.untrusted?.meta?.url).toBe(`${site}/search?q=lobster`);
  });

  it('writes a screenshot into the workspace, and keeps a download there under a name of its own', async () => {
    await act({ action: 'navigate', url: `${site}/` });
    const shot = await act({ action: 'screenshot', path: 'shots/shop.png' });
    expect(shot.text).toMatch(/saved to shots\/shop.png \(\d+ bytes\)/);
    expect(readFileSync(join(workspace, 'shots/shop.png')).subarray(1, 4).toString()).toBe('PNG');

    const page = await act({ action: 'snapshot' });
    const link = refOf(page.text, /link "Get the notes"/);
    const { page: current } = await browser.page();
    const started = current.waitForEvent('download');
    const after = await act({ action: 'click', ref: link });
    await started;
    // The download may start just after the click's answer: the next look reports it then.
    const report =
      /downloaded into the workspace: (downloads\/\d+-notes\.txt)/.exec(after.text) ??
      /downloaded into the workspace: (downloads\/\d+-notes\.txt)/.exec((await act({ action: 'snapshot' })).text);
    expect(report).not.toBeNull();
    expect(readFileSync(join(workspace, report![1]!), 'utf8')).toBe('the notes');
  });

  it('refuses loopback, private and metadata addresses: as a navigation, a redirect, and a request the page makes', async () => {
    for (const url of [`${inside}/`, 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'http://localhost:9/']) {
      const r = await act({ action: 'navigate', url });
      expect(r, url).toMatchObject({ isError: true, text: expect.stringMatching(/^refused /) });
    }
    const redirected = await act({ action: 'navigate', url: `${site}/redirect` });
    expect(redirected).toMatchObject({
      isError: true,
      text: expect.stringMatching(/navigation to .* failed: refused http:\/\/127\.0\.0\.2:\d+: the address is 127\.0\.0\.2 \(loopback\)/),
    });
    const leaky = await act({ action: 'navigate', url: `${site}/leaky` });
    expect(leaky.text).toContain('# Leaky');
    await act({ action: 'snapshot' });
    expect(insideHits).toEqual([]);
  });

  it('leaves no process behind once stopped, and starts again on the next use, through no planted link', async () => {
    await act({ action: 'navigate', url: `${site}/` });
    // The sandbox names this file's workspace; the Chromium inside it sees only /workspace, so it is
    // known by its proxy among this process's descendants: other tests on the machine run Chromium
    // behind a loopback proxy too (the clean-clone run once saw another's here). A process cannot
    // escape the sandbox's pid namespace to be re-parented out of the tree.
    const ours = () => [
      ...processes().filter((p) => p.command.includes(workspace)),
      ...tree(process.pid).filter((p) => !p.command.includes(workspace) && p.command.includes('--proxy-server=http://127.0.0.1')),
    ];
    expect(ours().length).toBeGreaterThan(0);
    await browser.stop();
    expect(browser.running).toBe(false);
    expect(ours()).toEqual([]);
    // Its profile went with it.
    expect(readdirSync(join(workspace, '.browser'))).toEqual([]);
    // Links the agent's code put where the browser's folders go are removed, not followed.
    const outside = tempDir('cf-browser-outside-');
    chmodSync(outside, 0o755);
    rmSync(join(workspace, '.browser'), { recursive: true });
    rmSync(join(workspace, 'downloads'), { recursive: true });
    symlinkSync(outside, join(workspace, '.browser'));
    symlinkSync(outside, join(workspace, 'downloads'));
    expect((await act({ action: 'snapshot' })).text).toMatch(/^page/);
    expect(statSync(outside).mode & 0o777).toBe(0o755);
    expect(readdirSync(outside)).toEqual([]);
    expect([lstatSync(join(workspace, '.browser')).isDirectory(), lstatSync(join(workspace, 'downloads')).isDirectory()]).toEqual([true, true]);
    expect(existsSync(join(workspace, 'downloads'))).toBe(true);
  });
});

describe('a runtime with tools.browser', () => {
  /** A runtime of fran with the browser on, its model scripted in-process: each message navigates to the shop, then answers. */
  async function startBrowserRuntime(browserIdleMs?: number) {
    const { InMemoryFifoQueue, InMemoryOutbox } = await import('../../shared/adapters/memory/in-memory-queues.ts');
    const { startAgentRuntime } = await import('../../runtime-image/src/kinds/native.ts');
    const { franRuntimeEnv, inMemoryRuntimeParts } = await import('../support/in-process-runtime.ts');
    const { assistantMessage } = await import('../../runtime-image/src/model/model.ts');
    const chromium = inject('chromium');
    const ws = join(tempDir('cf-browser-rt-'), 'workspace');
    const raw = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
    Object.assign(
      raw.agents.list.find((a: { id: string }) => a.id === 'fran'),
      {
        runtime: { cpus: 1, memoryMb: 2048 },
        tools: { deny: ['exec'], browser: { enabled: true, executablePath: chromium.executablePath }, web: { fetch: { allowPrivateHosts: ['127.0.0.1'] } } },
      },
    );
    const env = await franRuntimeEnv(raw, { CLAWFLEET_WORKSPACE: ws, CLAWFLEET_SANDBOX: 'bwrap' });
    /** This runtime's Chromium, from /proc: what runs below this process that was started for its workspace, and all below that. */
    const chromiumOf = () => {
      const mine = tree(process.pid);
      const roots = mine.filter((p) => p.command.includes(ws));
      return mine.filter((p) => roots.some((r) => tree(r.pid).some((d) => d.pid === p.pid)));
    };
    const results: string[] = [];
    /** Chromium processes of this runtime seen when the model was asked after the browser call: during use. */
    const duringUse: number[] = [];
    /** When each browser call's result reached the model (just after the call ended). */
    const callEnded: number[] = [];
    const model = {
      label: 'rec/test',
      contextWindow: 100_000,
      complete: async (req: { messages: { role: string; toolCallId?: string }[] }) => {
        const last = req.messages.at(-1)!;
        if (last.role !== 'toolResult')
          return {
            ok: true as const,
            message: assistantMessage('rec/test', [
              { type: 'toolCall', id: `c${results.length}`, name: 'browser', arguments: { action: 'navigate', url: `${site}/` } },
            ]),
          };
        // When the browser call ended, as near as the model sees it: before the /proc scan below, which takes a while on a loaded machine.
        callEnded.push(Date.now());
        duringUse.push(chromiumOf().filter((p) => p.command.includes(chromium.executablePath)).length);
        results.push(JSON.stringify(last));
        return { ok: true as const, message: assistantMessage('rec/test', [{ type: 'text', text: 'The shop says welcome.' }]) };
      },
    };
    const inbox = new InMemoryFifoQueue();
    const outbox = new InMemoryOutbox();
    const log = memoryLogger();
    const runtime = await startAgentRuntime(inMemoryRuntimeParts(env, { inbox, outbox, log, model, browserEnv: chromium.env, browserIdleMs }));
    /** Sends one message and waits for its answer. */
    const ask = async (id: string) => {
      const replied = replySent(outbox);
      queueLocalMessage(inbox, 'fran', id, 'open the shop');
      await replied;
    };
    return { runtime, ask, chromiumOf, results, duringUse, callEnded, log };
  }

  it('offers the browser, starts Chromium on the first call, and leaves nothing running once the runtime stops', async () => {
    const { runtime, ask, chromiumOf, results } = await startBrowserRuntime();
    expect(runtime.tools().map((t) => t.name)).toContain('browser');
    // Lazily: no Chromium until the model first calls the browser.
    expect(chromiumOf()).toEqual([]);
    await ask('m.1');
    expect(results[0]).toContain('# Welcome');
    expect(chromiumOf().length).toBeGreaterThan(0);
    await runtime.stop(0);
    expect(chromiumOf()).toEqual([]);
  });

  it('stops Chromium once it has been idle for its idle time, and starts it again at the next call', async () => {
    const IDLE_MS = 2_000;
    const { runtime, ask, chromiumOf, results, duringUse, callEnded, log } = await startBrowserRuntime(IDLE_MS);
    try {
      expect(chromiumOf()).toEqual([]);
      await ask('m.1');
      // From the call's end, not the turn's: the reply comes later still on a loaded machine.
      const used = callEnded[0]!;
      expect(results[0]).toContain('# Welcome');
      // Several Chromium processes (browser, zygote, renderer) while it was in use.
      expect(duringUse[0]).toBeGreaterThan(1);
      await expect.poll(() => chromiumOf(), { timeout: 20_000, interval: 100 }).toEqual([]);
      // Stopped by the idle timer, not sooner than its idle time after the call ended.
      expect(Date.now() - used).toBeGreaterThanOrEqual(IDLE_MS - 500);
      // Its line comes once the close has returned, which can be after the processes are gone.
      await expect.poll(() => log.lines.filter((l) => l.msg === 'browser stopped')).toHaveLength(1);

      await ask('m.2');
      expect(results[1]).toContain('# Welcome');
      expect(duringUse[1]).toBeGreaterThan(1);
      expect(log.lines.filter((l) => l.msg === 'browser started')).toHaveLength(2);
    } finally {
      await runtime.stop(0);
    }
    expect(chromiumOf()).toEqual([]);
  });
});

// The container's sandbox: Chromium as a tool uid of its own (needs root, as the image's runtime is).
describe.skipIf(process.getuid?.() !== 0)('the browser under the tool uid pool', () => {
  /**
   * The harness's Chromium in a folder of this test's own, where a tool uid can read it: hard links
   * where its folder is readable to all, else a copy made readable. Its own path, so the processes
   * the test looks for (by the path they run from) are this test's only, never another file's
   * Chromium running meanwhile, nor named through a link to the cache (a worktree's .cache may be one).
   */
  async function readableChromium(): Promise<{ executablePath: string; env: Record<string, string>; cleanup(): void }> {
    const { cpSync, chmodSync, realpathSync, rmSync, statSync, writeFileSync } = await import('node:fs');
    const { execFileSync } = await import('node:child_process');
    const chromium = inject('chromium');
    const dir = realpathSync(join(chromium.executablePath, '..'));
    const copy = realpathSync(tempDir('cf-chromium-'));
    chmodSync(copy, 0o755);
    const moved = join(copy, 'chromium');
    if ((statSync(dir).mode & 0o005) === 0o005) execFileSync('cp', ['-al', dir, moved]);
    else {
      cpSync(dir, moved, { recursive: true });
      execFileSync('chmod', ['-R', 'a+rX', moved]);
    }
    const movedPath = (v: string) => v.split(dir).join(moved).split(join(chromium.executablePath, '..')).join(moved);
    const env = Object.fromEntries(Object.entries(chromium.env).map(([k, v]) => [k, movedPath(v)]));
    if (env.FONTCONFIG_FILE) {
      // It names the folder it is in: a file of its own, not the link's target.
      const conf = movedPath(readFileSync(env.FONTCONFIG_FILE, 'utf8'));
      rmSync(env.FONTCONFIG_FILE);
      writeFileSync(env.FONTCONFIG_FILE, conf, { mode: 0o644 });
    }
    return { executablePath: join(moved, 'chromium'), env, cleanup: () => rmSync(copy, { recursive: true, force: true }) };
  }

  it('runs every Chromium process as the leased tool uid, never as the runtime, and leaves none behind', async () => {
    const { chmodSync, mkdirSync } = await import('node:fs');
    const { probeUidPool } = await import('../../shared/adapters/sandbox/uid-pool-sandbox.ts');
    const chromium = await readableChromium();
    const parent = tempDir('cf-browser-uid-');
    chmodSync(parent, 0o711);
    const ws = join(parent, 'workspace');
    mkdirSync(ws, { mode: 0o700 });
    const probed = await probeUidPool({ uids: [20401, 20402], gid: 20400, workspace: ws });
    if (!('sandbox' in probed)) throw new Error(probed.unavailable);
    const policy = fetchPolicy(['127.0.0.1']);
    const pooled = new AgentBrowser({
      executablePath: chromium.executablePath,
      env: chromium.env,
      workspace: ws,
      runtimeState: tempDir('cf-browser-state-'),
      sandbox: probed.sandbox,
      policy,
      idleMs: 60_000,
      log: memoryLogger(),
    });
    try {
      const pooledTool = browserTool({ browser: pooled, workspace: ws, policy, clock: { now: () => 0 } });
      const r = await pooledTool.run({ action: 'navigate', url: `${site}/` }, { signal: new AbortController().signal } as ToolCallContext);
      expect(r.text).toContain('# Welcome');
      const uidOf = (pid: number) => {
        try {
          return Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
        } catch {
          return undefined; // gone
        }
      };
      // This browser's processes: its main process (the one whose profile is in this
      // workspace) and all below it. Chromium starts its helpers by its real path
      // (/proc/self/exe), so a link on the way (a worktree's .cache) is not in their command
      // lines, and by that path other browsers of this file or of other runs show too.
      const pooledBrowser = () => {
        const main = processes().find((p) => p.command.startsWith(chromium.executablePath) && p.command.includes(ws));
        return main ? tree(main.pid) : [];
      };
      /** Whatever still runs as this test's own pool uids (numbers no other test uses), wherever it was re-parented to; not a zombie awaiting its reaper (no command line). */
      const asPoolUids = () => processes().filter((p) => p.command !== '' && [20401, 20402].includes(uidOf(p.pid) ?? -1));
      const procs = pooledBrowser();
      expect(procs.length).toBeGreaterThan(1);
      const uids = new Set(procs.map((p) => uidOf(p.pid)));
      expect(uids.size).toBe(1);
      expect([20401, 20402]).toContain([...uids][0]);
      await pooled.stop();
      expect(pooledBrowser()).toEqual([]);
      expect(asPoolUids()).toEqual([]);
    } finally {
      await pooled.stop();
      chromium.cleanup();
    }
  }, 120_000);
});
