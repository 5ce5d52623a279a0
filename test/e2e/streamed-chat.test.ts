// A streamed turn in the dashboard chat, in a real browser against `npm start`'s fleet run
// in-process: the model (the fake OpenAI-compatible server, writing a few words at a time)
// streams, the runtime sends drafts, the control plane shows them in the chat as a growing
// bubble, and the final reply replaces it. The screenshot of the growing answer is the one
// README.md shows (docs/dashboard-streaming.png, see docs-screenshot.ts). Then the agent's
// inline buttons in the same chat: a press reaches the agent as a Telegram button press would.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { startFleet } from '../support/local-fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { ARTIFACTS, launchChromium } from './browser.ts';
import { docsScreenshot } from './docs-screenshot.ts';

const DASHBOARD_TOKEN = 'dash-stream-token-5c1d9e7a3b2f4e60';
const ANSWER =
  'Here is a plan for **Saturday**:\n\n1. Coffee at the market at 9\n2. A walk along the river, about an hour\n3. Lunch at the noodle place you liked\n4. A nap — you earned it\n\nWant me to put it in your calendar?';

let fleet: LocalFleet;
let model: FakeModel;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let page: Page;

beforeAll(async () => {
  model = await startModel({ apiKey: 'sk-stream-test-key-0123456789' });
  model.setResponder(() => ({ text: ANSWER, frameDelayMs: 180 }));
  const dir = tempDir('cf-stream-e2e-');
  writeFileSync(
    join(dir, 'clawfleet.json'),
    JSON.stringify({
      fleet: 'demo',
      agents: { list: [{ id: 'fran', name: 'Fran', model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }] },
      models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
    }),
  );
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/control/dashboard': { DASHBOARD_TOKEN },
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: 'sk-stream-test-key-0123456789' },
    }),
  );
  fleet = await startFleet({ dir, running: ['fran'], timeoutMs: 60_000 });
  browser = await launchChromium();
  page = browser.context.pages()[0] ?? (await browser.context.newPage());
  await page.setViewportSize({ width: 1100, height: 760 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
  await model?.close();
});

describe('a streamed turn in the dashboard chat', () => {
  it('shows the answer growing while the model writes, then the reply in its place', async () => {
    await page.goto(`${fleet.url}/`);
    await page.waitForURL(/\/login$/);
    await page.fill('#token', DASHBOARD_TOKEN);
    await page.click('button[type=submit]');
    await page.goto(`${fleet.url}/agents/fran#chat`);
    await page.fill('.chat-form input', 'Plan my Saturday?');
    await page.press('.chat-form input', 'Enter');

    // The draft grows: at least two different texts seen, each a start of the answer.
    const draft = page.locator('.chat-log .msg.draft');
    await draft.waitFor({ state: 'visible', timeout: 30_000 });
    const first = (await draft.textContent()) ?? '';
    await expect.poll(async () => ((await draft.textContent().catch(() => '')) ?? '').length, { timeout: 30_000 }).toBeGreaterThan(first.length + 20);
    expect(await page.locator('.typing').textContent()).toBe('writing…');
    await docsScreenshot('dashboard-streaming.png', import.meta.url, () => page.locator('#chat').screenshot());

    // The reply lands once, and the draft is gone.
    await expect.poll(() => page.locator('.chat-log .msg.agent:not(.draft)').count(), { timeout: 30_000 }).toBe(1);
    expect(await draft.count()).toBe(0);
    expect(await page.locator('.chat-log .msg.agent').textContent()).toContain('Want me to put it in your calendar?');
  });

  it('shows the agent’s inline buttons under its reply; a press reaches the agent in the same session, as a Telegram press would', async () => {
    // The agent attaches buttons with its tool, then answers; the press's turn gets the plan.
    model.script(
      {
        toolCalls: [
          {
            name: 'reply_buttons',
            arguments: {
              rows: [
                [
                  { text: 'Saturday', data: 'day:sat' },
                  { text: 'Sunday', data: 'day:sun' },
                ],
              ],
            },
          },
        ],
      },
      { text: 'Which day?' },
    );
    const before = model.requests().length;
    await page.fill('.chat-form input', 'Plan my weekend?');
    await page.press('.chat-form input', 'Enter');
    const sunday = page.locator('.chat-log .msg.agent .buttons button', { hasText: 'Sunday' });
    await sunday.waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.locator('.chat-log .msg.agent .buttons button').allTextContents()).toEqual(['Saturday', 'Sunday']);
    await page.locator('#chat').screenshot({ path: join(ARTIFACTS, 'dashboard-buttons.png') });

    await sunday.click();
    // The press as the user's line, its 🔘 drawn as a mark (the page's font may have no glyph for it).
    await page.locator('.chat-log .msg.user', { hasText: 'Sunday' }).locator('.mark[aria-label="button"]').waitFor();
    const press = (await model.waitForRequests(before + 3, 30_000)).at(-1)!;
    // The words a Telegram press becomes, with the button's data, in the session that asked.
    expect(press.lastUserText).toBe('[Button pressed] day:sun');
    expect(JSON.stringify(press.body)).toContain('Which day?');
    expect(JSON.stringify(press.body)).toContain('Plan my Saturday?');
    await expect.poll(() => page.locator('.chat-log .msg.agent:not(.draft)').count(), { timeout: 30_000 }).toBe(3);

    // A press the agent never offered (a user's line, a button that is not there) is refused, and reaches nobody.
    const forged = await page.evaluate(async () => {
      const post = (body: unknown) =>
        fetch('/api/fleet/fran/chat/press', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
          credentials: 'same-origin',
        });
      return [
        (await post({ seq: 1, row: 0, column: 0 })).status,
        (await post({ seq: 99, row: 0, column: 0 })).status,
        (await post({ seq: 1, data: 'x' })).status,
      ];
    });
    expect(forged).toEqual([400, 400, 400]);
    expect(model.requests()).toHaveLength(before + 3);
  });
});
