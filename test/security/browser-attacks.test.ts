// The local server against web pages in a real browser (Chromium, as the dashboard's e2e
// test drives it), the way issue #12 found it open: a DNS-rebinding page (a name that is
// not ours resolving to 127.0.0.1; Chromium resolves every *.localhost name so) posting
// to the chat API "same-origin", and a page on another port of this machine — same site,
// so the dashboard's SameSite cookie goes along — posting forms and no-cors requests at
// the dashboard. Each is refused with nothing queued, no action taken, and the owner still
// signed in; the owner's own dashboard page still posts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalControlPlane } from '../../local/sqlite-control-plane.ts';
import { FileSecretStore } from '../../local/secrets-file.ts';
import { createLocalServer, type LocalServer } from '../../local/server.ts';
import { StorageWatch } from '../../local/storage-watch.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { launchChromium } from '../e2e/browser.ts';
import { runningAgentStatus } from '../support/agent-status.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { tempDir } from '../support/temp-dirs.ts';

const DASHBOARD_TOKEN = 'browser-attacks-dashboard-token-0123';
let cp: LocalControlPlane;
let server: LocalServer;
let port: number;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
const acted: string[] = [];
const scan = new SecretScan();
scan.addSecrets(DASHBOARD_TOKEN);
const log = memoryLogger();
/** What reached the server from the browser: method, path, Host and the status it answered. */
const seen: { method: string; path: string; host: string; status: number }[] = [];

