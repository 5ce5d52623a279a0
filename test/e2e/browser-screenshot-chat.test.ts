// A browser screenshot sent to the chat in one step (#19 with #16), end to end in local mode:
// the fleet polls the fake Bot API, the agent's runtime (a real child process, Chromium inside
// bubblewrap behind the guard proxy) opens a page this test serves on 127.0.0.1 and takes a
// screenshot with send: true, and the control plane delivers it as a multipart sendPhoto —
// the bytes the workspace holds, once, with the caption — before the agent's text reply.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { startFleet } from '../support/local-fleet.ts';
import { start as startModel, type FakeModel } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram, type UploadedPart } from '../support/fake-telegram.ts';
import { tempDir } from '../support/temp-dirs.ts';

const TOKEN = '7000000019:AAbrowser-shot-test-token-0123456789';
const MODEL_KEY = 'sk-test-browser-shot-0123456789abcdef';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
let dir: string;
let site: string;
const runtimeLines: Record<string, unknown>[] = [];
const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Test shop</h1><p>Everything on sale.</p>'));

/**
 * The Chromium the e2e setup chose, as a runtime started by the fleet can run it: one the
 * machine has is used as it is; the one unpacked from npm needs its libraries and fonts in its
 * environment, which only a wrapper beside it can give (the fleet passes no environment to a
 * runtime's browser), so a hard-linked copy of its folder gets one.
 */
function chromiumForFleet(): string {
  const chromium = inject('chromium');
  if (Object.keys(chromium.env).length === 0) return chromium.executablePath;
  const from = dirname(chromium.executablePath);
  const to = join(tempDir('cf-chromium-linked-'), 'chromium');
  execFileSync('cp', ['-al', from, to]);
  const moved = (value: string) => value.split(from).join(to);
  // Its fonts.conf names the folder it is in: a file of its own, not the link's target.
  const fonts = join(to, 'fonts.conf');
  const conf = readFileSync(fonts, 'utf8');
  rmSync(fonts);
  writeFileSync(fonts, moved(conf));
  const wrapper = join(to, 'chromium-with-env');
  const exports = Object.entries(chromium.env).map(([k, v]) => `export ${k}='${moved(v)}'\n`);
  writeFileSync(wrapper, `#!/bin/sh\n${exports.join('')}exec '${join(to, 'chromium')}' "$@"\n`);
  chmodSync(wrapper, 0o755);
  return wrapper;
}

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  [tg, model] = await Promise.all([startTelegram({ bots: [{ token: TOKEN, username: 'fran_bot' }] }), startModel({ apiKey: MODEL_KEY })]);
  dir = tempDir('cf-browser-shot-');
  const config = JSON.parse(readFileSync('clawfleet.json', 'utf8'));
  config.agents.list = [
    {
      id: 'fran',
      name: 'Fran',
      default: true,
      secrets: [],
      runtime: { cpus: 1, memoryMb: 2048 },
      tools: { deny: ['exec'], browser: { enabled: true, executablePath: chromiumForFleet() }, web: { fetch: { allowPrivateHosts: ['127.0.0.1'] } } },
    },
  ];
  config.models.providers.openai.baseUrl = model.baseUrls['openai-completions'];
  config.bindings = [{ agentId: 'fran', match: { channel: 'telegram', accountId: 'fran' } }];
  config.channels.telegram = { apiRoot: tg.url, dmPolicy: 'allowlist', allowFrom: ['42'], accounts: { fran: { botTokenSecret: 'FRAN_BOT_TOKEN' } } };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({ 'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: TOKEN }, 'clawfleet/demo/agents/fran': { OPENAI_API_KEY: MODEL_KEY } }),
  );
  fleet = await startFleet({ dir, running: ['fran'], timeoutMs: 60_000, onRuntimeLine: (_agentId, line) => void runtimeLines.push(line) });
});

afterAll(async () => {
  await fleet?.stop();
  await Promise.all([tg?.close(), model?.close(), new Promise((r) => server.close(r))]);
});

describe('a browser screenshot in local mode', () => {
  it('goes to the chat as a photo in the same browser call, once, with its caption', async () => {
    // The browser tool offers it: no send_file call in the script.
    const warnings = runtimeLines.filter((l) => String(l.msg ?? '').startsWith('browser is off'));
    expect(warnings).toEqual([]);
    model.script(
      { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${site}/` } }] },
      { toolCalls: [{ name: 'browser', arguments: { action: 'screenshot', path: 'shots/shop.png', send: true, caption: 'the shop' } }] },
      { text: 'There it is.' },
    );
    tg.pushUpdate(TOKEN, textUpdate({ updateId: 500, chatId: 42, fromId: 42, text: 'show me the shop' }));
    await tg.waitForCalls('sendPhoto', 1, 45_000);
    await expect.poll(() => tg.calls('sendMessage').some((c) => c.params.chat_id === 42 && c.params.text === 'There it is.'), { timeout: 30_000 }).toBe(true);

    const png = readFileSync(join(dir, 'state/workspaces/fran/shots/shop.png'));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const photos = tg.calls('sendPhoto');
    expect(photos).toHaveLength(1);
    expect(photos[0]!.params).toMatchObject({ chat_id: 42, caption: 'the shop' });
    expect(photos[0]!.params.photo as UploadedPart).toEqual({ filename: 'shop.png', size: png.length, type: 'image/png', sha256: sha(png) });
    // What the model was told of the call: saved, and handed over to be sent.
    const told = JSON.stringify(model.requests().at(-1)!.body);
    expect(told).toMatch(
      /screenshot of http:\/\/127\.0\.0\.1:\d+\/ saved to shots\/shop\.png \(\d+ bytes\); photo shop\.png \(\d+ bytes\) handed to the control plane to send/,
    );
  });
});
