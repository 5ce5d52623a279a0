// The dashboard on a phone (390 px wide) and a laptop (1280 × 800), in a real browser against
// `npm start`'s fleet run in-process: the example fleet with one agent warning (exec without a
// sandbox), one whose runtime was killed (its last error), one asleep, a pairing request and a
// chat long enough to scroll. Nothing scrolls sideways at any width; on an agent's page the
// chat is on the first screen; the chat log's top bubble is whole; the file picker is a small
// button; table headers stay on one line; every character drawn has a glyph in the page's
// fonts (the npm Chromium the tests may use has one font and no emoji). The pictures in docs/
// are taken here (docs-screenshot.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { startFleet, untilRunning } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { launchChromium } from './browser.ts';
import { docsScreenshot } from './docs-screenshot.ts';
import { pendingPairing } from '../support/pending-pairing.ts';

const DASHBOARD_TOKEN = 'dash-layout-token-3e8b1f0c7a2d4c95';
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1280, height: 800 };

/** Grif's side of the chat, by what it was asked. */
const ANSWERS: Record<string, string> = {
  "What's on tomorrow?": 'Tomorrow: stand-up at 9:30, lunch with Sam at 12:00, the dentist at 15:00. Shall I remind you before the dentist?',
  'Yes, at 14:30 please.': 'Done — I will message you at 14:30.',
  'Find a quiet café near the office for Friday?':
    'Three within ten minutes’ walk that reviewers call quiet:\n1. Tamp & Co — opens 7:30, big tables\n2. Paper Moon — no music, good Wi-Fi\n3. Grounds — small, but has a garden\nWant me to book a table?',
};

let model: FakeModel;
let fleet: LocalFleet;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;

