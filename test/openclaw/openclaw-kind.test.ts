// runtime.kind "openclaw" end to end (its own vitest project, run by `npm run test:openclaw`
// and .ci/run; a few minutes, as each gateway start takes tens of seconds here): `npm start`'s fleet with one agent on the real, pinned
// OpenClaw (installed on demand into .cache/openclaw; a failed install fails here, with why)
// as a managed one-agent gateway, driven by the bridge against the fake model server, a
// Telegram update in through the fake Bot API and its answer out exactly once — also when
// the bridge (the agent's runtime) and then the gateway are SIGKILLed mid-turn — the bridge
// while the answer is streaming as drafts — and drains a turn in flight on SIGTERM. Beside it
// a native agent with a key of its own, which the OpenClaw side must never see: the gateway
// runs in bubblewrap, and a model that makes it exec and read the fleet's secrets file,
// the other agent's workspace and the state database gets nothing of them.
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { ensureOpenclaw, OPENCLAW_VERSION } from '../../local/openclaw-install.ts';
import { start as startModel, type FakeModel, type ModelReply } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { writeAgentFile } from '../support/agent-files.ts';
import { startFleet } from '../support/local-fleet.ts';
import { HeldRequests, mentions, newestPhrase, waiter } from '../support/openclaw-turns.ts';
import { botAccounts, botBindings } from '../support/telegram-bots.ts';
import { alive, mentioning, processes, tree } from '../support/process-tree.ts';
import { tempDir } from '../support/temp-dirs.ts';

const FRAN_KEY = 'sk-test-openclaw-fran-0123456789abcdef';
const GRIF_KEY = 'sk-test-native-grif-fedcba9876543210';
const FRAN_BOT = '7000000011:AAopenclaw-kind-fran-0123456789';
const GRIF_BOT = '7000000012:AAopenclaw-kind-grif-0123456789';
const OWNER = 42;

let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
let dir: string;
const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];
/** Model requests whose body mentions a held marker wait until the test releases them. */
const held = new HeldRequests();
let updateId = 500;

/**
 * What the tests say to the agents. OpenClaw's last user message in a request is its own
 * context block, and it asks for side work (an activity recap) with the chat inside: the
 * fake model answers the phrase the request carries last (the newest; the history holds the rest).
 */
const PHRASES = [
  'hello openclaw',
  'stream slowly',
  'survive bridge-kill',
  'survive gateway-kill',
  'native still here',
  'probe the sandbox',
  'drain on sigterm',
];
/** Phrases answered at length and slowly (a word per frame, 100 ms apart: about 5 s), so the answer streams as drafts. */
const SLOW = new Set(['stream slowly', 'survive bridge-kill']);
const slowText = (phrase: string) =>
  `echo: ${phrase} — ${Array.from({ length: 48 }, (_, i) => ['and', 'the', 'answer', 'keeps', 'growing', 'word', 'by', 'word'][i % 8]).join(' ')}.`;

/** What grif (the native agent) keeps in its workspace, and fran in its own: the probe must see only fran's. */
const GRIF_NOTE = 'grif-private-note-5b1f0e77c2d94a61';
const FRAN_NOTE = 'fran-own-note-0c3e9d1a7b6f4e28';
/** The call the probe makes: its result comes back in the next request, answered with text. */
const PROBE_CALL = 'call_sandboxprobe01';
let probed = false;
const probeTargets = () => ({
  secrets: join(dir, 'secrets.json'),
  grifNote: join(dir, 'state', 'workspaces', 'grif', 'notes.txt'),
  stateDb: join(dir, 'state', 'state.db'),
  grifRuntime: join(dir, 'state', 'runtime', 'grif'),
  ownNote: join(dir, 'state', 'workspaces', 'fran', 'own-note.txt'),
  planted: join(dir, 'state', 'workspaces', 'grif', 'planted-by-fran.txt'),
});

/** The hostile turn: OpenClaw's exec and read aimed at what belongs to the fleet and the other agent. */
function probe(): ModelReply {
  const t = probeTargets();
  const paths = [t.secrets, t.grifNote, t.stateDb, t.ownNote];
  const script = [
    ...paths.map((p) => `echo "== ${p}"; cat '${p}' 2>&1`),
    `echo "== ls"; ls -la '${join(dir, 'state')}' '${t.grifRuntime}' 2>&1`,
    `echo "== write"; echo pwned > '${t.planted}' 2>&1 || echo write refused`,
  ].join('; ');
  return {
    toolCalls: [
      { id: PROBE_CALL, name: 'exec', arguments: { command: script } },
      { id: `${PROBE_CALL}r`, name: 'read', arguments: { path: t.secrets } },
    ],
  };
}

