// runtime.openclaw.mode "external" against the real, pinned OpenClaw (its own vitest
// project, `npm run test:openclaw`): a gateway started the way an operator would (its own
// openclaw.json, token auth, its own agent "main" and model key, on a port picked here),
// bound to this machine's non-loopback address, so the bridge's connect is a remote one
// and OpenClaw's device pairing applies (a loopback connect would be auto-approved). The
// bridge waits, saying which `openclaw devices approve <requestId>` to run; the test runs it
// with OpenClaw's own CLI; then a Telegram update is answered exactly once through the
// operator's gateway — also when the bridge is SIGKILLed mid-turn and the message is
// redelivered, and when the operator's gateway is SIGKILLed mid-turn and started again.
// Beside it an agent with a wrong token: a clear warning, no crash loop.
import { spawn, type ChildProcess, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalFleet } from '../../local/fleet.ts';
import { ensureOpenclaw, OPENCLAW_VERSION, type OpenclawInstall } from '../../local/openclaw-install.ts';
import { start as startModel, type FakeModel, type ModelReply } from '../support/fake-model.ts';
import { start as startTelegram, textUpdate, type FakeTelegram } from '../support/fake-telegram.ts';
import { startFleet } from '../support/local-fleet.ts';
import { HeldRequests, mentions, newestPhrase, waiter } from '../support/openclaw-turns.ts';
import { botAccounts, botBindings } from '../support/telegram-bots.ts';
import { tempDir } from '../support/temp-dirs.ts';

const GATEWAY_TOKEN = 'gw-operator-token-0123456789abcdefghij';
const WRONG_TOKEN = 'gw-wrong-token-zyxwvutsrqponmlk98765';
const OPERATOR_MODEL_KEY = 'sk-operator-own-model-key-13579';
const FRAN_BOT = '7000000021:AAopenclaw-external-fran-012345';
const GRIF_BOT = '7000000022:AAopenclaw-external-grif-012345';
const OWNER = 42;

let install: OpenclawInstall;
let tg: FakeTelegram;
let model: FakeModel;
let fleet: LocalFleet;
let gateway: ChildProcess;
let gatewayDir: string;
let gatewayUrl: string;
let gatewayPort: number;
const runtimeLines: { agentId: string; line: Record<string, unknown> }[] = [];
const held = new HeldRequests();
let updateId = 700;

const PHRASES = ['hello operator gateway', 'survive bridge-kill external', 'survive operator gateway restart'];

async function respond(body: unknown): Promise<ModelReply> {
  await held.wait(body);
  const phrase = newestPhrase(body, PHRASES);
  return { text: phrase ? `echo: ${phrase}` : 'nothing to echo' };
}

const sentTo = (chatId: number, containing: string) =>
  tg.calls('sendMessage').filter((c) => Number(c.params.chat_id) === chatId && String(c.params.text).includes(containing));

const waitFor = waiter(() => `last runtime lines: ${JSON.stringify(runtimeLines.slice(-8))}`);

const linesOf = (agentId: string, after = 0) => runtimeLines.slice(after).filter((l) => l.agentId === agentId);

/** This machine's first non-loopback IPv4 address: a connect to it is not a loopback one for OpenClaw. */
function lanAddress(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  throw new Error('this test needs a non-loopback IPv4 address (OpenClaw auto-approves loopback connects, so pairing could not be exercised)');
}

async function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** OpenClaw's own CLI, run as the gateway's operator would on the gateway host. */
function openclawCli(args: string[]): string {
  return execFileSync(install.node, [install.cli, ...args], { env: gatewayEnv(), encoding: 'utf8', timeout: 120_000 });
}

const gatewayEnv = () => ({
  PATH: `${join(install.node, '..')}:/usr/bin:/bin`,
  HOME: join(gatewayDir, 'home'),
  OPENCLAW_STATE_DIR: join(gatewayDir, 'state'),
  OPENCLAW_CONFIG_PATH: join(gatewayDir, 'openclaw.json'),
  NO_COLOR: '1',
});

