// Issue #27's race, as the attacker ran it: a real local fleet (runtimes as child processes,
// exec in bubblewrap), agents alpha and beta, two people talking to alpha over Telegram at once
// (dmScope per-channel-peer, so their turns run side by side). Ann's turn runs exec with a shell
// loop that keeps swapping <alpha's workspace>/d/m between a real folder and a symlink to "/";
// Bob's turns hammer read, write and send_file at d/m/<the secrets file>, d/m/<state>/admin.json
// and d/m/<state>/workspaces/beta/… — thousands of calls, a hundred a model response. The
// symlink is made inside the sandbox but resolved by the runtime on the host: that is the
// attack. Nothing may leak: no secret value or admin token in any tool result, model request,
// transcript, log or Telegram message, no secret file uploaded, nothing written into beta's
// workspace or anywhere outside alpha's. And the test must not be vacuous: the swapper counts
// its swaps, and calls must have succeeded while the folder was real.
import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAdminFile } from '../../local/admin-file.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { memoryLogger } from '../../shared/log.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { writeFigures } from '../support/figures.ts';
import { writeAgentFile } from '../support/agent-files.ts';
import { filesUnder, newToolResults, sha256Hex, SWAPPER } from '../support/path-swap-race.ts';
import { agentKeySecrets, startFleet, writeFleetFiles } from '../support/local-fleet.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { tempDir } from '../support/temp-dirs.ts';

const TOKEN = '7000000027:AArace-test-bot-token-0123456789abcdef';
const KEYS = { alpha: 'sk-race-alpha-model-key-0123456789abcdef', beta: 'sk-race-beta-model-key-0123456789abcdef0' };
const HOOKS_TOKEN = 'hooks-race-token-0123456789abcdef0123';
const BETA_DIARY = 'beta-private-diary-0123456789abcdef';
const ANN = 42;
const BOB = 43;
/** Bob's turns, model responses per turn and calls per response: 10 × 5 × 100 = 5,000 calls. */
const TURNS = 10;
const ROUNDS = 5;
const CALLS = 100;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
let dir: string;
let state: string;
let secretsPath: string;
let alphaWs: string;
let betaWs: string;
const runtimeLines: string[] = [];
const log = memoryLogger();

/** One response's worth of Bob's calls: each target, over and over, plus a file in the real folder. */
function hammerCalls(turn: number, round: number): { name: string; arguments: Record<string, unknown> }[] {
  const targets = [
    { name: 'read', arguments: { path: `d/m${secretsPath}` } },
    { name: 'read', arguments: { path: `d/m${state}/admin.json` } },
    { name: 'read', arguments: { path: `d/m${betaWs}/diary.md` } },
    { name: 'send_file', arguments: { path: `d/m${secretsPath}` } },
    { name: 'send_file', arguments: { path: `d/m${state}/admin.json` } },
    { name: 'write', arguments: { path: `d/m${betaWs}/pwned-${turn}-${round}.md`, content: 'pwned' } },
    { name: 'read', arguments: { path: 'd/m/inside.txt' } },
  ];
  return Array.from({ length: CALLS }, (_, i) => targets[i % targets.length]!);
}

