// A file the agent sends, shown in the dashboard's chat in a real browser (#16): the agent's
// runtime (a real child process, its model the fake model server scripting send_file) puts a
// picture and a document under its own out/ prefix, and the chat page shows the picture,
// loaded from the chat's file route, and a link that downloads the document.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { writeAgentFile } from '../support/agent-files.ts';
import { startFleet } from '../support/local-fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { ARTIFACTS, launchChromium } from './browser.ts';
import { tempDir } from '../support/temp-dirs.ts';

const DASHBOARD_TOKEN = 'dash-e2e-file-token-5c2a7e9b1d3f4a60';
const MODEL_KEY = 'sk-test-dash-file-0123456789abcdef';
/** A real one-pixel PNG: the browser must decode it to give it a width. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
let fleet: LocalFleet;
let model: FakeModel;
let dir: string;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;

beforeAll(async () => {
  model = await startModel({ apiKey: MODEL_KEY });
  dir = tempDir('cf-dash-file-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list = [{ id: 'fran', name: 'Fran', default: true }];
  config.bindings = [];
  delete config.channels;
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({ 'clawfleet/demo/control/dashboard': { DASHBOARD_TOKEN }, 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY } }),
  );
  fleet = await startFleet({ dir, running: ['fran'], timeoutMs: 60_000 });
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
  await model?.close();
});

describe('a file the agent sends, in the dashboard chat', () => {
  it('shows a picture the agent sent with send_file, and a document as a link that downloads it', async () => {
    const workspace = join(dir, 'state/workspaces/fran');
    writeAgentFile(workspace, 'dot.png', PNG);
    writeAgentFile(workspace, 'notes.txt', 'the notes');
    model.script(
      {
        toolCalls: [
          { name: 'send_file', arguments: { path: 'dot.png', caption: 'your picture' } },
          { name: 'send_file', arguments: { path: 'notes.txt' } },
        ],
      },
      { text: 'Sent both.' },
    );
    await page.goto(`${fleet.url}/`);
    await page.waitForURL(/\/login$/);
    await page.fill('#token', DASHBOARD_TOKEN);
    await page.click('button[type=submit]');
    await page.goto(`${fleet.url}/agents/fran#chat`);
    await page.fill('.chat-form input[name="text"]', 'send me the picture');
    await page.press('.chat-form input[name="text"]', 'Enter');
    const img = page.locator('.chat-log .msg.agent .file img[alt="dot.png"]');
    await expect.poll(() => img.count(), { timeout: 30_000 }).toBe(1);
    // Loaded from the chat's own file route and decoded: a real picture, one pixel wide.
    await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(1);
    expect(await img.getAttribute('src')).toMatch(/^\/api\/chat\/fran\/files\?key=agents%2Ffran%2Fout%2F/);
    expect(await page.locator('.chat-log .msg.agent', { has: page.locator('.file img[alt="dot.png"]') }).textContent()).toContain('your picture');
    const link = page.locator('.chat-log .msg.agent .file a[download="notes.txt"]');
    await expect.poll(() => link.count()).toBe(1);
    const download = await page.request.get(`${fleet.url}${await link.getAttribute('href')}`);
    expect(await download.text()).toBe('the notes');
    await expect.poll(() => page.locator('.chat-log .msg.agent').last().textContent()).toBe('Sent both.');
    await page.screenshot({ path: join(ARTIFACTS, 'dashboard-agent-file.png'), fullPage: true });
  });
});