/** `openclaw gateway run` as the operator starts it, in a process group of its own; resolves once it says ready. */
async function startOperatorGateway(port: number): Promise<void> {
  gateway = spawn(install.node, [install.cli, 'gateway', 'run', '--port', String(port)], {
    env: gatewayEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const recent: string[] = [];
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the operator's gateway was not ready in 240 s: ${recent.join(' | ')}`)), 240_000);
    for (const s of [gateway.stdout!, gateway.stderr!])
      s.setEncoding('utf8').on('data', (chunk: string) => {
        recent.push(chunk);
        if (recent.length > 20) recent.shift();
        if (/\[gateway\] ready\b/.test(chunk)) {
          clearTimeout(timer);
          resolve();
        }
      });
    gateway.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the operator's gateway exited (${code}): ${recent.join(' | ')}`));
    });
  });
}

beforeAll(async () => {
  install = ensureOpenclaw(undefined, (line) => console.log(`openclaw install: ${line}`));
  model = await startModel({ responder: (r) => respond(r.body) });
  tg = await startTelegram({
    bots: [
      { token: FRAN_BOT, username: 'fran_bot' },
      { token: GRIF_BOT, username: 'grif_bot' },
    ],
  });

  // The operator's gateway: its own config, agent, model key and token.
  const host = lanAddress();
  const port = await freePort(host);
  gatewayUrl = `ws://${host}:${port}`;
  gatewayPort = port;
  gatewayDir = tempDir('cf-operator-gateway-');
  for (const d of ['home', 'state', 'workspace']) mkdirSync(join(gatewayDir, d));
  writeFileSync(
    join(gatewayDir, 'openclaw.json'),
    JSON.stringify({
      gateway: { mode: 'local', port, bind: 'custom', customBindHost: host, auth: { mode: 'token', token: GATEWAY_TOKEN }, controlUi: { enabled: false } },
      update: { checkOnStart: false },
      agents: {
        defaults: { heartbeat: { every: '0m' } },
        entries: { main: { name: 'Main', model: { primary: 'openai/gpt-4.1-mini' }, workspace: join(gatewayDir, 'workspace') } },
      },
      models: { providers: { openai: { baseUrl: model.baseUrls['openai-completions'], api: 'openai-completions', apiKey: OPERATOR_MODEL_KEY, models: [] } } },
    }),
    { mode: 0o600 },
  );
  await startOperatorGateway(port);

  const dir = tempDir('cf-openclaw-external-');
  // Each clawfleet agent its own agent of the gateway (two on one would share its sessions,
  // which the config refuses); grif's never gets past the token, so the gateway need not know it.
  const external = (tokenSecret: string, agent: string) => ({
    kind: 'openclaw',
    cpus: 1,
    memoryMb: 2048,
    openclaw: { mode: 'external', url: gatewayUrl, tokenSecret, agent, allowInsecureWs: true },
  });
  writeFileSync(
    join(dir, 'clawfleet.json'),
    JSON.stringify({
      fleet: 'demo',
      agents: {
        defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } },
        list: [
          { id: 'fran', name: 'Fran', default: true, runtime: external('OPENCLAW_GATEWAY_TOKEN', 'main') },
          { id: 'grif', name: 'Grif', runtime: external('OPENCLAW_GATEWAY_TOKEN', 'grif') },
        ],
      },
      // The clawfleet side names a provider (the schema wants a model); the gateway uses its own.
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
    }),
  );
  writeFileSync(
    join(dir, 'secrets.json'),
    JSON.stringify({
      'clawfleet/demo/agents/fran': { OPENCLAW_GATEWAY_TOKEN: GATEWAY_TOKEN },
      'clawfleet/demo/agents/grif': { OPENCLAW_GATEWAY_TOKEN: WRONG_TOKEN },
      'clawfleet/demo/control/telegram': { FRAN_BOT_TOKEN: FRAN_BOT, GRIF_BOT_TOKEN: GRIF_BOT },
    }),
  );
  fleet = await startFleet({ dir, onRuntimeLine: (agentId, line) => void runtimeLines.push({ agentId, line }) });
}, 600_000);