function responder(req: ModelRequest) {
  const messages = (req.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const text = (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  const lastUser = messages.map((m, i) => ({ m, i })).findLast(({ m }) => m.role === 'user');
  const asked = lastUser ? text(lastUser.m) : '';
  const after = lastUser ? messages.slice(lastUser.i + 1) : [];
  if (asked.includes('please swap')) {
    if (after.some((m) => m.role === 'tool')) return { text: `swapper done: ${text(after.at(-1)!).slice(0, 200)}` };
    return { toolCalls: [{ name: 'exec', arguments: { command: SWAPPER, timeoutSeconds: 600 } }] };
  }
  const hammer = /please hammer (\d+)/.exec(asked);
  if (hammer) {
    const round = after.filter((m) => m.role === 'assistant').length;
    if (round < ROUNDS) return { toolCalls: hammerCalls(Number(hammer[1]), round) };
    return { text: `hammered ${hammer[1]}` };
  }
  // A summary or memory flush the runtime asks for on its own.
  return { text: 'nothing to note' };
}

let updateId = 1000;
const say = (from: number, text: string) => tg.pushUpdate(TOKEN, textUpdate({ updateId: ++updateId, chatId: from, fromId: from, text }));
const sentTo = (chat: number, text: string) =>
  expect
    .poll(() => tg.calls('sendMessage').some((c) => c.params.chat_id === chat && String(c.params.text).includes(text)), { timeout: 300_000, interval: 200 })
    .toBe(true);

beforeAll(async () => {
  [tg, model] = await Promise.all([startTelegram({ bots: [{ token: TOKEN, username: 'alpha_bot' }] }), startModel({ responder })]);
  dir = tempDir('cf-race-');
  state = join(dir, 'state');
  secretsPath = join(dir, 'clawfleet.secrets.json');
  alphaWs = join(state, 'workspaces', 'alpha');
  betaWs = join(state, 'workspaces', 'beta');
  const config = {
    fleet: 'race',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'alpha', default: true }, { id: 'beta' }],
    },
    models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
    session: { dmScope: 'per-channel-peer' },
    bindings: [{ agentId: 'alpha', match: { channel: 'telegram', accountId: 'alpha' } }],
    channels: {
      telegram: { apiRoot: tg.url, dmPolicy: 'allowlist', allowFrom: [String(ANN), String(BOB)], accounts: { alpha: { botTokenSecret: 'ALPHA_BOT_TOKEN' } } },
    },
    hooks: { tokenSecret: 'HOOKS_TOKEN' },
  };
  writeFleetFiles(
    dir,
    config,
    { 'clawfleet/race/control/telegram': { ALPHA_BOT_TOKEN: TOKEN }, 'clawfleet/race/control/hooks': { HOOKS_TOKEN }, ...agentKeySecrets('race', KEYS) },
    secretsPath,
  );
  fleet = await startFleet({
    dir,
    secretsPath,
    stateDir: state,
    log,
    running: ['alpha', 'beta'],
    onRuntimeLine: (agentId, line) => runtimeLines.push(`${agentId} ${JSON.stringify(line)}`),
  });
  writeFileSync(join(betaWs, 'diary.md'), `${BETA_DIARY}\n`);
  // alpha's own folder and file, as the agent's: its runtime's box runs as another user when the fleet is root.
  writeAgentFile(alphaWs, 'd/m/inside.txt', 'INSIDE-ALPHA');
}, 180_000);

