// The two other stages proven where they run, as their deployed task definitions run them
// (test/support/task-runner.ts): bram's runtime in the browser stage reads a page with the
// browser tool, its Chromium a tool uid's; olly's runtime in the openclaw stage starts the
// pinned OpenClaw as its managed gateway, as clawfleet-openclaw, which answers a turn through
// the fake model with olly's own key. Both answer a Telegram update through the deployed
// webhook, once.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { OPENCLAW_VERSION } from '../../shared/config/openclaw-release.ts';
import { awsTestEnv } from '../support/aws.ts';
import { writeFigures } from '../support/figures.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { deployImageFleet, type DeployedFleet } from '../support/image-deploy.ts';
import { imageFleetConfig } from '../support/image-fleet.ts';
import { agentTasks, type AgentTasks } from '../support/image-task.ts';
import type { TaskRun } from '../support/task-runner.ts';

const SKIP = inject('imageSkip');
const aws = awsTestEnv();
const TOKENS = {
  fran: '1000030:AAfran-image-bo-token-000000000000',
  bram: '1000031:AAbram-image-bo-token-000000000000',
  olly: '1000032:AAolly-image-bo-token-000000000000',
};
const KEYS = { fran: 'sk-test-fran-image-bo-0123456789', bram: 'sk-test-bram-image-bo-0123456789', olly: 'sk-test-olly-image-bo-0123456789' };
const CHAT = 5003;
/** Only this page says it: the browser's result carries it or the page was never read. */
const PAGE_WORDS = `The lighthouse keeper counts ${crypto.randomUUID().slice(0, 8)} gulls`;

let tg: FakeTelegram;
let model: FakeModel;
let site: Server;
let siteUrl: string;
let fleet: DeployedFleet;
const tasks: TaskRun[] = [];
const workspaces: AgentTasks[] = [];
let updateId = 3000;
const figures: Record<string, unknown> = {};

const OLLY_SAYS = 'hello through the gateway';

/** bram opens the URL it is sent with the browser and says what the result held; olly's gateway is echoed. */
function responder(req: ModelRequest) {
  // OpenClaw's gateway sends context of its own after the user's words: echo what olly was told.
  if (req.headers.authorization === `Bearer ${KEYS.olly}`)
    return { text: JSON.stringify(req.body).includes(OLLY_SAYS) ? `echo: ${OLLY_SAYS}` : 'nothing to echo' };
  const messages = (req.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const last = messages.at(-1);
  const open = /open (http\S+)/.exec(req.lastUserText);
  if (last?.role === 'tool' && open) return { text: `page: ${typeof last.content === 'string' ? last.content : JSON.stringify(last.content)}` };
  if (open) return { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: open[1]! } }] };
  return { text: `echo: ${req.lastUserText}` };
}

async function say(agentId: 'bram' | 'olly', text: string): Promise<void> {
  const res = await fleet.postUpdate(agentId, TOKENS[agentId], textUpdate({ updateId: ++updateId, chatId: CHAT, fromId: CHAT, text }));
  expect(res.status).toBe(200);
}

const sent = (token: string) => tg.calls('sendMessage').filter((c) => c.token === token);

