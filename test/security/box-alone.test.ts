// Issue #27, "Done means": with the file tools' path checks switched off (the test-only switch
// CLAWFLEET_UNCHECKED_PATHS_FOR_TESTS, through startFleet's uncheckedPathsForTests), the local
// runtime's box alone holds. A real fleet (runtimes as child processes, exec in bubblewrap,
// Telegram's and the model's fakes) of alpha (its runtime boxed), beta (the victim) and gamma
// (runtime.localSandbox "off": the same attack with no box, to prove it is live). Each
// attacker, two people at once as in test/security/file-race.test.ts: Ann's exec swaps d/m
// between a real folder and a link to "/"; Bob's turns ask read, write and send_file for the
// secrets file, admin.json, the dashboard token, state.db and beta's workspace — as `../…`
// paths, as absolute paths, and through d/m mid-swap. Alpha leaks nothing: no secret in any
// tool result, no secret file uploaded, nothing written outside its workspace. Gamma, with the
// checks off and no box, leaks. And the switch is shown on: each runtime says so, and a read
// through a link inside the workspace (which the checks refuse) succeeds.
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readAdminFile } from '../../local/admin-file.ts';
import { dashboardTokenPath } from '../../local/dashboard-token.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { start as startModel, type FakeModel, type ModelRequest } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { writeFigures } from '../support/figures.ts';
import { writeAgentFile } from '../support/agent-files.ts';
import { filesUnder, newToolResults, sha256Hex, SWAPPER } from '../support/path-swap-race.ts';
import { agentKeySecrets, startFleet, writeFleetFiles } from '../support/local-fleet.ts';
import { botAccounts, botBindings } from '../support/telegram-bots.ts';
import { tempDir } from '../support/temp-dirs.ts';

type Attacker = 'alpha' | 'gamma';
const BOTS: Record<Attacker, string> = {
  alpha: '7000000271:AAbox-alone-alpha-bot-token-0123456789ab',
  gamma: '7000000272:AAbox-alone-gamma-bot-token-0123456789ab',
};
const KEYS = {
  alpha: 'sk-alone-alpha-model-key-0123456789abcdef',
  beta: 'sk-alone-beta-model-key-0123456789abcdef0',
  gamma: 'sk-alone-gamma-model-key-0123456789abcdef',
};
const HOOKS_TOKEN = 'hooks-alone-token-0123456789abcdef0123';
const BETA_DIARY = 'beta-private-diary-box-alone-0123456789';
const ANN = 42;
const BOB = 43;
/** Bob's race turns, model responses per turn and calls per response: alpha 3 × 5 × 100 = 1,500 calls; gamma, to show the attack is live, 1 turn. */
const TURNS: Record<Attacker, number> = { alpha: 3, gamma: 1 };
const ROUNDS = 5;
const CALLS = 100;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
let dir: string;
let state: string;
let secretsPath: string;
let betaWs: string;
const runtimeLines: { agentId: string; msg: string }[] = [];
const ws = (agent: string) => join(state, 'workspaces', agent);

type Call = { name: string; arguments: Record<string, unknown> };

/** What an attacker reaches for outside its workspace: the fleet's files and beta's, read, sent and written. */
function outsideTargets(me: Attacker, tag: string): { read: string[]; send: string[]; write: string[] } {
  return {
    read: [secretsPath, join(state, 'admin.json'), dashboardTokenPath(state), join(state, 'state.db'), join(betaWs, 'diary.md')],
    send: [secretsPath, join(state, 'admin.json'), join(betaWs, 'diary.md')],
    write: [join(betaWs, `pwned-${me}-${tag}.md`), join(state, `pwned-${me}-${tag}.md`), join(dir, `pwned-${me}-${tag}.md`)],
  };
}

function callsFor(targets: { read: string[]; send: string[]; write: string[] }, path: (p: string) => string): Call[] {
  return [
    ...targets.read.map((p) => ({ name: 'read', arguments: { path: path(p) } })),
    ...targets.send.map((p) => ({ name: 'send_file', arguments: { path: path(p) } })),
    ...targets.write.map((p) => ({ name: 'write', arguments: { path: path(p), content: 'pwned' } })),
  ];
}

/** Bob's first turn: every target as `../…` and as an absolute path; and a read only a runtime without the checks answers (a link). */
function probeCalls(me: Attacker): Call[] {
  return [
    ...callsFor(outsideTargets(me, 'dotdot'), (p) => relative(ws(me), p)),
    ...callsFor(outsideTargets(me, 'absolute'), (p) => p),
    { name: 'read', arguments: { path: 'link.txt' } },
  ];
}

/** One response of Bob's race turns: every target through d/m, over and over, and a file in the real folder. */
function raceCalls(me: Attacker, turn: number, round: number): Call[] {
  const targets = [...callsFor(outsideTargets(me, `race-${turn}-${round}`), (p) => `d/m${p}`), { name: 'read', arguments: { path: 'd/m/inside.txt' } }];
  return Array.from({ length: CALLS }, (_, i) => targets[i % targets.length]!);
}