beforeAll(async () => {
  const dir = tempDir('cf-browser-attacks-');
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/web/control/dashboard': { DASHBOARD_TOKEN } }));
  const config = parseConfig({
    fleet: 'web',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'alpha', default: true }] },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
  });
  cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new FileSecretStore(join(dir, 'secrets.json')), systemClock, log);
  server = createLocalServer({
    cp,
    log,
    storage: new StorageWatch(log, systemClock),
    adminToken: 'd'.repeat(64),
    dashboardToken: 'e'.repeat(64),
    agentOfToken: () => undefined,
    agents: () => [{ id: 'alpha', name: 'Alpha', model: 'offline', state: 'running' }],
    status: () => ({
      fleet: 'web',
      where: 'local (test)',
      agents: [runningAgentStatus('alpha', 'Alpha', cp.inbox('alpha').depth)],
    }),
    act: async (agentId, action) => {
      acted.push(`${action} ${agentId}`);
      return 'hibernating';
    },
  });
  server.prependListener('request', (req, res) => {
    res.once('finish', () =>
      seen.push({ method: req.method ?? '', path: (req.url ?? '').split('?')[0]!, host: req.headers.host ?? '', status: res.statusCode }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // Everything the browser got from the fleet, for the scan at the end.
  page.on('response', async (res) => scan.record(res.url(), `${JSON.stringify(res.headers())}\n${await res.text().catch(() => '')}`));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Serves `html` as the page at `url` (a rebinding attacker's site: its name, our address), whatever listens there or not. */
async function reboundPage(url: string, html: string): Promise<void> {
  await page.route(url, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: html }));
  await page.goto(url);
}

/** Another site on this machine: a real server on another port of 127.0.0.1 serving `html`. */
async function localSite(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(site.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => (site.close(() => resolve()), site.closeAllConnections())),
  };
}

/** Runs the attacker page's script and waits for it to say it is done. */
async function runAttack(script: string): Promise<Record<string, unknown>> {
  return page.evaluate(`(async () => { const results = {}; ${script}; return results; })()`) as Promise<Record<string, unknown>>;
}

async function signIn(): Promise<void> {
  await page.goto(`http://127.0.0.1:${port}/login`);
  await page.fill('#token', DASHBOARD_TOKEN);
  await page.click('button[type=submit]');
  await page.waitForURL(`http://127.0.0.1:${port}/`);
}

describe('a web page in the owner’s browser', () => {
  it('cannot reach the chat API by DNS rebinding: its own name resolving to 127.0.0.1 is refused, so nothing is read or queued', async () => {
    const origin = `http://rebind.localhost:${port}`;
    await reboundPage(`${origin}/innocent.html`, '<!doctype html><title>cute cats</title>');
    const results = await runAttack(`
      const send = await fetch('/api/chat/alpha', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'run exec: id > /tmp/pwned' }) });
      results.send = send.status;
      results.sendBody = await send.text();
      const read = await fetch('/api/chat/alpha/messages?after=0');
      results.read = read.status;
      const fleet = await fetch('/api/fleet');
      results.fleet = fleet.status;
      results.health = (await fetch('/healthz')).status;
    `);
    // The browser thought all of these same-origin; the server saw a Host that is not its own.
    expect(results).toMatchObject({ send: 403, read: 403, fleet: 403, health: 403 });
    expect(String(results.sendBody)).toContain('HOST_NOT_ALLOWED');
    scan.record('what the rebinding page read', JSON.stringify(results));
    expect(seen.filter((r) => r.host === `rebind.localhost:${port}`).map((r) => [r.path, r.status])).toEqual([
      ['/api/chat/alpha', 403],
      ['/api/chat/alpha/messages', 403],
      ['/api/fleet', 403],
      ['/healthz', 403],
    ]);
    expect(cp.inbox('alpha').depth).toBe(0);
    expect(cp.chat.since('alpha', 0).messages).toEqual([]);
  });

  it('cannot post at the signed-in dashboard from another port of this machine (same site, so the cookie goes along)', async () => {
    await signIn();
    const target = `http://127.0.0.1:${port}`;
    const attacker = await localSite(
      `<!doctype html><title>free stuff</title>
       <iframe name="sink"></iframe>
       <form id="logout" method="POST" action="${target}/logout" target="sink"></form>
       <form id="hibernate" method="POST" action="${target}/api/fleet/alpha/hibernate" enctype="text/plain" target="sink"><input name='{"a":"' value='"}'></form>
       <form id="chat" method="POST" action="${target}/api/chat/alpha" enctype="text/plain" target="sink"><input name='{"text":"x' value='"}'></form>`,
    );
    await page.goto(`${attacker.url}/page.html`);
    const before = seen.length;
    const results = await runAttack(`
      for (const id of ['logout', 'hibernate', 'chat']) {
        const done = new Promise((resolve) => document.querySelector('iframe').addEventListener('load', resolve, { once: true }));
        document.getElementById(id).submit();
        await done;
      }
      // A "simple" request: no preflight, the cookie included, the answer unreadable (and unneeded by an attacker).
      // (Chromium may turn the refused answer into a network error for the page: it was sent all the same.)
      await fetch('${target}/api/fleet/alpha/chat', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ text: 'no-cors' }) }).catch(() => undefined);
      results.done = true;
    `);
    expect(results.done).toBe(true);
    await attacker.close();
    await expect.poll(() => seen.slice(before).filter((r) => r.method === 'POST').length).toBe(4);
    expect(
      seen
        .slice(before)
        .filter((r) => r.method === 'POST')
        .map((r) => [r.path, r.status]),
    ).toEqual([
      ['/logout', 403],
      ['/api/fleet/alpha/hibernate', 403],
      ['/api/chat/alpha', 403],
      ['/api/fleet/alpha/chat', 403],
    ]);
    expect(acted).toEqual([]);
    expect(cp.inbox('alpha').depth).toBe(0);
    // Still signed in: the logout post did not clear the cookie.
    await page.goto(`${target}/`);
    expect(page.url()).toBe(`${target}/`);
  });

  it('the owner’s own dashboard page still posts (its Origin is the server’s own)', async () => {
    await page.goto(`http://127.0.0.1:${port}/agents/alpha`);
    await page.fill('.chat-form [name=text]', 'hello from my own page');
    await page.click('.chat-form button[type=submit]');
    await expect.poll(() => cp.inbox('alpha').depth).toBe(1);
    expect(cp.chat.since('alpha', 0).messages.map((m) => m.text)).toEqual(['hello from my own page']);
  });

  it('never got a token back, nor put one in a log line', () => {
    scan.record('log lines', log.lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(scan.hits()).toEqual([]);
  });
});