afterAll(async () => {
  // The swapper stops on its own once told, or at its time limit.
  if (alphaWs && existsSync(alphaWs)) writeFileSync(join(alphaWs, 'stop'), '');
  await fleet?.stop();
  await Promise.all([tg?.close(), model?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a folder in the middle of a path swapped for a link while file tools run', () => {
  it('leaks nothing in 5,000 read/write/send_file calls, while the swapping and the inside calls are real', async () => {
    const betaBefore = readdirSync(betaWs).sort();
    say(ANN, 'please swap');
    // Swapping has begun when d/m is seen as the link or d/real exists.
    await expect
      .poll(() => existsSync(join(alphaWs, 'd', 'real')) || lstatSync(join(alphaWs, 'd', 'm'), { throwIfNoEntry: false })?.isSymbolicLink() === true, {
        timeout: 60_000,
        interval: 5,
      })
      .toBe(true);
    const started = Date.now();
    for (let turn = 1; turn <= TURNS; turn++) {
      say(BOB, `please hammer ${turn}`);
      await sentTo(BOB, `hammered ${turn}`);
    }
    const hammerMs = Date.now() - started;
    writeFileSync(join(alphaWs, 'stop'), '');
    await sentTo(ANN, 'swapper done');
    const swaps = Number(readFileSync(join(alphaWs, 'swaps'), 'utf8'));

    // Every tool result Bob's calls got, from the requests the model received.
    const hammerResults = newToolResults(model.requests()).filter((r) => r.name !== 'exec');
    const secrets = [TOKEN, HOOKS_TOKEN, KEYS.alpha, KEYS.beta, BETA_DIARY, readAdminFile(state)!.token];
    const leakedResults = hammerResults.filter((r) => secrets.some((s) => r.text.includes(s)) || r.text.includes('"clawfleet/race/'));
    const insideReads = hammerResults.filter((r) => r.text.includes('INSIDE-ALPHA')).length;
    const writesDone = hammerResults.filter((r) => r.name === 'write' && r.text.startsWith('wrote ')).length;
    const sendsDone = hammerResults.filter((r) => r.name === 'send_file' && r.text.includes('handed to the control plane')).length;

    // Uploads: none is the secrets file, admin.json or beta's diary.
    const secretFiles = new Set([readFileSync(secretsPath), readFileSync(join(state, 'admin.json')), readFileSync(join(betaWs, 'diary.md'))].map(sha256Hex));
    const uploads = tg
      .calls()
      .flatMap((c) => Object.values(c.params))
      .filter((v): v is { sha256: string } => typeof (v as { sha256?: unknown })?.sha256 === 'string');
    const secretUploads = uploads.filter((u) => secretFiles.has(u.sha256)).length;

    // Nothing written into beta's workspace, nor anywhere in the state but alpha's workspace.
    const betaAfter = readdirSync(betaWs).sort();
    const pwnedOutside = filesUnder(state).filter((p) => p.includes('pwned-') && !p.startsWith('workspaces/alpha/'));

    // Logs, transcripts, Telegram messages, runtime lines: no secret value.
    const scan = new SecretScan();
    scan.addSecrets(...secrets);
    scan.addSource('model requests', () =>
      model
        .requests()
        .map((r) => JSON.stringify(r.body))
        .join('\n'),
    );
    scan.addSource('runtime lines', () => runtimeLines.join('\n'));
    scan.addSource('fleet log', () => log.lines.map((l) => JSON.stringify(l)).join('\n'));
    scan.addSource('telegram calls', () =>
      tg
        .calls()
        .map((c) => JSON.stringify(c.params))
        .join('\n'),
    );
    for (const file of filesUnder(join(alphaWs, 'sessions'))) scan.addSource(`transcript ${file}`, () => readFileSync(join(alphaWs, 'sessions', file), 'utf8'));
    for (const file of existsSync(join(state, 'logs')) ? filesUnder(join(state, 'logs')) : [])
      scan.addSource(`log ${file}`, () => readFileSync(join(state, 'logs', file), 'utf8'));
    const hits = scan.hits();

    const figures = {
      calls: hammerResults.length,
      swaps,
      hammerSeconds: Math.round(hammerMs / 100) / 10,
      leakedResults: leakedResults.length,
      secretUploads,
      hits: hits.length,
      filesWrittenIntoBeta: betaAfter.length - betaBefore.length,
      pwnedOutsideAlpha: pwnedOutside.length,
      insideReads,
      writesDone,
      sendsDone,
      refused: hammerResults.filter((r) => /symbolic link/.test(r.text)).length,
    };
    writeFigures('file-race', figures);
    expect(figures).toMatchObject({ leakedResults: 0, secretUploads: 0, hits: 0, filesWrittenIntoBeta: 0, pwnedOutsideAlpha: 0 });
    expect(betaAfter).toEqual(betaBefore);
    // Not vacuous: as many calls as the attack, the folder really swapped, and calls
    // both succeeded while it was real and were refused while it was a link.
    expect(hammerResults.length).toBeGreaterThanOrEqual(TURNS * ROUNDS * CALLS);
    expect(swaps).toBeGreaterThan(0);
    expect(insideReads).toBeGreaterThan(0);
    expect(writesDone).toBeGreaterThan(0);
    expect(figures.refused).toBeGreaterThan(0);
  }, 900_000);
});