describe.skipIf(SKIP)(
  SKIP ? `the browser and openclaw stages, run — SKIPPED: ${SKIP}` : 'the browser and openclaw stages, run as their task definitions say',
  () => {
    beforeAll(async () => {
      site = createServer((_req, res) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Coast</title><h1>Coast</h1><p>${PAGE_WORDS}</p>`),
      );
      await new Promise<void>((r) => site.listen(0, '127.0.0.1', r));
      siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
      tg = await startTelegram({ bots: Object.values(TOKENS).map((token) => ({ token })) });
      model = await startModel({ responder });
      fleet = await deployImageFleet(
        aws,
        imageFleetConfig({
          stages: ['browser', 'openclaw'],
          modelBaseUrl: model.baseUrls['openai-completions'],
          telegramApiRoot: tg.url,
          allowFrom: [String(CHAT)],
          pageHosts: ['127.0.0.1'],
        }),
        // One registry image for every agent in an emulator deploy; each task below runs its own stage.
        inject('images').runtime.tag,
        {
          telegram: { FRAN_BOT_TOKEN: TOKENS.fran, BRAM_BOT_TOKEN: TOKENS.bram, OLLY_BOT_TOKEN: TOKENS.olly },
          'agent:fran': { OPENAI_API_KEY: KEYS.fran },
          'agent:bram': { OPENAI_API_KEY: KEYS.bram },
          'agent:olly': { OPENAI_API_KEY: KEYS.olly },
        },
      );
    }, 600_000);

    afterAll(async () => {
      for (const t of tasks) await t.remove();
      for (const w of workspaces) w.remove();
      fleet?.remove();
      await tg?.close();
      await model?.close();
      await new Promise<void>((r) => (site ? site.close(() => r()) : r()));
      writeFigures('image-browser-openclaw', figures);
    });

    it('reads a page with the browser tool inside the browser stage, Chromium running as a tool uid', async () => {
      const bram = await agentTasks(aws, fleet, 'bram', inject('images').browser.tag, [Number(new URL(model.url).port), Number(new URL(siteUrl).port)]);
      workspaces.push(bram);
      const task = await bram.start();
      tasks.push(task);
      figures.browserStartToReadyMs = task.startMs;
      const started = performance.now();
      await say('bram', `open ${siteUrl}`);
      await expect
        .poll(() => sent(TOKENS.bram).map((c) => String(c.params.text)), { timeout: 180_000, interval: 500 })
        .toContainEqual(expect.stringContaining(PAGE_WORDS));
      figures.browserUpdateToReplyMs = Math.round(performance.now() - started);
      expect(sent(TOKENS.bram)).toHaveLength(1);
      // Chromium is still up (it stops after idleMinutes): every one of its processes a tool uid's.
      const chromium = (await task.processes()).filter((p) => p.comm.startsWith('chrom'));
      expect(chromium.length).toBeGreaterThan(0);
      for (const p of chromium) expect(p.uid, `${p.comm} (pid ${p.pid})`).toBeGreaterThanOrEqual(20001);
      for (const p of chromium) expect(p.uid, `${p.comm} (pid ${p.pid})`).toBeLessThanOrEqual(20032);
      figures.chromiumProcesses = chromium.length;
    });

    it('starts the pinned OpenClaw as its gateway inside the openclaw stage, as its own user, and the gateway answers a turn', async () => {
      const olly = await agentTasks(aws, fleet, 'olly', inject('images').openclaw.tag, [Number(new URL(model.url).port)]);
      // The gateway takes ~30 s to start on two shared cores, longer in a 1-vCPU task.
      workspaces.push(olly);
      const task = await olly.start({ readyTimeoutMs: 480_000 });
      tasks.push(task);
      figures.openclawStartToReadyMs = task.startMs;
      const started = performance.now();
      await say('olly', OLLY_SAYS);
      await expect.poll(() => sent(TOKENS.olly).map((c) => c.params.text), { timeout: 240_000, interval: 500 }).toContainEqual(`echo: ${OLLY_SAYS}`);
      figures.openclawUpdateToReplyMs = Math.round(performance.now() - started);
      expect(sent(TOKENS.olly)).toHaveLength(1);
      // The gateway called the model with olly's own key.
      const asked = model.requests().filter((r) => JSON.stringify(r.body).includes(OLLY_SAYS));
      expect(asked.length).toBeGreaterThan(0);
      for (const r of asked) expect(r.headers.authorization).toBe(`Bearer ${KEYS.olly}`);
      expect(task.lines).toContainEqual(expect.objectContaining({ msg: 'ready' }));
      expect(JSON.stringify(task.lines)).toContain(OPENCLAW_VERSION);
      // Its processes run as clawfleet-openclaw (20100), not root.
      const gateway = (await task.processes()).filter((p) => p.uid === 20100);
      expect(gateway.length).toBeGreaterThan(0);
    }, 900_000);
  },
);