const attackerOf = (req: ModelRequest): Attacker | undefined =>
  (Object.keys(BOTS) as Attacker[]).find((a) => String(req.headers.authorization ?? '').includes(KEYS[a]));

function responder(req: ModelRequest) {
  const me = attackerOf(req);
  const messages = (req.body as { messages?: { role: string; content: unknown }[] }).messages ?? [];
  const text = (m: { content: unknown }) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content));
  const lastUser = messages.map((m, i) => ({ m, i })).findLast(({ m }) => m.role === 'user');
  const asked = lastUser ? text(lastUser.m) : '';
  const after = lastUser ? messages.slice(lastUser.i + 1) : [];
  const answered = after.some((m) => m.role === 'tool');
  if (!me) return { text: 'nothing to note' };
  if (asked.includes('please swap')) {
    if (answered) return { text: `swapper done: ${text(after.at(-1)!).slice(0, 200)}` };
    return { toolCalls: [{ name: 'exec', arguments: { command: SWAPPER, timeoutSeconds: 600 } }] };
  }
  if (asked.includes('please probe')) return answered ? { text: 'probed' } : { toolCalls: probeCalls(me) };
  const hammer = /please hammer (\d+)/.exec(asked);
  if (hammer) {
    const round = after.filter((m) => m.role === 'assistant').length;
    if (round < ROUNDS) return { toolCalls: raceCalls(me, Number(hammer[1]), round) };
    return { text: `hammered ${hammer[1]}` };
  }
  // A summary or memory flush the runtime asks for on its own.
  return { text: 'nothing to note' };
}

let updateId = 1000;
const say = (me: Attacker, from: number, text: string) => tg.pushUpdate(BOTS[me], textUpdate({ updateId: ++updateId, chatId: from, fromId: from, text }));
const sentTo = (me: Attacker, chat: number, text: string) =>
  expect
    .poll(() => tg.calls('sendMessage').some((c) => c.token === BOTS[me] && c.params.chat_id === chat && String(c.params.text).includes(text)), {
      timeout: 300_000,
      interval: 200,
    })
    .toBe(true);

beforeAll(async () => {
  [tg, model] = await Promise.all([
    startTelegram({
      bots: [
        { token: BOTS.alpha, username: 'alpha_bot' },
        { token: BOTS.gamma, username: 'gamma_bot' },
      ],
    }),
    startModel({ responder }),
  ]);
  dir = tempDir('cf-box-alone-');
  state = join(dir, 'state');
  secretsPath = join(dir, 'clawfleet.secrets.json');
  betaWs = ws('beta');
  const config = {
    fleet: 'alone',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [{ id: 'alpha', default: true }, { id: 'beta' }, { id: 'gamma', runtime: { localSandbox: 'off' } }],
    },
    models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
    session: { dmScope: 'per-channel-peer' },
    bindings: botBindings(['alpha', 'gamma']),
    channels: {
      telegram: {
        apiRoot: tg.url,
        dmPolicy: 'allowlist',
        allowFrom: [String(ANN), String(BOB)],
        accounts: botAccounts(['alpha', 'gamma']),
      },
    },
    hooks: { tokenSecret: 'HOOKS_TOKEN' },
  };
  writeFleetFiles(
    dir,
    config,
    {
      'clawfleet/alone/control/telegram': { ALPHA_BOT_TOKEN: BOTS.alpha, GAMMA_BOT_TOKEN: BOTS.gamma },
      'clawfleet/alone/control/hooks': { HOOKS_TOKEN },
      ...agentKeySecrets('alone', KEYS),
    },
    secretsPath,
  );
  fleet = await startFleet({
    dir,
    secretsPath,
    stateDir: state,
    uncheckedPathsForTests: true,
    running: 'all',
    timeoutMs: 120_000,
    onRuntimeLine: (agentId, line) => runtimeLines.push({ agentId, msg: String(line.msg) }),
  });
  writeFileSync(join(betaWs, 'diary.md'), `${BETA_DIARY}\n`);
  for (const me of ['alpha', 'gamma'] as const) {
    // As the agent's own: alpha's box runs as another user when the fleet is root; gamma runs as the fleet's.
    const put = (path: string, content: string) => {
      if (me === 'alpha') return writeAgentFile(ws(me), path, content);
      mkdirSync(dirname(join(ws(me), path)), { recursive: true });
      writeFileSync(join(ws(me), path), content);
    };
    put('d/m/inside.txt', `INSIDE-${me}`);
    // A link inside the workspace: the path checks refuse any link; without them it is followed.
    put('linked.txt', `LINKED-${me}`);
    symlinkSync('linked.txt', join(ws(me), 'link.txt'));
  }
}, 240_000);