afterAll(async () => {
  held.releaseAll();
  await fleet?.stop();
  if (gateway?.pid && gateway.exitCode === null) {
    const exited = new Promise((r) => gateway.once('exit', r));
    process.kill(-gateway.pid, 'SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
    if (gateway.exitCode === null) process.kill(-gateway.pid, 'SIGKILL');
  }
  await tg?.close();
  await model?.close();
});

describe(`runtime.openclaw.mode "external", against an operator's OpenClaw ${OPENCLAW_VERSION} gateway`, () => {
  it('waits for pairing approval, naming the request to approve, and takes no message until the operator approves it', async () => {
    const waiting = await waitFor(
      'fran waiting for pairing',
      () => linesOf('fran').find((l) => String(l.line.why ?? '').includes('openclaw devices approve')),
      120_000,
    );
    // The newest such line: a superseded request would have been logged anew.
    const latest =
      linesOf('fran')
        .filter((l) => String(l.line.why ?? '').includes('openclaw devices approve'))
        .at(-1) ?? waiting;
    const requestId = /openclaw devices approve ([A-Za-z0-9._:-]+)`/.exec(String(latest.line.why))![1]!;
    expect(linesOf('fran').some((l) => l.line.msg === 'ready')).toBe(false);
    // What `clawfleet status` and the dashboard show: the heartbeat's warning.
    await waitFor(
      'the warning in fran’s status',
      () =>
        fleet
          .status()
          .agents.find((a) => a.id === 'fran')
          ?.warnings?.some((w) => w.includes(`openclaw devices approve ${requestId}`)),
      30_000,
    );
    // OpenClaw's own view: one pending operator device, read+write, from the non-loopback address.
    const pending = JSON.parse(openclawCli(['devices', 'list', '--json'])) as {
      pending: { requestId: string; role: string; scopes: string[]; remoteIp: string }[];
    };
    const request = pending.pending.find((p) => p.requestId === requestId);
    expect(request).toMatchObject({
      role: 'operator',
      scopes: ['operator.read', 'operator.write'],
      remoteIp: gatewayUrl.slice(5, gatewayUrl.lastIndexOf(':')),
    });
    openclawCli(['devices', 'approve', requestId, '--json']);
    const ready = await waitFor('fran ready', () => linesOf('fran').find((l) => l.line.msg === 'ready'), 60_000);
    expect(ready.line).toMatchObject({ kind: 'openclaw', mode: 'external', openclaw: expect.stringContaining(OPENCLAW_VERSION), protocol: 4 });
  });

  it('answers a Telegram update exactly once through the operator’s gateway, with the operator’s model key', async () => {
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'hello operator gateway' }));
    await waitFor('the reply', () => sentTo(OWNER, 'hello operator gateway').length > 0, 120_000);
    await waitFor('the turn to end', () => linesOf('fran').find((l) => l.line.msg === 'turn answered'), 30_000);
    expect(sentTo(OWNER, 'hello operator gateway')).toHaveLength(1);
    const asked = model.requests().filter((r) => mentions(r.body, 'hello operator gateway'));
    expect(asked.length).toBeGreaterThan(0);
    for (const r of asked) expect(r.headers.authorization).toBe(`Bearer ${OPERATOR_MODEL_KEY}`);
  });

  it('answers exactly once when the bridge is SIGKILLed mid-turn: the redelivered message joins the run under the same key', async () => {
    const release = held.hold('survive bridge-kill external');
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'survive bridge-kill external' }));
    await waitFor('the model asked mid-turn', () => model.requests().some((r) => mentions(r.body, 'survive bridge-kill external')), 120_000);
    const before = runtimeLines.length;
    process.kill(fleet.supervisor.pid('fran')!, 'SIGKILL');
    // The restarted runtime is already paired: its device key is kept in its own state.
    await waitFor('fran ready again', () => linesOf('fran', before).find((l) => l.line.msg === 'ready'), 120_000);
    release();
    await waitFor('the reply after the restart', () => sentTo(OWNER, 'survive bridge-kill external').length > 0, 180_000);
    await waitFor('the turn to end', () => linesOf('fran', before).find((l) => /^turn (answered|already done)/.test(String(l.line.msg))), 60_000);
    expect(sentTo(OWNER, 'survive bridge-kill external')).toHaveLength(1);
    // OpenClaw deduplicated the repeated key: the new bridge joined the run (or read its answer), never asked anew.
    const after = linesOf('fran', before).map((l) => String(l.line.msg));
    expect(after.some((m) => /^(joined the run this key started|the gateway had this key’s run over already)/.test(m))).toBe(true);
    expect(after.filter((m) => /asking again/.test(m))).toEqual([]);
    expect(linesOf('fran', before).some((l) => String(l.line.why ?? '').includes('pairing'))).toBe(false);
  });

  it('says a wrong token is refused, keeps the runtime up (no crash loop), and never shows a token', async () => {
    const refused = await waitFor('grif refused', () => linesOf('grif').find((l) => String(l.line.why ?? '').includes('AUTH_TOKEN_MISMATCH')), 120_000);
    expect(String(refused.line.why)).toMatch(/refused the token \(AUTH_TOKEN_MISMATCH\): OPENCLAW_GATEWAY_TOKEN in the agent's secret must be/);
    // Refused since the fleet started, minutes ago, retrying all along (5 s, doubling): one
    // process said it once. A runtime that exited on it would have been restarted by the
    // launcher and said it again, from another process.
    expect(linesOf('grif').filter((l) => String(l.line.why ?? '').includes('AUTH_TOKEN_MISMATCH'))).toHaveLength(1);
    expect(linesOf('grif').some((l) => l.line.msg === 'ready')).toBe(false);
    expect(fleet.supervisor.pid('grif')).toBeDefined();
    const status = fleet.status().agents.find((a) => a.id === 'grif')!;
    expect(status.warnings?.join(' ')).toContain('AUTH_TOKEN_MISMATCH');
    const all = JSON.stringify(runtimeLines);
    for (const secret of [GATEWAY_TOKEN, WRONG_TOKEN]) expect(all).not.toContain(secret);
  });

  it('answers exactly once when the operator’s gateway is SIGKILLed mid-turn and started again: the bridge reconnects, still paired', async () => {
    const release = held.hold('survive operator gateway restart');
    const runtimePid = fleet.supervisor.pid('fran');
    const before = runtimeLines.length;
    tg.pushUpdate(FRAN_BOT, textUpdate({ updateId: ++updateId, chatId: OWNER, fromId: OWNER, text: 'survive operator gateway restart' }));
    await waitFor('the model asked mid-turn', () => model.requests().some((r) => mentions(r.body, 'survive operator gateway restart')), 120_000);
    const exited = new Promise((r) => gateway.once('exit', r));
    process.kill(-gateway.pid!, 'SIGKILL');
    await exited;
    release();
    await waitFor('the bridge to notice', () => linesOf('fran', before).find((l) => String(l.line.why ?? '').includes('connection dropped')), 30_000);
    await startOperatorGateway(gatewayPort);
    await waitFor('the bridge reconnected', () => linesOf('fran', before).find((l) => l.line.msg === 'connected to the OpenClaw gateway'), 120_000);
    await waitFor('the reply after the gateway restart', () => sentTo(OWNER, 'survive operator gateway restart').length > 0, 240_000);
    expect(sentTo(OWNER, 'survive operator gateway restart')).toHaveLength(1);
    // The same runtime: the bridge lived through it, and the approval outlived the gateway's restart.
    expect(fleet.supervisor.pid('fran')).toBe(runtimePid);
    expect(linesOf('fran', before).some((l) => String(l.line.why ?? '').includes('pairing'))).toBe(false);
  });
});
