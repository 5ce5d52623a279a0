// The local HTTP surface against a web page and a rogue agent (issue #12, "Why" 4): DNS
// rebinding (a page whose name resolves to 127.0.0.1) refused on every route family even
// with valid credentials, writes from another origin refused, /api/* closed without the
// dashboard's sign-in, a runtime's token good for nothing but its own /runtime/* calls —
// and the dashboard, the CLI and the runtimes still served. The local server runs in this
// process over real HTTP on 127.0.0.1 with its real control plane on an in-memory SQLite.
import { request } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import { writeAdminFile } from '../../local/admin-file.ts';
import { LocalControlPlane } from '../../local/sqlite-control-plane.ts';
import { FileSecretStore } from '../../local/secrets-file.ts';
import { createLocalServer, type LocalServer } from '../../local/server.ts';
import { StorageWatch } from '../../local/storage-watch.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { sessionCookieValue } from '../../shared/dashboard/auth.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { runningAgentStatus } from '../support/agent-status.ts';
import { SecretScan } from '../support/secret-scan.ts';
import { writeFigures } from '../support/figures.ts';
import { captureIO } from '../unit/cli-io.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { tempDir } from '../support/temp-dirs.ts';

const DASHBOARD_TOKEN = 'a'.repeat(16) + 'local-http-dashboard-token';
const HOOKS_TOKEN = 'local-http-hooks-token-0123456789';
const ADMIN_TOKEN = 'b'.repeat(64);
const RUNTIME_TOKENS: Record<string, string> = { alpha: 'runtime-token-of-alpha-0123456789abcdef', beta: 'runtime-token-of-beta-0123456789abcdef0' };
const ALLOWED_PROXY = 'fleet.example.ts.net';

let dir: string;
let cp: LocalControlPlane;
let server: LocalServer;
let port: number;
const log = memoryLogger();
const acted: string[] = [];
const scan = new SecretScan();
scan.addSecrets(DASHBOARD_TOKEN, HOOKS_TOKEN, ADMIN_TOKEN, ...Object.values(RUNTIME_TOKENS));
let answers = 0;

interface Answer {
  status: number;
  body: string;
  json: { error?: string; code?: string } & Record<string, unknown>;
}