async function respond(body: unknown): Promise<ModelReply> {
  await held.wait(body);
  const phrase = newestPhrase(body, PHRASES);
  if (phrase === 'probe the sandbox') {
    // Once, in the agent's own turn (it offers exec); its results come back in the next request,
    // which (as any side request) is answered in words.
    const offersExec = ((body as { tools?: { function?: { name?: string } }[] }).tools ?? []).some((t) => t.function?.name === 'exec');
    if (offersExec && !probed) {
      probed = true;
      return probe();
    }
    return { text: 'probe done' };
  }
  if (phrase && SLOW.has(phrase)) return { text: slowText(phrase), frameDelayMs: 100 };
  return { text: phrase ? `echo: ${phrase}` : 'nothing to echo' };
}

const sentTo = (chatId: number, containing: string) =>
  tg.calls('sendMessage').filter((c) => Number(c.params.chat_id) === chatId && String(c.params.text).includes(containing));
const draftsTo = (chatId: number, containing: string) =>
  tg.calls('sendMessageDraft').filter((c) => Number(c.params.chat_id) === chatId && String(c.params.text).includes(containing));
/** The chat's messages and drafts containing `containing`, in the order the Bot API got them. */
const shownTo = (chatId: number, containing: string) =>
  tg
    .calls()
    .filter(
      (c) =>
        (c.method === 'sendMessage' || c.method === 'sendMessageDraft') && Number(c.params.chat_id) === chatId && String(c.params.text).includes(containing),
    )
    .map((c) => c.method);

const waitFor = waiter(() => `last runtime lines: ${JSON.stringify(runtimeLines.slice(-8))}`);

const ready = (agentId: string, after = 0) =>
  waitFor(`${agentId} ready`, () => runtimeLines.slice(after).find((l) => l.agentId === agentId && l.line.msg === 'ready'), 240_000);

/**
 * The OpenClaw gateway process under fran's runtime: the guard's only child. The guard runs
 * inside bubblewrap (runtime → bwrap → bwrap's init → guard), so it is the one node process
 * below the runtime with the guard's script (`-e`) that is not bwrap itself.
 */
function gatewayProcess(): { pid: number; command: string } | undefined {
  const runtimePid = fleet.supervisor.pid('fran');
  if (!runtimePid) return undefined;
  const below = tree(runtimePid);
  const guard = below.find((p) => p.command.includes(' -e ') && p.command.includes('gateway') && !p.command.includes('bwrap'));
  return guard ? below.find((p) => p.ppid === guard.pid) : undefined;
}

beforeAll(async () => {
  // Installed on demand and reused; a machine that cannot install it fails here, saying why.
  ensureOpenclaw(undefined, (line) => console.log(`openclaw install: ${line}`));
  model = await startModel({ responder: (r) => respond(r.body) });
  tg = await startTelegram({
    bots: [
      { token: FRAN_BOT, username: 'fran_bot' },
      { token: GRIF_BOT, username: 'grif_bot' },
    ],
  });
  dir = tempDir('cf-openclaw-kind-');
  const config = {
    fleet: 'demo',
    agents: {
      defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
      list: [
        { id: 'fran', name: 'Fran', default: true, runtime: { kind: 'openclaw', cpus: 1, memoryMb: 2048 } },
        { id: 'grif', name: 'Grif' },
      ],
    },
    models: { providers: { openai: { api: 'openai-completions', baseUrl: model.baseUrls['openai-completions'], apiKeySecret: 'OPENAI_API_KEY' } } },
    bindings: botBindings(['fran', 'grif']),
    channels: {
      telegram: {
        apiRoot: tg.url,
        dmPolicy: 'allowlist',
        allowFrom: [String(OWNER)],
        accounts: botAccounts(['fran', 'grif']),
      },
    },
  };
  writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(config));
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/agents/fran': { OPENAI_API_KEY: FRAN_KEY },
      'clawfleet/demo/agents/grif': { OPENAI_API_KEY: GRIF_KEY },
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: FRAN_BOT, GRIF_BOT_TOKEN: GRIF_BOT },
    }),
  );
  fleet = await startFleet({ dir, onRuntimeLine: (agentId, line) => void runtimeLines.push({ agentId, line }) });
  await ready('fran');
  // What the sandbox must keep from fran's gateway: grif's workspace (its runtime made it by now).
  mkdirSync(join(dir, 'state', 'workspaces', 'grif'), { recursive: true });
  writeFileSync(probeTargets().grifNote, `${GRIF_NOTE}\n`);
  // (fran's own file, as the agent's: its runtime's box runs as another user when the fleet is root.)
  writeAgentFile(join(dir, 'state', 'workspaces', 'fran'), 'own-note.txt', `${FRAN_NOTE}\n`);
}, 600_000);

