// One agent's browser: headless Chromium driven by playwright-core, started on first use
// (playwright-core itself loads then too), stopped after an idle while and when the runtime
// stops. Chromium runs inside the sandbox exec uses (its own uid or namespaces, so with
// --no-sandbox its renderer shares nothing with the runtime) and reaches the network only
// through the guard proxy. Downloads land in the workspace.
import { chmodSync, fchmodSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import type { BrowserContext, Download, Page } from 'playwright-core';
import type { Logger } from '../../../shared/log.ts';
import type { FetchPolicy, Resolve } from '../net/fetch-guard.ts';
import { baseSandboxEnv, type Sandbox, type SandboxLease } from '../../../shared/adapters/sandbox/sandbox-port.ts';
import { startGuardProxy, type GuardProxy } from './guard-proxy.ts';

export interface AgentBrowserOptions {
  /** Chromium's binary (tools.browser.executablePath, else /usr/bin/chromium). */
  executablePath: string;
  /** Environment Chromium needs on top of the sandbox's (a Chromium unpacked elsewhere: its libraries). */
  env?: Record<string, string> | undefined;
  workspace: string;
  /** Where the runtime keeps its launch script: not the workspace, which the agent's code may write. */
  runtimeState: string;
  sandbox: Sandbox;
  policy: FetchPolicy;
  resolve?: Resolve | undefined;
  idleMs: number;
  log: Logger;
}

/** The browser's profiles, relative to the workspace (each start's own, removed when it stops). */
export const BROWSER_DIR = '.browser';

/** Downloads, relative to the workspace. */
export const DOWNLOADS_DIR = 'downloads';

const CHROMIUM_ARGS = [
  // Chromium's own sandbox cannot start inside our sandbox's user namespace (or as a tool uid
  // without its setuid helper); ours is the boundary: see docs/security.md, "The browser".
  '--no-sandbox',
  '--disable-dev-shm-usage',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-breakpad',
  // WebRTC would otherwise send UDP around the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
];

export class AgentBrowser {
  private starting: Promise<{ context: BrowserContext; proxy: GuardProxy; lease: SandboxLease; profile: string; script: string }> | undefined;
  private current: Page | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private launches = 0;

  constructor(private readonly o: AgentBrowserOptions) {}

  /** Whether Chromium is running now. */
  get running(): boolean {
    return this.starting !== undefined;
  }

  /** The page the agent works in, the browser started if it is not running. */
  async page(): Promise<{ page: Page; proxy: GuardProxy }> {
    this.touch();
    const s = await (this.starting ??= this.launch());
    if (!this.current || this.current.isClosed()) {
      this.current = await s.context.newPage();
      this.current.on('download', (d) => {
        const saving = this.keep(d).finally(() => this.saving.delete(saving));
        this.saving.add(saving);
      });
    }
    return { page: this.current, proxy: s.proxy };
  }

  /** Files downloaded since the last call, as workspace paths (or why one was not kept); waits for those being saved. */
  async takeDownloads(): Promise<string[]> {
    await Promise.all([...this.saving]);
    return this.downloaded.splice(0);
  }

  private readonly downloaded: string[] = [];
  private readonly saving = new Set<Promise<void>>();

  /**
   * A download given a name of its own under downloads/ (never a path the page chose).
   * Chromium wrote it there itself, as its sandbox's uid; the runtime only renames it —
   * rename(2) moves a link rather than following one — and never reads or copies it, so
   * a link planted by the agent's code cannot make the runtime read or write elsewhere.
   */
  private async keep(d: Download): Promise<void> {
    const name =
      d
        .suggestedFilename()
        .replace(/[^A-Za-z0-9._-]+/g, '_')
        .replace(/^\.+/, '')
        .slice(0, 120) || 'download';
    const rel = `${DOWNLOADS_DIR}/${Date.now()}-${name}`;
    try {
      const failure = await d.failure();
      if (failure) throw new Error(failure);
      const written = await d.path();
      if (dirname(written) !== join(this.o.workspace, DOWNLOADS_DIR)) throw new Error('it was not written into downloads/');
      new WorkspaceDir(this.o.workspace).rename(`${DOWNLOADS_DIR}/${basename(written)}`, rel);
      this.downloaded.push(rel);
    } catch (err) {
      this.downloaded.push(`${name}: not saved (${(err as Error).message.split('\n')[0]})`);
      await d.delete().catch(() => {});
    }
  }

  /** Closes the browser (the tool's close, idle, or the runtime stopping); nothing of it stays running. */
  async stop(): Promise<void> {
    clearTimeout(this.idleTimer);
    const starting = this.starting;
    this.starting = undefined;
    this.current = undefined;
    if (!starting) return;
    let s;
    try {
      s = await starting;
    } catch {
      return;
    }
    await s.context.close().catch(() => {});
    await s.lease.release();
    await s.proxy.close();
    new WorkspaceDir(this.o.workspace).remove(s.profile, { recursive: true });
    rmSync(s.script, { force: true });
    this.o.log.info('browser stopped');
  }

  /**
   * One tool call over the browser: the idle clock is stopped while it runs and starts again
   * from its end, so an idle time shorter than a call (a slow page, Chromium's own start)
   * never stops the browser under the call.
   */
  async use<T>(call: () => Promise<T>): Promise<T> {
    this.busy++;
    clearTimeout(this.idleTimer);
    try {
      return await call();
    } finally {
      this.busy--;
      if (this.running) this.touch();
    }
  }

  private busy = 0;

  private touch(): void {
    clearTimeout(this.idleTimer);
    if (this.busy > 0) return;
    this.idleTimer = setTimeout(() => void this.stop(), this.o.idleMs);
    this.idleTimer.unref();
  }

  private async launch() {
    const { chromium } = await import('playwright-core');
    const proxy = await startGuardProxy(this.o.policy, this.o.resolve);
    // Folders Chromium writes, in the workspace so its sandbox sees them, made with the
    // workspace's own mode (the container's is group-writable for the tool uids).
    const n = ++this.launches;
    const ws = new WorkspaceDir(this.o.workspace);
    const mode = ws.stat('.')!.mode & 0o7777;
    const folder = (rel: string) => {
      // Never through a link the agent's code put there: a link or file is removed (never
      // what it points to), the folder made and opened beneath the workspace, and its mode set
      // on that descriptor.
      const st = ws.stat(rel);
      if (st && !st.isDirectory()) ws.remove(rel, { recursive: true });
      ws.mkdirp(rel);
      const dir = ws.openFolder(rel);
      try {
        fchmodSync(dir.fd, mode);
      } finally {
        dir.close();
      }
      // Chromium, inside its sandbox, is given the path: the sandbox is its wall.
      return join(this.o.workspace, rel);
    };
    const downloads = folder(DOWNLOADS_DIR);
    folder(BROWSER_DIR);
    // A fresh profile per start: no stale lock from a Chromium that was killed.
    const profileRel = `${BROWSER_DIR}/profile-${process.pid}-${n}`;
    const profile = folder(profileRel);
    const lease = await this.o.sandbox.lease({
      argv: [this.o.executablePath],
      env: { ...baseSandboxEnv(this.o.workspace, this.o.sandbox.path), ...this.o.env },
      network: true,
      // Chromium's own folder (a Chromium unpacked outside the system directories), by the
      // path it is named by and by where that really is (its fonts.conf may name either).
      readOnly: [...new Set([dirname(this.o.executablePath), realpathSync(dirname(this.o.executablePath))])],
    });
    try {
      // Playwright starts a binary and appends its own arguments: the sandbox's launcher is
      // put in front of Chromium by a script only the runtime can write.
      const script = join(this.o.runtimeState, `chromium-${process.pid}-${n}.sh`);
      mkdirSync(this.o.runtimeState, { recursive: true, mode: 0o700 });
      const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
      writeFileSync(
        script,
        `#!/bin/sh\ncd ${quote(lease.launch.cwd)} || exit 1\nexec ${[lease.launch.file, ...lease.launch.args].map(quote).join(' ')} "$@"\n`,
        { mode: 0o700 },
      );
      chmodSync(script, 0o700);
      const context = await chromium.launchPersistentContext(profile, {
        executablePath: script,
        env: lease.launch.env,
        headless: true,
        args: [...CHROMIUM_ARGS, `--proxy-server=${proxy.url}`, '--proxy-bypass-list=<-loopback>'],
        downloadsPath: downloads,
        acceptDownloads: true,
        serviceWorkers: 'block',
        viewport: { width: 1280, height: 900 },
        timeout: 60_000,
      });
      this.o.log.info('browser started', { sandbox: this.o.sandbox.kind });
      return { context, proxy, lease, profile: profileRel, script };
    } catch (err) {
      await lease.release();
      await proxy.close();
      ws.remove(profileRel, { recursive: true });
      this.starting = undefined;
      throw err;
    }
  }
}