beforeAll(async () => {
  model = await startModel({ responder: (r) => ({ text: ANSWERS[r.lastUserText] ?? 'Noted.' }) });
  const dir = tempDir('cf-dash-layout-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.models.providers.anthropic.baseUrl = model.baseUrls['anthropic-messages'];
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  // Jerry's exec runs without a sandbox: the overview marks the warning.
  config.agents.list[0].tools = { exec: { sandbox: 'off' } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  const keys = { OPENAI_API_KEY: 'sk-layout-openai-0123456789', ANTHROPIC_API_KEY: 'sk-ant-layout-0123456789' };
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/dashboard': { DASHBOARD_TOKEN },
      ...Object.fromEntries(['jerry', 'fran', 'grif', 'ray'].map((id) => [`clawfleet/demo/agents/${id}`, keys])),
    }),
  );
  fleet = await startFleet({ dir, running: 'all', timeoutMs: 60_000 });
  await fleet.cp.pairings.createPending(pendingPairing({ accountId: 'fran', peerId: '4242', displayName: 'Ada', code: 'QWERTY12' }));
  // Fran's runtime dies once (its last error) and is started again; Ray is put to sleep.
  process.kill(fleet.supervisor.pid('fran')!, 'SIGKILL');
  await vi.waitFor(() => expect(fleet.supervisor.info('fran').restarts).toBe(1), { timeout: 60_000, interval: 100 });
  await untilRunning(fleet, ['fran'], 60_000);
  const slept = await fetch(`${fleet.url}/api/fleet/ray/hibernate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${DASHBOARD_TOKEN}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(slept.status).toBe(200);

  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize(LAPTOP);
  await page.goto(`${fleet.url}/login`);
  await page.fill('#token', DASHBOARD_TOKEN);
  await page.click('button[type=submit]');
  await page.waitForURL(`${fleet.url}/`);

  // A chat with Grif long enough to scroll, /status among it (the control plane's answer starts with 🤖).
  await page.goto(`${fleet.url}/agents/grif`);
  const said = ["What's on tomorrow?", 'Yes, at 14:30 please.', '/status', 'Find a quiet café near the office for Friday?'];
  for (const [i, text] of said.entries()) {
    await page.fill('.chat-form input[name="text"]', text);
    await page.press('.chat-form input[name="text"]', 'Enter');
    await vi.waitFor(async () => expect(await page.locator('.chat-log .msg.agent:not(.draft)').count()).toBe(i + 1), { timeout: 60_000, interval: 100 });
  }
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
  await model?.close();
});

/** Opens a page at a size and waits for its first refresh, so it shows what a person would see. */
async function open(path: string, size: { width: number; height: number }): Promise<void> {
  await page.setViewportSize(size);
  await page.goto(`${fleet.url}${path}`);
  await expect.poll(() => page.locator('#fresh').textContent()).toMatch(/^updated /);
}

const sidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Headers of the fleet table (those shown) that take more than one line. */
const wrappedHeaders = () =>
  page.locator('table.fleet thead th').evaluateAll((ths) =>
    ths
      .filter((th) => th.textContent && th.getClientRects().length)
      .filter((th) => {
        const range = document.createRange();
        range.selectNodeContents(th);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
      })
      .map((th) => th.textContent),
  );

/** Characters drawn on the page that its fonts have no glyph for: drawn, they look like a character no font has. */
const missingGlyphs = () =>
  page.evaluate(() => {
    const draw = (font: string, text: string) => {
      const canvas = document.createElement('canvas');
      canvas.width = 48;
      canvas.height = 32;
      const g = canvas.getContext('2d')!;
      g.font = font;
      g.fillText(text, 8, 22);
      return canvas.toDataURL();
    };
    const missing = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement!;
      if (!el.getClientRects().length) continue;
      const font = getComputedStyle(el).font;
      const nothing = draw(font, '\u{10FFFD}');
      for (const ch of node.textContent ?? '') if (ch > '\x7f' && !/\s/u.test(ch) && draw(font, ch) === nothing) missing.add(ch);
    }
    return [...missing];
  });

describe('the dashboard on a phone and a laptop', () => {
  it('shows the fleet on a phone as one card per agent, nothing scrolling sideways', async () => {
    await open('/', PHONE);
    await expect.poll(() => page.locator('tr.agent-row[data-agent="ray"]').getAttribute('data-state')).toBe('asleep');
    expect(await sidewaysScroll()).toBe(0);
    // A card: the figures under their labels, the last error in full.
    const fran = page.locator('tr.agent-row[data-agent="fran"]');
    expect(await fran.locator('td.err-cell').textContent()).toBe('runtime exited (SIGKILL)');
    expect(await fran.locator('td.q').evaluate((td) => getComputedStyle(td, '::before').content)).toBe('"queue"');
    expect(await page.locator('table.fleet thead').isVisible()).toBe(false);
    await docsScreenshot('dashboard-phone.png', import.meta.url, () => page.screenshot());
  });

  it('shows the fleet on a laptop as one row per agent, every header on one line', async () => {
    await open('/', LAPTOP);
    await expect.poll(() => page.locator('tr.agent-row[data-agent="jerry"] .warn-mark').textContent()).toContain('1 warning');
    expect(await sidewaysScroll()).toBe(0);
    expect(await wrappedHeaders()).toEqual([]);
    await docsScreenshot('dashboard.png', import.meta.url, () => page.screenshot());
  });

  it('puts the chat on the first screen of an agent’s page, on a laptop and on a phone', async () => {
    for (const [size, picture] of [
      [LAPTOP, 'dashboard-agent.png'],
      [PHONE, 'dashboard-agent-phone.png'],
    ] as const) {
      await open('/agents/grif', size);
      expect(await sidewaysScroll(), `${size.width} px`).toBe(0);
      const chat = (await page.locator('#chat').boundingBox())!;
      expect(chat.y, `${size.width} px`).toBeGreaterThanOrEqual(0);
      expect(chat.y + chat.height, `${size.width} px`).toBeLessThanOrEqual(size.height);
      expect(chat.x + chat.width, `${size.width} px`).toBeLessThanOrEqual(size.width);
      // The agent's name and actions above it.
      expect((await page.locator('.agent-head').boundingBox())!.y).toBeLessThan(chat.y);
      await docsScreenshot(picture, import.meta.url, () => page.screenshot());
    }
  });

  it('never cuts the top bubble of the chat log', async () => {
    for (const size of [LAPTOP, PHONE]) {
      await open('/agents/grif', size);
      await expect.poll(() => page.locator('.chat-log .msg').count()).toBe(8);
      const log = page.locator('.chat-log');
      // Long enough to scroll, so the log's top edge has to fall somewhere.
      expect(await log.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
      const top = () =>
        log.evaluate((el) => {
          const edge = el.getBoundingClientRect().top + el.clientTop;
          const first = [...el.children].map((m) => m.getBoundingClientRect()).find((r) => r.bottom > edge + 0.5)!;
          return { hiddenAbove: edge - first.top };
        });
      await expect.poll(async () => (await top()).hiddenAbove, { message: `${size.width} px` }).toBeLessThanOrEqual(0.5);
    }
  });

  it('keeps the file picker to a small button beside the message box', async () => {
    for (const size of [LAPTOP, PHONE]) {
      await open('/agents/grif', size);
      const row = (await page.locator('.chat-form').boundingBox())!.width;
      const picker = (await page.locator('.chat-form .attach').boundingBox())!.width;
      const text = (await page.locator('.chat-form input[name="text"]').boundingBox())!.width;
      expect(picker / row, `${size.width} px`).toBeLessThan(0.15);
      expect(text / row, `${size.width} px`).toBeGreaterThan(0.5);
    }
  });

  it('scrolls nowhere sideways and wraps no header at any width from a phone to a wide screen', async () => {
    // A last error as long as a model API's can be, unbroken in places (after the pictures: it would crowd them).
    fleet.cp.status.error(
      'ray',
      `model error: 429 rate_limit_exceeded for https://api.example.com/v1/chat/completions?organization=${'x'.repeat(80)} ${'and so on, '.repeat(30)}`,
      Date.now(),
    );
    for (const path of ['/', '/agents/grif', '/agents/ray']) {
      await open(path, PHONE);
      if (path === '/') expect(await page.locator('tr.agent-row[data-agent="ray"] td.err-cell').textContent()).toContain('rate_limit_exceeded');
      for (const width of [320, 390, 480, 640, 760, 761, 900, 1024, 1100, 1101, 1280, 1600]) {
        await page.setViewportSize({ width, height: 800 });
        expect(await sidewaysScroll(), `${path} at ${width} px`).toBe(0);
        expect(await wrappedHeaders(), `${path} at ${width} px`).toEqual([]);
      }
    }
  });

  it('draws every character with a glyph its fonts have (marks for ⚠, 🤖 and the like)', async () => {
    for (const path of ['/', '/agents/jerry', '/agents/grif']) {
      await open(path, LAPTOP);
      expect(await missingGlyphs(), path).toEqual([]);
    }
    // The marks stand where the symbols were: the warning sign, the robot of /status.
    await open('/', LAPTOP);
    expect(await page.locator('tr.agent-row[data-agent="jerry"] .warn-mark .mark-warn').count()).toBe(1);
    await open('/agents/grif', LAPTOP);
    expect(await page.locator('.chat-log .msg.agent .mark[aria-label="robot"]').count()).toBe(1);
  });
});