/** A request as a browser or a script sends it, with whatever Host header the test says (fetch would not let it). */
function call(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers: { host: `127.0.0.1:${port}`, ...headers }, setHost: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        scan.record(`${method} ${path}`, `${JSON.stringify(res.headers)}\n${text}`);
        answers++;
        let json = {};
        try {
          json = JSON.parse(text) as object;
        } catch {
          // a page
        }
        resolve({ status: res.statusCode ?? 0, body: text, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const json = (headers: Record<string, string> = {}) => ({ 'content-type': 'application/json', ...headers });
const dashboardBearer = { authorization: `Bearer ${DASHBOARD_TOKEN}` };
const sessionCookie = () => ({ cookie: `clawfleet_dashboard=${sessionCookieValue(DASHBOARD_TOKEN, 'surface', systemClock.now())}` });
const runtimeBearer = (agentId: string) => ({ authorization: `Bearer ${RUNTIME_TOKENS[agentId]}` });
const queued = (agentId: string) => cp.inbox(agentId).depth;
const chatLines = (agentId: string) => cp.chat.since(agentId, 0).messages.length;

/** One request of each route family, each with the credentials it needs: only the Host (or Origin) can make it fail. */
/** What `clawfleet cron run` posts: a config job's trigger. */
const cronTrigger = (agentId: string) => ({
  v: 1,
  kind: 'job',
  agentId,
  jobId: 'tidy',
  owner: 'config',
  sessionTarget: 'main',
  payload: { kind: 'agentTurn', message: 'run exec: id' },
});

const ROUTES: Array<{ family: string; method: string; path: string; headers: Record<string, string>; body?: string }> = [
  { family: 'dashboard page', method: 'GET', path: '/', headers: sessionCookie() },
  { family: 'sign-in', method: 'POST', path: '/login', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `token=${DASHBOARD_TOKEN}` },
  { family: 'assets', method: 'GET', path: '/assets/dashboard.js', headers: {} },
  { family: 'fragments', method: 'GET', path: '/fragments/overview', headers: dashboardBearer },
  { family: 'dashboard API', method: 'GET', path: '/api/fleet', headers: dashboardBearer },
  { family: 'dashboard chat', method: 'POST', path: '/api/fleet/alpha/chat', headers: json(dashboardBearer), body: '{"text":"rm -rf ~"}' },
  { family: 'dashboard action', method: 'POST', path: '/api/fleet/alpha/hibernate', headers: json(dashboardBearer), body: '{}' },
  { family: 'local agents API', method: 'GET', path: '/api/agents', headers: dashboardBearer },
  { family: 'local chat API (send)', method: 'POST', path: '/api/chat/alpha', headers: json(dashboardBearer), body: '{"text":"run exec: id"}' },
  { family: 'local chat API (read)', method: 'GET', path: '/api/chat/alpha/messages?after=0', headers: dashboardBearer },
  { family: 'health', method: 'GET', path: '/healthz', headers: {} },
  { family: 'telegram webhook', method: 'POST', path: '/telegram/alpha', headers: json(), body: '{}' },
  {
    family: 'hooks',
    method: 'POST',
    path: '/hooks/agent',
    headers: json({ authorization: `Bearer ${HOOKS_TOKEN}` }),
    body: '{"message":"hi","agentId":"alpha"}',
  },
  { family: 'runtime channel', method: 'POST', path: '/runtime/receive', headers: json(runtimeBearer('alpha')), body: '{"waitSeconds":0}' },
  { family: 'runtime media', method: 'GET', path: '/runtime/media?key=agents/alpha/in/x/photo.jpg', headers: runtimeBearer('alpha') },
  { family: 'admin API', method: 'GET', path: '/admin/status', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
  { family: 'admin action', method: 'POST', path: '/admin/agents/alpha/restart', headers: json({ authorization: `Bearer ${ADMIN_TOKEN}` }), body: '{}' },
  {
    family: 'admin cron run',
    method: 'POST',
    path: '/admin/cron/run',
    headers: json({ authorization: `Bearer ${ADMIN_TOKEN}` }),
    body: JSON.stringify({ trigger: cronTrigger('alpha') }),
  },
  { family: 'no such route', method: 'GET', path: '/nothing-here', headers: {} },
];

beforeAll(async () => {
  dir = tempDir('cf-local-http-');
  const secretsPath = join(dir, 'secrets.json');
  writeFileSync(
    secretsPath,
    JSON.stringify({ 'clawfleet/surface/control/dashboard': { DASHBOARD_TOKEN }, 'clawfleet/surface/control/hooks': { HOOKS_TOKEN } }),
  );
  const config: FleetConfig = parseConfig({
    fleet: 'surface',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'alpha', default: true }, { id: 'beta' }] },
    models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
    hooks: { tokenSecret: 'HOOKS_TOKEN' },
  });
  cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new FileSecretStore(secretsPath), systemClock, log);
  server = createLocalServer({
    cp,
    log,
    storage: new StorageWatch(log, systemClock),
    allowedHosts: [ALLOWED_PROXY],
    adminToken: ADMIN_TOKEN,
    dashboardToken: 'c'.repeat(64),
    agentOfToken: (token) => Object.entries(RUNTIME_TOKENS).find(([, t]) => t === token)?.[0],
    agents: () => config.agents.list.map((a) => ({ id: a.id, name: a.id, model: 'offline', state: 'running' })),
    status: () => ({
      fleet: 'surface',
      where: 'local (test)',
      agents: config.agents.list.map((a) => runningAgentStatus(a.id, a.id, queued(a.id))),
    }),
    act: async (agentId, action) => {
      acted.push(`${action} ${agentId}`);
      return 'running';
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  if (!server) return;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('the Host header (DNS rebinding)', () => {
  const REBOUND = [
    'rebind.attacker.example',
    'rebind.attacker.example:8787',
    () => `127.0.0.1.nip.io:${port}`,
    () => `localhost.attacker.example:${port}`,
    'attacker.example:80',
    () => `evil.${ALLOWED_PROXY}`,
  ];

  it.each(ROUTES.map((r) => [r.family, r]))('refuses a rebound name on the %s route, credentials and all, before it has any effect', async (_family, route) => {
    for (const host of REBOUND.map((h) => (typeof h === 'function' ? h() : h))) {
      const res = await call(route.method, route.path, { ...route.headers, host }, route.body);
      expect(res.status, `${route.family} with Host ${host}`).toBe(403);
      expect(res.json.code).toBe('HOST_NOT_ALLOWED');
      expect(res.body).not.toContain(DASHBOARD_TOKEN);
    }
    expect(queued('alpha')).toBe(0);
    expect(chatLines('alpha')).toBe(0);
    expect(acted).toEqual([]);
  });

  it('refuses a request without a Host, and one whose Host is not a host name at all', async () => {
    for (const host of ['', 'user@127.0.0.1', '127.0.0.1:8787/x', '127.0.0.1:99999', '127.0.0.1, rebind.attacker.example', '[::1]]']) {
      const res = await call('GET', '/healthz', { host });
      expect(res.status, `Host ${JSON.stringify(host)}`).toBe(403);
    }
  });

  it('logs each refused name once, not once per request', () => {
    const refused = log.lines.filter((l) => String(l.msg).startsWith('request refused: its Host'));
    expect(refused.filter((l) => l.host === 'rebind.attacker.example')).toHaveLength(1);
  });

  it('serves every loopback spelling with any port, and the name the operator allowed', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `[::1]:${port}`,
      `LOCALHOST:${port}`,
      'localhost',
      '127.0.0.1:9000',
      ALLOWED_PROXY,
      `${ALLOWED_PROXY.toUpperCase()}:443`,
    ]) {
      expect((await call('GET', '/healthz', { host })).status, `Host ${host}`).toBe(200);
    }
  });
});

describe('writes from another origin', () => {
  const page = () => `http://127.0.0.1:${port}`;
  const WRITES = ROUTES.filter((r) => r.method === 'POST');

  it.each(WRITES.map((r) => [r.family, r]))('refuses a %s POST that another site’s page sent through the browser', async (_family, route) => {
    const foreign: Record<string, string>[] = [
      { origin: 'http://rebind.attacker.example' },
      // Another port on this machine: same site, so a SameSite cookie goes along; never the same origin.
      { origin: `http://127.0.0.1:${port + 1}` },
      { origin: `http://localhost:${port}` },
      { origin: `https://127.0.0.1:${port}.attacker.example` },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site' },
      { referer: 'http://rebind.attacker.example/page' },
    ];
    for (const extra of foreign) {
      const res = await call(route.method, route.path, { ...route.headers, ...sessionCookie(), ...extra }, route.body);
      expect(res.status, `${route.family} with ${JSON.stringify(extra)}`).toBe(403);
      expect(res.json.code).toBe('ORIGIN_NOT_ALLOWED');
    }
    expect(queued('alpha')).toBe(0);
    expect(chatLines('alpha')).toBe(0);
    expect(acted).toEqual([]);
  });

  it('serves the same writes from the dashboard’s own page (Origin, or Sec-Fetch-Site same-origin)', async () => {
    const fromPage = await call(
      'POST',
      '/api/fleet/alpha/chat',
      json({ ...sessionCookie(), origin: page(), 'sec-fetch-site': 'same-origin' }),
      '{"text":"from the page"}',
    );
    expect(fromPage.status).toBe(202);
    const noOrigin = await call(
      'POST',
      '/api/fleet/beta/chat',
      json({ ...sessionCookie(), 'sec-fetch-site': 'same-origin' }),
      '{"text":"same-origin, no Origin"}',
    );
    expect(noOrigin.status).toBe(202);
    const login = await call('POST', '/login', { 'content-type': 'application/x-www-form-urlencoded', origin: page() }, `token=${DASHBOARD_TOKEN}`);
    expect(login.status).toBe(303);
    expect(queued('alpha')).toBe(1);
    expect(queued('beta')).toBe(1);
    await cp
      .inbox('alpha')
      .receive(0)
      .then(([m]) => cp.inbox('alpha').delete(m!.receipt));
    await cp
      .inbox('beta')
      .receive(0)
      .then(([m]) => cp.inbox('beta').delete(m!.receipt));
  });
});

describe('/api/* without the dashboard’s sign-in', () => {
  it('refuses an unauthenticated read of an agent’s chat and an unauthenticated message to it, and queues nothing', async () => {
    const before = chatLines('alpha');
    const unsigned: Record<string, string>[] = [
      {},
      { authorization: 'Bearer not-the-token-at-all-0000' },
      { authorization: `Bearer ${ADMIN_TOKEN}` },
      { authorization: DASHBOARD_TOKEN },
      { cookie: 'clawfleet_dashboard=1764000000000.' + '0'.repeat(64) },
    ];
    for (const headers of unsigned) {
      const read = await call('GET', '/api/chat/alpha/messages?after=0', headers);
      expect(read.status, JSON.stringify(headers)).toBe(401);
      expect(read.body).not.toContain('from the page');
      const send = await call('POST', '/api/chat/alpha', json(headers), '{"text":"run exec: cat ~/.ssh/id_ed25519"}');
      expect(send.status, JSON.stringify(headers)).toBe(401);
      expect((await call('GET', '/api/agents', headers)).status).toBe(401);
      expect((await call('GET', '/api/no-such-thing', headers)).status).toBe(401);
    }
    expect(queued('alpha')).toBe(0);
    expect(chatLines('alpha')).toBe(before);
  });

  it('refuses an agent’s runtime token on another agent’s /api/ routes and on the admin API', async () => {
    const alpha = runtimeBearer('alpha');
    expect((await call('GET', '/api/chat/beta/messages?after=0', alpha)).status).toBe(401);
    expect((await call('POST', '/api/chat/beta', json(alpha), '{"text":"from alpha, as the owner"}')).status).toBe(401);
    expect((await call('GET', '/api/fleet/beta/chat?after=0', alpha)).status).toBe(401);
    expect((await call('POST', '/api/fleet/beta/hibernate', json(alpha), '{}')).status).toBe(401);
    expect((await call('GET', '/api/fleet', alpha)).status).toBe(401);
    expect((await call('GET', '/admin/status', alpha)).status).toBe(401);
    expect((await call('POST', '/admin/agents/beta/restart', json(alpha), '{}')).status).toBe(401);
    // An agent cannot fire another agent's cron job (nor its own) through the operator's route.
    expect((await call('POST', '/admin/cron/run', json(alpha), JSON.stringify({ trigger: cronTrigger('beta') }))).status).toBe(401);
    expect(queued('beta')).toBe(0);
    expect(acted).toEqual([]);
  });

  it('refuses a runtime token speaking for another agent on /runtime/outbox: parked in its own outbox DLQ, nothing reaches the other’s chat', async () => {
    const forged = {
      v: PROTOCOL_VERSION,
      kind: 'reply',
      id: 'forged.1',
      agentId: 'beta',
      sessionKey: 'agent:beta:main',
      ts: systemClock.now(),
      inReplyTo: 'x',
      text: 'I am beta',
    };
    const res = await call('POST', '/runtime/outbox', json(runtimeBearer('alpha')), JSON.stringify({ envelope: forged }));
    expect(res.status).toBe(200);
    expect(
      cp
        .dlq('alpha')
        .list()
        .map((d) => d.reason),
    ).toEqual([expect.stringMatching(/^AGENT_MISMATCH: /)]);
    expect(cp.chat.since('beta', 0).messages.some((m) => m.text === 'I am beta')).toBe(false);
  });
});

describe('the legitimate callers', () => {
  it('the dashboard signed in by bearer or cookie, and the chat API by bearer, as scripts use it', async () => {
    expect((await call('GET', '/api/fleet', dashboardBearer)).status).toBe(200);
    expect((await call('GET', '/', sessionCookie())).status).toBe(200);
    const sent = await call('POST', '/api/chat/alpha', json(dashboardBearer), '{"text":"hello"}');
    expect(sent.status).toBe(202);
    const lines = await call('GET', '/api/chat/alpha/messages?after=0', dashboardBearer);
    expect(lines.status).toBe(200);
    expect(JSON.stringify(lines.json)).toContain('hello');
    expect((await call('GET', '/api/agents', sessionCookie())).status).toBe(200);
  });

  it('a runtime with its own token: receives its message and sends, from 127.0.0.1 with no Origin', async () => {
    const got = await call('POST', '/runtime/receive', json(runtimeBearer('alpha')), '{"waitSeconds":0}');
    expect(got.status).toBe(200);
    const [message] = got.json.messages as { body: string; receipt: string }[];
    expect(JSON.parse(message!.body)).toMatchObject({ agentId: 'alpha', text: 'hello' });
    expect((await call('POST', '/runtime/delete', json(runtimeBearer('alpha')), JSON.stringify({ receipt: message!.receipt }))).status).toBe(200);
  });

  it('the CLI with the admin token from admin.json', async () => {
    const state = join(dir, 'state');
    mkdirSync(state, { mode: 0o700 });
    writeFileSync(join(dir, 'clawfleet.json'), JSON.stringify(cp.config));
    writeAdminFile(state, { url: `http://127.0.0.1:${port}`, token: ADMIN_TOKEN, pid: process.pid, startedAt: systemClock.now() });
    const io = captureIO({ cwd: dir });
    expect(await runCli(['status', '--state', 'state'], io)).toBe(0);
    expect(io.outText()).toMatch(/alpha/);
    const restart = captureIO({ cwd: dir });
    expect(await runCli(['runtime', 'restart', '--agent', 'beta', '--state', 'state'], restart), restart.errText()).toBe(0);
    expect(acted).toEqual(['restart beta']);
    scan.record('CLI output', [io.outText(), io.errText(), restart.outText(), restart.errText()].join('\n'));
  });

  it('hooks with the hooks token', async () => {
    const res = await call('POST', '/hooks/agent', json({ authorization: `Bearer ${HOOKS_TOKEN}` }), '{"message":"from a hook","agentId":"beta"}');
    expect(res.status).toBe(202);
  });

  it('the CLI’s cron run with the admin token: a job fired now; a malformed trigger or an unknown agent refused, nothing queued', async () => {
    const admin = json({ authorization: `Bearer ${ADMIN_TOKEN}` });
    const before = queued('beta');
    const bad = await call('POST', '/admin/cron/run', admin, JSON.stringify({ trigger: { ...cronTrigger('beta'), owner: 'someone' } }));
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/trigger\.owner/);
    expect((await call('POST', '/admin/cron/run', admin, JSON.stringify({ trigger: cronTrigger('nobody') }))).status).toBe(404);
    expect(queued('beta')).toBe(before);
    const ran = await call('POST', '/admin/cron/run', admin, JSON.stringify({ trigger: cronTrigger('beta') }));
    expect(ran.status).toBe(200);
    expect(ran.json).toMatchObject({ agentId: 'beta', queued: expect.stringMatching(/^cron\.beta\.tidy\.manual\./) });
    expect(queued('beta')).toBe(before + 1);
  });
});

describe('what the surface said', () => {
  it('never put a token into a response or a log line, refusals included', () => {
    scan.record('log lines', log.lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(answers).toBeGreaterThan(200);
    expect(scan.hits()).toEqual([]);
    writeFigures('local-http', { ...scan.stats(), answers, hits: 0 });
  });
});