afterAll(async () => {
  held.releaseAll();
  await fleet?.stop();
  await tg?.close();
  await model?.close();
});

describe('runtime.kind "openclaw" (managed), on OpenClaw ' + OPENCLAW_VERSION, () => {
  it('answers a Telegram update exactly once, through the real gateway and the agent’s own key', async () => {
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'hello openclaw' }));
    await waitFor('the reply', () => sentTo(OWNER, 'hello openclaw').length > 0, 120_000);
    await waitFor('the turn to end', () => runtimeLines.find((l) => l.agentId === 'fran' && l.line.msg === 'turn answered'), 30_000);
    expect(sentTo(OWNER, 'hello openclaw')).toHaveLength(1);
    const asked = model.requests().filter((r) => mentions(r.body, 'hello openclaw'));
    expect(asked.length).toBeGreaterThan(0);
    for (const r of asked) expect(r.headers.authorization).toBe(`Bearer ${FRAN_KEY}`);
    const readyLine = runtimeLines.find((l) => l.agentId === 'fran' && l.line.msg === 'ready')!.line;
    expect(readyLine).toMatchObject({ kind: 'openclaw', openclaw: expect.stringContaining(OPENCLAW_VERSION), protocol: 4 });
  });

  it('writes a gateway config with no channel, cron, hooks, heartbeat runner or public listener, holding only this agent’s key', () => {
    const path = join(dir, 'state', 'runtime', 'fran', 'openclaw', 'openclaw.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const text = readFileSync(path, 'utf8');
    const written = JSON.parse(text) as Record<string, any>;
    expect(written.channels).toBeUndefined();
    expect(written.cron).toEqual({ enabled: false });
    expect(written.hooks).toEqual({ enabled: false });
    expect(written.gateway).toMatchObject({ bind: 'loopback', controlUi: { enabled: false }, tailscale: { mode: 'off' }, auth: { mode: 'token' } });
    expect(written.agents.defaults.heartbeat).toEqual({ every: '0m' });
    expect(Object.keys(written.agents.entries)).toEqual(['fran']);
    expect(written.tools.deny).toEqual(expect.arrayContaining(['message', 'cron', 'gateway', 'sessions_send']));
    expect(text).toContain(FRAN_KEY);
    expect(text).not.toContain(GRIF_KEY);
    expect(text).not.toContain(FRAN_BOT);
    expect(text).not.toContain(GRIF_BOT);
  });

  it('starts the gateway as a child of the agent’s runtime that sees no secret in its environment, listening on loopback only', () => {
    const gw = gatewayProcess();
    expect(gw, 'the gateway process under fran’s runtime').toBeDefined();
    const environ = readFileSync(`/proc/${gw!.pid}/environ`, 'utf8');
    for (const secret of [FRAN_KEY, GRIF_KEY, FRAN_BOT, GRIF_BOT]) expect(environ).not.toContain(secret);
    // Every TCP socket it listens on is bound to 127.0.0.1 or ::1.
    const inodes = new Set(
      (() => {
        const fds = `/proc/${gw!.pid}/fd`;
        return readdirSync(fds).flatMap((fd) => {
          try {
            const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${fds}/${fd}`));
            return m ? [m[1]!] : [];
          } catch {
            return [];
          }
        });
      })(),
    );
    const listening = ['tcp', 'tcp6'].flatMap((f) =>
      readFileSync(`/proc/net/${f}`, 'utf8')
        .split('\n')
        .slice(1)
        .map((l) => l.trim().split(/\s+/))
        .filter((c) => c[3] === '0A' && inodes.has(c[9]!))
        .map((c) => c[1]!.split(':')[0]!),
    );
    expect(listening.length).toBeGreaterThan(0);
    for (const addr of listening) expect(['0100007F', '00000000000000000000000001000000']).toContain(addr);
  });

  it('runs the gateway in bubblewrap: exec and read reach its own workspace, never the secrets file, the other agent or the state database', async () => {
    const gw = gatewayProcess()!;
    // Namespaces of its own: the host's mounts are not what it sees.
    for (const ns of ['mnt', 'user', 'pid']) expect(readlinkSync(`/proc/${gw.pid}/ns/${ns}`)).not.toBe(readlinkSync(`/proc/self/ns/${ns}`));
    const requestsBefore = model.requests().length;
    const linesBefore = runtimeLines.length;
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'probe the sandbox' }));
    await waitFor('the reply', () => sentTo(OWNER, 'probe done').length > 0, 180_000);
    await waitFor('the turn to end', () => runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'turn answered'), 30_000);
    const seenByModel = JSON.stringify(
      model
        .requests()
        .slice(requestsBefore)
        .map((r) => r.body),
    );
    // The tools ran (the model got their results): its own workspace was read, the rest was not there.
    // (Booleans, not toContain: a failure would print the whole ~100 kB of requests.)
    expect(probed).toBe(true);
    expect(seenByModel.includes(FRAN_NOTE), 'its own workspace’s note in the tool result').toBe(true);
    expect(seenByModel.includes(`== ${probeTargets().secrets}`), 'the exec ran').toBe(true);
    expect(/No such file or directory/.test(seenByModel), 'the other paths were not there').toBe(true);
    // Nothing of the fleet's secrets file (every agent's key, the bot tokens), grif's workspace or
    // the state database reached the model, the chat, fran's log lines or the gateway's own logs.
    const leaks = [FRAN_KEY, GRIF_KEY, FRAN_BOT, GRIF_BOT, GRIF_NOTE, 'SQLite format 3', 'clawfleet/demo/control/telegram'];
    const seen: Record<string, string> = {
      'the model': seenByModel,
      // What the bots sent (each call's own token is the control plane's, in its URL).
      'the chat': JSON.stringify(tg.calls().map((c) => c.params)),
      'fran’s log lines': JSON.stringify(runtimeLines.filter((l) => l.agentId === 'fran')),
      'the gateway’s logs': filesUnder(join(dir, 'state', 'runtime', 'fran', 'openclaw', 'logs')),
      'the fleet’s logs': filesUnder(join(dir, 'state', 'logs')),
    };
    for (const [where, text] of Object.entries(seen)) for (const leak of leaks) expect(text.includes(leak), `${leak.slice(0, 12)}… in ${where}`).toBe(false);
    // Nor could it write into grif's workspace.
    expect(existsSync(probeTargets().planted)).toBe(false);
  });

  it('streams a slow answer from the gateway’s chat deltas: drafts while it writes, then exactly one final message', async () => {
    const linesBefore = runtimeLines.length;
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'stream slowly' }));
    await waitFor('the reply', () => sentTo(OWNER, 'stream slowly').length > 0, 120_000);
    await waitFor('the turn to end', () => runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'turn answered'), 30_000);
    expect(sentTo(OWNER, 'stream slowly')).toHaveLength(1);
    expect(String(sentTo(OWNER, 'stream slowly')[0]!.params.text)).toBe(slowText('stream slowly'));
    const drafts = draftsTo(OWNER, 'stream slowly');
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    // Each draft the start of the answer; none after the final message (it would bring the bubble back).
    for (const d of drafts) expect(slowText('stream slowly').startsWith(String(d.params.text))).toBe(true);
    expect(shownTo(OWNER, 'stream slowly').at(-1)).toBe('sendMessage');
  });

  it('answers exactly once when the bridge is SIGKILLed mid-stream, and leaves no gateway behind', async () => {
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'survive bridge-kill' }));
    // Two drafts reached the user: the answer is visibly streaming. Then kill -9, mid-answer.
    // A limit for a hang only: on a crowded machine (load 6+ on 2 cores) the gateway once dropped
    // the bridge's connection (1006) mid-answer, and its restart (20–60 s there) came first.
    await waitFor('two drafts', () => draftsTo(OWNER, 'survive bridge-kill').length >= 2, 240_000);
    expect(sentTo(OWNER, 'survive bridge-kill')).toHaveLength(0);
    const oldGateway = gatewayProcess()!;
    const linesBefore = runtimeLines.length;
    process.kill(fleet.supervisor.pid('fran')!, 'SIGKILL');
    // The guard takes the gateway down with the runtime that started it.
    await waitFor('the old gateway to be gone', () => !processes().some((p) => p.pid === oldGateway.pid), 30_000);
    await ready('fran', linesBefore);
    await waitFor('the reply after the restart', () => sentTo(OWNER, 'survive bridge-kill').length > 0, 180_000);
    await waitFor('the turn to end', () => runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'turn answered'), 30_000);
    expect(sentTo(OWNER, 'survive bridge-kill')).toHaveLength(1);
    expect(shownTo(OWNER, 'survive bridge-kill').at(-1)).toBe('sendMessage');
    // Its waits' limits add up beyond the project's 300 s; each is there for a hang only.
  }, 720_000);

  it('answers exactly once when the gateway is SIGKILLed mid-turn: restarted, and asked again by the same bridge', async () => {
    const release = held.hold('gateway-kill');
    const runtimePid = fleet.supervisor.pid('fran');
    const linesBefore = runtimeLines.length;
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'survive gateway-kill' }));
    await waitFor('the model asked mid-turn', () => model.requests().some((r) => mentions(r.body, 'survive gateway-kill')), 60_000);
    process.kill(gatewayProcess()!.pid, 'SIGKILL');
    release();
    await waitFor(
      'the gateway restarted',
      () => runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'openclaw gateway restarted'),
      240_000,
    );
    await waitFor('the reply after the gateway restart', () => sentTo(OWNER, 'survive gateway-kill').length > 0, 120_000);
    await waitFor('the turn to end', () => runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'turn answered'), 30_000);
    expect(sentTo(OWNER, 'survive gateway-kill')).toHaveLength(1);
    // The bridge lived through it: the same runtime process answered.
    expect(fleet.supervisor.pid('fran')).toBe(runtimePid);
  });

  it('keeps the native agent beside it answering with its own key', async () => {
    tg.pushUpdate(GRIF_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'native still here' }));
    await waitFor('grif’s reply', () => sentTo(OWNER, 'native still here').length > 0, 60_000);
    const asked = model.requests().filter((r) => mentions(r.body, 'native still here'));
    for (const r of asked) expect(r.headers.authorization).toBe(`Bearer ${GRIF_KEY}`);
  });

  // Last: fran stays hibernated after it.
  it('drains a turn in flight on SIGTERM: answered exactly once, then the bridge and its gateway exit and nothing of them is left', async () => {
    const release = held.hold('drain on sigterm');
    const runtimePid = fleet.supervisor.pid('fran')!;
    const gateway = gatewayProcess()!;
    const linesBefore = runtimeLines.length;
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'drain on sigterm' }));
    await waitFor('the model asked mid-turn', () => model.requests().some((r) => mentions(r.body, 'drain on sigterm')), 60_000);
    // Everything under the runtime now: bwrap, its init, the guard, the gateway and its helpers.
    const below = tree(runtimePid);
    // Hibernation stops a runtime as the fleet does: SIGTERM, then SIGKILL after 30 s.
    const hibernated = fleet.supervisor.act('fran', 'hibernate');
    await waitFor('SIGTERM heard', () => runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'stopping'), 10_000);
    expect(runtimeLines.slice(linesBefore).find((l) => l.agentId === 'fran' && l.line.msg === 'stopping')!.line.signal).toBe('SIGTERM');
    // Mid-turn still, its gateway up: then the model answers.
    expect(sentTo(OWNER, 'drain on sigterm')).toHaveLength(0);
    expect(processes().some((p) => p.pid === gateway.pid)).toBe(true);
    release();
    await expect(hibernated).resolves.toBe('hibernating');
    // It exited by itself, cleanly, within the grace (not SIGKILLed by the supervisor).
    expect(fleet.supervisor.info('fran').lastExit).toMatchObject({ code: 0, signal: null });
    expect(runtimeLines.slice(linesBefore).some((l) => l.agentId === 'fran' && l.line.msg === 'turn answered')).toBe(true);
    await waitFor('the reply', () => sentTo(OWNER, 'drain on sigterm').length > 0, 30_000);
    // Nothing of the runtime, its sandbox or its gateway is left, wherever it was re-parented to.
    await waitFor('everything under the runtime gone', () => !below.some(alive), 15_000);
    expect(mentioning(join(dir, 'state', 'runtime', 'fran', 'openclaw'))).toEqual([]);
    // Exactly once: a while later, still one reply.
    await new Promise((r) => setTimeout(r, 3_000));
    expect(sentTo(OWNER, 'drain on sigterm')).toHaveLength(1);
  });
});

/** Every file's text under `root` (empty when it does not exist), for a leak scan. */
function filesUnder(root: string): string {
  if (!existsSync(root)) return '';
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'latin1'))
    .join('\n');
}
