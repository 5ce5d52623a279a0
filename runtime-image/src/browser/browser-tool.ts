// The `browser` tool: one tool with an action, as OpenClaw's — navigate, snapshot, click,
// type, screenshot, close — over the agent's one browser (agent-browser.ts). Every page it
// shows the model is untrusted content; a navigation is vetted by the fetch guard before
// Chromium is asked, and everything the page loads after that passes the guard proxy.
import { z } from 'zod';
import { WorkspaceDir } from '../../../shared/adapters/fs/beneath.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import { vetUrl, type FetchPolicy, type Resolve } from '../net/fetch-guard.ts';
import { defineTool, type AgentTool, type ToolResult } from '../tools/tool.ts';
import type { AgentBrowser } from './agent-browser.ts';
import { REFUSED_HEADER } from './guard-proxy.ts';
import { SNAPSHOT_ATTR, snapshotInPage } from './page-snapshot.ts';

const Ref = z.string().regex(/^e\d{1,6}$/, 'must be a reference from the last snapshot, like "e12"');
const ACTION_TIMEOUT_MS = 10_000;
const NAVIGATION_TIMEOUT_MS = 30_000;
const MAX_SNAPSHOT_LINES = 400;

export interface BrowserToolOptions {
  browser: AgentBrowser;
  workspace: string;
  policy: FetchPolicy;
  resolve?: Resolve | undefined;
  clock: { now(): number };
  /** send_file, where the agent has it: a screenshot with `send: true` goes to the chat in the same call. */
  sendFile?: AgentTool | undefined;
}

export function browserTool(o: BrowserToolOptions): AgentTool {
  const describePage = async (prefix: string): Promise<ToolResult> => {
    const { page } = await o.browser.page();
    await page.waitForLoadState('domcontentloaded', { timeout: ACTION_TIMEOUT_MS }).catch(() => {});
    const snapshot = await page.evaluate(snapshotInPage, { attr: SNAPSHOT_ATTR, maxLines: MAX_SNAPSHOT_LINES });
    const downloads = await o.browser.takeDownloads();
    const saved = downloads.length > 0 ? `\n(downloaded into the workspace: ${downloads.join(', ')})` : '';
    return {
      text: `${prefix}${saved}\n\n${snapshot || '(the page shows no text)'}`,
      untrusted: { source: 'browser', meta: { url: page.url(), title: (await page.title()).slice(0, 200) } },
    };
  };

  const send = o.sendFile;
  const screenshot = send
    ? z.strictObject({
        action: z.literal('screenshot'),
        path: z.string().min(1).max(500).optional(),
        fullPage: z.boolean().optional(),
        send: z.boolean().optional().describe('Also send the screenshot to the user in this chat, as a photo'),
        caption: z.string().max(1024).optional().describe('Text shown with the photo sent'),
      })
    : z.strictObject({ action: z.literal('screenshot'), path: z.string().min(1).max(500).optional(), fullPage: z.boolean().optional() });

  return defineTool({
    name: 'browser',
    description: `Drive a headless web browser (public addresses only). action "navigate" {url} opens a page; "snapshot" shows the page as text with references like [e12]; "click" {ref} and "type" {ref, text, submit?} act on an element; ${
      send
        ? '"screenshot" {path?, fullPage?, send?, caption?} saves a PNG in your workspace, and with send: true also sends it to the user in this chat as a photo (no separate send_file call needed)'
        : '"screenshot" {path?, fullPage?} saves a PNG in your workspace'
    }; "close" ends the browser. Downloads are saved in downloads/.`,
    schema: z.discriminatedUnion('action', [
      z.strictObject({ action: z.literal('navigate'), url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }) }),
      z.strictObject({ action: z.literal('snapshot') }),
      z.strictObject({ action: z.literal('click'), ref: Ref }),
      z.strictObject({ action: z.literal('type'), ref: Ref, text: z.string().max(10_000), submit: z.boolean().optional() }),
      screenshot,
      z.strictObject({ action: z.literal('close') }),
    ]),
    async run(args, ctx) {
      if (args.action === 'close') {
        await o.browser.stop();
        return 'browser closed';
      }
      // The idle clock waits for the call to end (AgentBrowser.use).
      return o.browser.use(async (): Promise<ToolResult | string> => {
        if (args.action === 'navigate') {
          try {
            // Refused here with the guard's own words, before Chromium is even started.
            await vetUrl(new URL(args.url), o.policy, o.resolve);
          } catch (err) {
            if (err instanceof ClawfleetError) return { text: err.message, isError: true };
            throw err;
          }
          const { page, proxy } = await o.browser.page();
          const before = proxy.refusals.length;
          try {
            const res = await page.goto(args.url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
            // A redirect to a refused address: the proxy's 403 is the page Chromium got.
            if (res?.headers()[REFUSED_HEADER]) return { text: `navigation to ${args.url} failed: ${proxy.refusals.at(-1) ?? 'refused'}`, isError: true };
            return await describePage(`opened ${page.url()}${res ? ` (${res.status()})` : ''}`);
          } catch (err) {
            const refused = proxy.refusals.slice(before);
            const why = refused.length > 0 ? refused.at(-1)! : (err as Error).message.split('\n')[0]!;
            return { text: `navigation to ${args.url} failed: ${why}`, isError: true };
          }
        }
        if (args.action === 'snapshot') return describePage('page');
        const { page } = await o.browser.page();
        if (args.action === 'screenshot') {
          const path = args.path ?? `screenshots/${new Date(o.clock.now()).toISOString().replace(/[:.]/g, '-')}.png`;
          if (!path.toLowerCase().endsWith('.png')) return { text: 'path must end in .png', isError: true };
          const png = await page.screenshot({ fullPage: args.fullPage ?? false, timeout: ACTION_TIMEOUT_MS });
          new WorkspaceDir(o.workspace).writeAtomic(path, png);
          const saved = `screenshot of ${page.url()} saved to ${path} (${png.length} bytes)`;
          // send and caption are in the schema only where send_file is offered.
          const { send: wanted, caption } = args as { send?: boolean; caption?: string };
          if (!send || !wanted) return saved;
          // The same call as send_file's own, so the same checks, key and envelope.
          const request = send.parse({ path, kind: 'photo', ...(caption ? { caption } : {}) });
          if (!request.ok) return { text: `${saved}; not sent: ${request.error}`, isError: true };
          const sent = await send.run(request.value, ctx);
          return sent.isError ? { text: `${saved}; not sent: ${sent.text}`, isError: true } : `${saved}; ${sent.text}`;
        }
        const target = page.locator(`[${SNAPSHOT_ATTR}="${args.ref}"]`);
        if ((await target.count()) === 0) return { text: `no element ${args.ref} on the page now; take a snapshot for current references`, isError: true };
        if (args.action === 'click') {
          await target.click({ timeout: ACTION_TIMEOUT_MS });
          return describePage(`clicked ${args.ref}; now at ${page.url()}`);
        }
        await target.fill(args.text, { timeout: ACTION_TIMEOUT_MS });
        if (args.submit) await target.press('Enter', { timeout: ACTION_TIMEOUT_MS });
        return describePage(`typed into ${args.ref}${args.submit ? ' and pressed Enter' : ''}; now at ${page.url()}`);
      });
    },
  });
}