afterAll(async () => {
  // The swappers stop on their own once told, or at their time limit.
  for (const me of ['alpha', 'gamma']) if (state && existsSync(ws(me))) writeFileSync(join(ws(me), 'stop'), '');
  await fleet?.stop();
  await Promise.all([tg?.close(), model?.close()]);
});

/** Every tool result `me`'s runtime sent the model (each request's new ones: after its last assistant message). */
function toolResults(me: Attacker): { name: string; text: string }[] {
  return newToolResults(model.requests().filter((r) => attackerOf(r) === me)).filter((r) => r.name !== 'exec');
}

/** The whole attack from `me`, then what leaked: counted, never assumed. */
async function attack(me: Attacker) {
  say(me, ANN, 'please swap');
  // Swapping has begun when d/m is seen as the link or d/real exists.
  await expect
    .poll(() => existsSync(join(ws(me), 'd', 'real')) || lstatSync(join(ws(me), 'd', 'm'), { throwIfNoEntry: false })?.isSymbolicLink() === true, {
      timeout: 60_000,
      interval: 5,
    })
    .toBe(true);
  say(me, BOB, 'please probe');
  await sentTo(me, BOB, 'probed');
  for (let turn = 1; turn <= TURNS[me]; turn++) {
    say(me, BOB, `please hammer ${turn}`);
    await sentTo(me, BOB, `hammered ${turn}`);
  }
  writeFileSync(join(ws(me), 'stop'), '');
  await sentTo(me, ANN, 'swapper done');
  const swaps = Number(readFileSync(join(ws(me), 'swaps'), 'utf8'));

  const results = toolResults(me);
  const secrets = [
    ...Object.values(BOTS),
    HOOKS_TOKEN,
    ...Object.values(KEYS),
    BETA_DIARY,
    readAdminFile(state)!.token,
    readFileSync(dashboardTokenPath(state), 'utf8').trim(),
  ];
  const leakedResults = results.filter(
    (r) => secrets.some((s) => r.text.includes(s)) || r.text.includes('"clawfleet/alone/') || r.text.includes('SQLite format 3'),
  );
  const secretFiles = new Set([secretsPath, join(state, 'admin.json'), join(betaWs, 'diary.md')].map((p) => sha256Hex(readFileSync(p))));
  const secretUploads = tg
    .calls()
    .filter((c) => c.token === BOTS[me])
    .flatMap((c) => Object.values(c.params))
    .filter(
      (v): v is { sha256: string } => typeof (v as { sha256?: unknown })?.sha256 === 'string' && secretFiles.has((v as { sha256: string }).sha256),
    ).length;
  const writtenOutside = filesUnder(dir).filter((p) => p.includes(`pwned-${me}-`) && !p.startsWith(`state/workspaces/${me}/`));
  return {
    calls: results.length,
    swaps,
    leaks: leakedResults.length + secretUploads + writtenOutside.length,
    leakedResults: leakedResults.length,
    secretUploads,
    writtenOutside: writtenOutside.length,
    // The switch is on: reads only a runtime without the path checks answers.
    readThroughLink: results.filter((r) => r.text.includes(`LINKED-${me}`)).length,
    insideReads: results.filter((r) => r.text.includes(`INSIDE-${me}`)).length,
    switchSaidOn: runtimeLines.some((l) => l.agentId === me && l.msg.startsWith('TEST-ONLY SWITCH ON')),
  };
}

describe('the local box alone, with the file tools’ path checks switched off', () => {
  it('holds against ../, absolute paths and the mid-path link race: 0 leaks from the boxed runtime', async () => {
    const betaBefore = readdirSync(betaWs).sort();
    const figures = await attack('alpha');
    writeFigures('box-alone', figures);
    // The switch really is on: the runtime says so, and it followed a link the checks refuse.
    expect(figures.switchSaidOn).toBe(true);
    expect(figures.readThroughLink).toBeGreaterThan(0);
    expect(figures).toMatchObject({ leaks: 0, leakedResults: 0, secretUploads: 0, writtenOutside: 0 });
    expect(readdirSync(betaWs).sort()).toEqual(betaBefore);
    // Not vacuous: every call made, the folder really swapped.
    expect(figures.calls).toBeGreaterThanOrEqual(probeCalls('alpha').length + TURNS.alpha * ROUNDS * CALLS);
    expect(figures.swaps).toBeGreaterThan(0);
    expect(figures.insideReads).toBeGreaterThan(0);
  }, 900_000);

  it('is the only wall: the same attack from a runtime without its box (localSandbox "off") leaks', async () => {
    const figures = await attack('gamma');
    writeFigures('box-alone-unboxed', figures);
    expect(figures.switchSaidOn).toBe(true);
    expect(figures.calls).toBeGreaterThanOrEqual(probeCalls('gamma').length + TURNS.gamma * ROUNDS * CALLS);
    expect(figures.leakedResults).toBeGreaterThan(0);
    expect(figures.writtenOutside).toBeGreaterThan(0);
    expect(figures.secretUploads).toBeGreaterThan(0);
  }, 900_000);
});
