// The dashboard in a real browser (Debian's Chromium via playwright-core) against
// `npm start`'s fleet run in-process: sign-in, the overview with every agent of the
// example fleet, hibernate and wake with confirmation, approving a pairing, the chat box,
// and a page that loses contact (banner, greyed content, gone when refreshes work again).
// Every response the browser saw is scanned for every secret value the test knows.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { readAdminFile } from '../../local/admin-file.ts';
import { captureIO } from '../unit/cli-io.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { startFleet } from '../support/local-fleet.ts';
import { ARTIFACTS, launchChromium } from './browser.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { pendingPairing } from '../support/pending-pairing.ts';

const DASHBOARD_TOKEN = 'dash-e2e-token-7f3a9c1b5e2d4f60';
const GRAPH_TOKEN = 'graph-secret-value-0a1b2c3d4e5f';
const HOOKS_TOKEN = 'hooks-secret-value-9z8y7x6w5v4u';
let fleet: LocalFleet;
let dir: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;
/** Every body the browser received from the fleet, for the secret scan. */
const seen: { url: string; status: number; body: string }[] = [];

beforeAll(async () => {
  dir = tempDir('cf-dash-e2e-');
  writeFileSync(join(dir, 'clawfleet.json'), readFileSync('clawfleet.json', 'utf8'));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/dashboard': { DASHBOARD_TOKEN },
      'clawfleet/demo/control/hooks': { HOOKS_TOKEN },
      'clawfleet/demo/agents/jerry': { GRAPH_TOKEN },
    }),
  );
  fleet = await startFleet({ dir, running: 'all', timeoutMs: 60_000 });
  // Someone asked to talk to Fran's bot: the overview shows it, the test approves it.
  await fleet.cp.pairings.createPending(pendingPairing({ accountId: 'fran', peerId: '4242', displayName: 'Ada', code: 'QWERTY12' }));
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  page.on('response', async (res) => {
    if (!res.url().startsWith(fleet.url)) return;
    const body = await res.text().catch(() => '');
    seen.push({ url: res.url(), status: res.status(), body: `${JSON.stringify(res.headers())}\n${body}` });
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

const shot = (name: string) => page.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
const rowOf = (agentId: string) => page.locator(`tr.agent-row[data-agent="${agentId}"]`);

async function signIn(token: string): Promise<void> {
  await page.goto(`${fleet.url}/`);
  await page.waitForURL(/\/login$/);
  await page.fill('#token', token);
  await page.click('button[type=submit]');
}

async function confirm(): Promise<void> {
  await page.locator('dialog#confirm').waitFor({ state: 'visible' });
  await page.click('#confirm-ok');
}

describe('the dashboard in a browser (local mode)', () => {
  it('refuses a wrong token, and a token anywhere but the header or the form', async () => {
    await signIn('not-the-token-at-all-0000');
    await expect.poll(() => page.locator('.login .error').textContent()).toContain('not right');
    expect(page.url()).toMatch(/\/login$/);
    await shot('login-refused');

    const api = await fetch(`${fleet.url}/api/fleet`, { headers: { authorization: 'Bearer not-the-token-at-all-0000' } });
    expect(api.status).toBe(401);
    seen.push({ url: api.url, status: api.status, body: await api.text() });
    const inUrl = await fetch(`${fleet.url}/api/fleet?token=${DASHBOARD_TOKEN}`);
    expect(inUrl.status).toBe(401);
    seen.push({ url: '/api/fleet?token=…', status: inUrl.status, body: await inUrl.text() });
    const action = await fetch(`${fleet.url}/api/fleet/ray/hibernate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(action.status).toBe(401);
    expect(fleet.supervisor.state('ray')).toBe('running');
  });

  it('signs in with the link `clawfleet dashboard` prints, opened anew or over the sign-in page, and keeps its code out of the address and the history', async () => {
    const printedLink = async () => {
      const io = captureIO({ cwd: dir });
      expect(await runCli(['dashboard', '--state', 'state'], io), io.errText()).toBe(0);
      expect(io.outText()).toMatch(
        new RegExp(
          `^fleet "demo" at ${fleet.url}: open this to sign in to the dashboard \\(until \\d\\d:\\d\\d, 10 minutes\\):\n  ${fleet.url}/login#code=\\d+\\.[0-9a-f]{64}$`,
        ),
      );
      expect(io.outText()).not.toContain(DASHBOARD_TOKEN);
      return io.outText().split('\n')[1]!.trim();
    };
    const signOut = async () => {
      await page.click('header button[type=submit]');
      await page.waitForURL(`${fleet.url}/login`);
    };
    // Opened anew (a page load), as from a terminal.
    await page.goto('about:blank');
    await page.goto(await printedLink());
    await page.waitForURL(`${fleet.url}/`);
    await expect.poll(() => page.locator('tr.agent-row').count()).toBe(4);
    // Back from the dashboard: the page before the link (Chromium lets the sign-in replace the
    // link's entry), or the sign-in page without the code; never the code.
    await page.goBack();
    expect(page.url()).not.toContain('code');
    await page.goto(`${fleet.url}/`);
    await signOut();
    // Opened over the sign-in page: only the fragment changes, and no page loads.
    await page.goto(await printedLink());
    await page.waitForURL(`${fleet.url}/`);
    await expect.poll(() => page.locator('tr.agent-row').count()).toBe(4);
    expect(page.url()).not.toContain('code');
    await signOut();
    // A code that is not this dashboard's: refused in words that say what to do, and not posted again.
    const posts: string[] = [];
    const onRequest = (r: { method(): string; url(): string }) => void (r.method() === 'POST' && posts.push(r.url()));
    page.on('request', onRequest);
    await page.goto(`${fleet.url}/login#code=1${'0'.repeat(12)}.${'ab'.repeat(32)}`);
    await expect
      .poll(() => page.locator('.login .error').textContent())
      .toContain(
        'That sign-in link has lapsed or is not for this dashboard (or the clock that made it is off, or the token changed minutes ago). npx clawfleet dashboard prints a new one',
      );
    page.off('request', onRequest);
    expect(posts).toEqual([`${fleet.url}/login`]);
    expect(page.url()).toBe(`${fleet.url}/login`);
  });

  it('shows every agent of the example fleet with its state, model and compute', async () => {
    await signIn(DASHBOARD_TOKEN);
    await page.waitForURL(`${fleet.url}/`);
    const cookie = (await browser.context.cookies(fleet.url)).find((c) => c.name === 'clawfleet_dashboard');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    expect(cookie!.value).not.toContain(DASHBOARD_TOKEN);

    for (const id of ['jerry', 'fran', 'grif', 'ray']) {
      await expect.poll(() => rowOf(id).getAttribute('data-state')).toBe('awake');
    }
    await expect.poll(() => rowOf('jerry').locator('td.model').textContent()).toContain('2 vCPU · 4 GB · always on');
    expect(await rowOf('fran').locator('td.model').textContent()).toContain('offline');
    expect(await page.locator('.summary').textContent()).toMatch(/4\s*agents/);
    expect(await page.locator('.pairings').textContent()).toContain('Ada');
    await shot('overview');
  });

  it('hibernates and wakes an agent, each confirmed, and the row follows its state', async () => {
    await rowOf('ray').locator('button[data-action=hibernate]').click();
    await confirm();
    await expect.poll(() => rowOf('ray').getAttribute('data-state'), { timeout: 40_000 }).toBe('asleep');
    expect(fleet.supervisor.state('ray')).toBe('hibernating');
    await expect.poll(() => page.locator('#events').textContent()).toContain('Ray is asleep');
    await shot('ray-asleep');

    // Watch every state the row passes through until the runtime is up again.
    const states = new Set<string>();
    // The confirmation note fades after a few seconds, so it is watched in the same loop:
    // on a slow machine the runtime may take longer than that to come up.
    let noted = false;
    await rowOf('ray').locator('button[data-action=wake]').click();
    await confirm();
    await expect
      .poll(
        async () => {
          states.add((await rowOf('ray').getAttribute('data-state')) ?? '');
          noted ||= /Ray is (waking|awake)/.test((await page.locator('#events').textContent()) ?? '');
          return fleet.supervisor.state('ray') === 'running' && states.has('awake') && noted;
        },
        { timeout: 40_000, interval: 100 },
      )
      .toBe(true);
    expect([...states].filter((s) => s !== 'awake')).not.toContain('unhealthy');
  });

  it('approves a pairing request after asking', async () => {
    await page.locator('button[data-approve="QWERTY12"]').click();
    await confirm();
    await expect.poll(async () => (await fleet.cp.pairings.get('fran', '4242'))?.status).toBe('approved');
    await expect.poll(() => page.locator('.pairings').count()).toBe(0);
  });

  it('chats with an agent from its page (one click from the overview) and shows the reply, then the turn in the agent’s activity', async () => {
    await page.click('tr.agent-row[data-agent="grif"] td.who a.chat-link');
    await page.waitForURL(/\/agents\/grif#chat$/);
    expect(await page.locator('#chat .chat-form input[name="text"]').isVisible()).toBe(true);
    // No turns yet, so no key to the split bars.
    expect(await page.locator('table.list').count()).toBe(0);
    expect(await page.locator('p.legend').count()).toBe(0);
    await page.fill('.chat-form input[name="text"]', 'hello from the dashboard');
    await page.press('.chat-form input[name="text"]', 'Enter');
    await expect.poll(() => page.locator('.chat-log .msg.agent').first().textContent(), { timeout: 30_000 }).toContain('hello from the dashboard');
    expect(await page.locator('.chat-log .msg.agent').first().textContent()).toMatch(/^\[offline model — not an AI\]/);
    // The turn's status envelopes reach the metrics store; the refreshed page shows it.
    await expect.poll(() => page.locator('table.list >> text=answered').count()).toBeGreaterThan(0);
    expect(await page.locator('section.card >> text=agent:grif:main').count()).toBeGreaterThan(0);
    // Number columns: the header sits over its right-aligned numbers; the split bars have their key.
    const aligns = await page
      .locator('table.list')
      .first()
      .evaluate((t) =>
        [...t.querySelectorAll('thead th')].map((th, i) => [
          th.textContent,
          getComputedStyle(th).textAlign,
          getComputedStyle(t.querySelectorAll('tbody tr:first-child td')[i]!).textAlign,
        ]),
      );
    const right = (align: string | null | undefined) => align === 'right';
    for (const [name, th, td] of aligns) expect(right(th), `header "${name}" aligned like its cells`).toBe(right(td));
    expect(aligns.filter(([, th]) => th === 'right').map(([name]) => name)).toEqual(['queue wait', 'model', 'tools']);
    await expect.poll(() => page.locator('p.legend').count()).toBe(1);
    // The registry's record reaches the page: when Grif last worked, and its runtime version.
    await expect.poll(() => page.locator('dt:text-is("last work") + dd').textContent()).not.toBe('never');
    expect(await page.locator('dt:text-is("heartbeat") + dd').textContent()).toMatch(/runtime \d+\.\d+\.\d+/);
    await shot('agent-grif');
    // The overview now has a turn in Grif's 24 h chart.
    await page.goto(`${fleet.url}/`);
    await expect.poll(() => rowOf('grif').locator('svg.activity rect.ok').count()).toBeGreaterThan(0);
    await shot('overview-after-chat');
  });

  it('sends a picture from the chat box and shows it in the chat (#16)', async () => {
    await page.goto(`${fleet.url}/agents/grif#chat`);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    await page.setInputFiles('.chat-form input[name="file"]', { name: 'dot.png', mimeType: 'image/png', buffer: png });
    await page.fill('.chat-form input[name="text"]', 'a picture');
    await page.press('.chat-form input[name="text"]', 'Enter');
    const img = page.locator('.chat-log .msg.user .file img[alt="dot.png"]');
    await expect.poll(() => img.count()).toBe(1);
    // The browser loaded it from the chat's own file route: a real picture, one pixel wide.
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(1);
    expect(await page.locator('.chat-log .msg.user').last().textContent()).toContain('a picture');
  });

  it('says plainly when it loses contact with the fleet, greys what it shows, and recovers', async () => {
    const banner = page.locator('#stale');
    const stale = () => page.evaluate(() => document.body.classList.contains('stale'));
    await page.goto(`${fleet.url}/`);
    await expect.poll(() => rowOf('jerry').getAttribute('data-state')).toBe('awake');
    expect(await banner.isVisible()).toBe(false);
    expect(await stale()).toBe(false);

    // The fleet stops answering: every refresh of the live part fails on the network.
    await page.route('**/fragments/**', (route) => route.abort('connectionrefused'));
    await expect.poll(() => banner.textContent()).toMatch(/^Lost contact with the fleet at \d\d:\d\d:\d\d — what you see may be out of date; retrying…/);
    expect(await banner.isVisible()).toBe(true);
    expect(await stale()).toBe(true);
    expect(await page.locator('main').evaluate((el) => getComputedStyle(el).filter)).toContain('grayscale');
    expect(await page.locator('#fresh').textContent()).toMatch(/^out of contact since \d\d:\d\d:\d\d$/);
    await shot('lost-contact');

    // It answers again: the banner and the grey go at the next refresh.
    await page.unroute('**/fragments/**');
    await expect.poll(() => banner.isVisible()).toBe(false);
    expect(await stale()).toBe(false);
    expect(await page.locator('#fresh').textContent()).toMatch(/^updated \d\d:\d\d:\d\d$/);

    // Signed out (as when the token changes): it says so and links to sign-in, which brings it back.
    await browser.context.clearCookies();
    await expect.poll(() => banner.textContent()).toMatch(/^Signed out at \d\d:\d\d:\d\d .*Sign in again$/);
    expect(await stale()).toBe(true);
    await shot('signed-out');
    await banner.locator('a', { hasText: 'Sign in again' }).click();
    await page.waitForURL(/\/login$/);
    await page.fill('#token', DASHBOARD_TOKEN);
    await page.click('button[type=submit]');
    await page.waitForURL(`${fleet.url}/`);
    expect(await banner.isVisible()).toBe(false);
    expect(await stale()).toBe(false);
  });

  it('never sends a secret value in any page, fragment, script or JSON', async () => {
    const admin = readAdminFile(join(dir, 'state'))!.token;
    const secrets = [DASHBOARD_TOKEN, GRAPH_TOKEN, HOOKS_TOKEN, admin];
    // The JSON API as well, signed in with the bearer token.
    for (const path of ['/api/fleet', '/api/fleet/jerry', '/api/fleet/grif/chat?after=0', '/assets/dashboard.js', '/assets/dashboard.css', '/login']) {
      const res = await fetch(`${fleet.url}${path}`, { headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` } });
      expect(res.status).toBe(200);
      seen.push({ url: path, status: res.status, body: `${JSON.stringify(Object.fromEntries(res.headers))}\n${await res.text()}` });
    }
    expect(seen.length).toBeGreaterThan(20);
    for (const { url, body } of seen) for (const secret of secrets) expect(body.includes(secret), `${url} holds a secret value`).toBe(false);
  });
});
