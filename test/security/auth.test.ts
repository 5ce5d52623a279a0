// Who gets in: the Telegram webhook's secret token, the hooks token and the dashboard
// token (bearer, login form and session cookie) are all compared through one helper,
// secretTokenMatches, which calls crypto.timingSafeEqual whatever the lengths. Proven on
// the code path (spies on the helper and on timingSafeEqual while each edge refuses a
// wrong or missing token) and by a scan of every auth file for a plain comparison.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InMemoryAgentQueues } from '../../shared/adapters/memory/in-memory-queues.ts';
import { InMemoryInboundDedupe, InMemoryInboundOrigins, InMemoryPairingStore, InMemorySessionRegistry } from '../../shared/adapters/memory/in-memory-state.ts';
import { loadConfigFile } from '../../shared/config/load.ts';
import { handleHook } from '../../shared/control/hooks.ts';
import { handleTelegramWebhook } from '../../shared/control/telegram-webhook.ts';
import type { DashboardSources } from '../../shared/dashboard/fleet-view.ts';
import type { FleetActions } from '../../shared/dashboard/actions.ts';
import { sessionCookieValue, SIGN_IN_LINK_TTL_MS, signInLinkCode } from '../../shared/dashboard/auth.ts';
import { memoryLogger } from '../../shared/log.ts';
import { dashboardSignIn, handleDashboard, newSignInLink } from '../../shared/dashboard/handler.ts';
import { writeFigures } from '../support/figures.ts';
import { SecretScan } from '../support/secret-scan.ts';

const spies = vi.hoisted(() => ({ matches: [] as Array<[string, string | undefined]>, timingSafe: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>();
  return {
    ...real,
    timingSafeEqual: (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
      spies.timingSafe++;
      return real.timingSafeEqual(a, b);
    },
  };
});
vi.mock('../../shared/telegram/webhook-secret.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../shared/telegram/webhook-secret.ts')>();
  return {
    ...real,
    secretTokenMatches: (expected: string, given: string | undefined) => {
      spies.matches.push([expected, given]);
      return real.secretTokenMatches(expected, given);
    },
  };
});

const WEBHOOK_SECRET = 'auth-webhook-secret-0123456789abcdef';
const HOOKS_TOKEN = 'auth-hooks-token-0123456789abcdef00';
const DASHBOARD_TOKEN = 'auth-dashboard-token-0123456789abcd';
const scan = new SecretScan();
scan.addSecrets(WEBHOOK_SECRET, HOOKS_TOKEN, DASHBOARD_TOKEN);
const log = memoryLogger();

/** Wrong tokens of every shape: missing, empty, one character off, one short, one long, case-changed, padded. */
function wrongTokens(real: string): Array<string | undefined> {
  return [
    undefined,
    '',
    'x',
    `${real.slice(0, -1)}${real.at(-1) === 'a' ? 'b' : 'a'}`,
    real.slice(0, -1),
    `${real}0`,
    real.toUpperCase(),
    ` ${real}`,
    real.slice(0, 8),
  ];
}

afterEach(() => {
  spies.matches.length = 0;
  spies.timingSafe = 0;
});

describe('the Telegram webhook secret token', () => {
  const config = loadConfigFile('clawfleet.json');
  config.channels.telegram!.dmPolicy = 'open';
  const deps = {
    config,
    webhookSecret: async () => WEBHOOK_SECRET,
    queues: new InMemoryAgentQueues(),
    dedupe: new InMemoryInboundDedupe(() => 1),
    sessions: new InMemorySessionRegistry(),
    origins: new InMemoryInboundOrigins(() => 1),
    pairings: new InMemoryPairingStore(),
    botIdentity: async () => ({ id: 1, username: 'fran_bot' }),
    channel: async () => ({ maxTextLength: 4096, sendText: async () => {}, sendTyping: async () => {} }),
    newPairingCode: () => 'CODE',
    clock: { now: () => 1 },
    log,
  };
  const body = JSON.stringify({
    update_id: 1,
    message: { message_id: 1, date: 1, chat: { id: 9, type: 'private' }, from: { id: 9, is_bot: false, first_name: 'A' }, text: 'hi' },
  });

  it.each(wrongTokens(WEBHOOK_SECRET).map((t) => [JSON.stringify(t), t]))(
    'refuses %s with 401 through the constant-time helper, and queues nothing',
    async (_n, token) => {
      const res = await handleTelegramWebhook({ accountId: 'fran', secretToken: token, body }, deps);
      scan.record('webhook response', JSON.stringify(res.body));
      expect(res.status).toBe(401);
      expect(spies.matches).toEqual([[WEBHOOK_SECRET, token]]);
      if (token !== undefined) expect(spies.timingSafe).toBe(1);
      expect(deps.queues.queues.size).toBe(0);
    },
  );
});

describe('the hooks token', () => {
  const config = loadConfigFile('clawfleet.json');
  config.hooks = { tokenSecret: 'HOOKS_TOKEN' };
  const queues = new InMemoryAgentQueues();
  const deps = {
    config,
    hooksToken: async () => HOOKS_TOKEN,
    queues,
    dedupe: new InMemoryInboundDedupe(() => 1),
    sessions: new InMemorySessionRegistry(),
    origins: new InMemoryInboundOrigins(() => 1),
    newId: () => 'id',
    clock: { now: () => 1 },
    log,
  };
  const call = (headers: Record<string, string | undefined>) =>
    handleHook(
      { method: 'POST', path: '/hooks/agent', query: undefined, headers: { 'content-type': 'application/json', ...headers }, body: '{"message":"hi"}' },
      deps,
    );

  it.each(
    wrongTokens(HOOKS_TOKEN)
      .filter((t) => t !== undefined && t.trim() === t && t !== '')
      .map((t) => [JSON.stringify(t), t!]),
  )('refuses %s as a bearer or x-openclaw-token with 401 through the constant-time helper', async (_n, token) => {
    for (const headers of [{ authorization: `Bearer ${token}` }, { 'x-openclaw-token': token }]) {
      spies.matches.length = 0;
      const res = await call(headers);
      scan.record('hooks response', JSON.stringify(res.body));
      expect(res.status).toBe(401);
      expect(spies.matches).toEqual([[HOOKS_TOKEN, token]]);
    }
    expect(queues.queues.size).toBe(0);
  });

  it('refuses a missing token, and a right token beside a wrong one', async () => {
    expect((await call({})).status).toBe(401);
    expect((await call({ authorization: `Bearer ${HOOKS_TOKEN}`, 'x-openclaw-token': 'wrong-token-0123456789' })).status).toBe(401);
    expect(queues.queues.size).toBe(0);
  });
});

const DASHBOARD_NOW = 1_764_000_000_000;

/** A local dashboard holding DASHBOARD_TOKEN at DASHBOARD_NOW, with only what an unauthenticated request may touch (anything more would throw, and fail the test with a 500). */
function tokenDashboard() {
  const config = loadConfigFile('clawfleet.json');
  const sources = { config, clock: { now: () => DASHBOARD_NOW }, log, where: 'local' } as unknown as DashboardSources;
  const deps = {
    sources,
    actions: {} as FleetActions,
    token: async () => DASHBOARD_TOKEN,
    secureCookie: true,
    loginHint: 'the dashboard secret',
    refreshMs: 5_000,
  };
  return { config, sources, deps };
}

describe('the dashboard token', () => {
  const { config, deps } = tokenDashboard();
  const request = (r: { method?: string; path?: string; headers?: Record<string, string>; cookies?: string[]; body?: string }) =>
    handleDashboard(
      { method: r.method ?? 'GET', path: r.path ?? '/api/fleet', query: '', headers: r.headers ?? {}, cookies: r.cookies ?? [], body: r.body ?? '' },
      deps,
    );

  it.each(
    wrongTokens(DASHBOARD_TOKEN)
      .filter((t) => t !== undefined && t !== '' && t.trim() === t)
      .map((t) => [JSON.stringify(t), t!]),
  )('refuses %s as a bearer and at the login form through the constant-time helper', async (_n, token) => {
    const api = await request({ headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(401);
    expect(spies.matches).toEqual([[DASHBOARD_TOKEN, token]]);
    spies.matches.length = 0;
    const login = await request({
      method: 'POST',
      path: '/login',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${encodeURIComponent(token)}`,
    });
    expect(login.status).toBe(401);
    expect(spies.matches).toEqual([[DASHBOARD_TOKEN, token]]);
    for (const res of [api, login]) scan.record('dashboard response', JSON.stringify(res));
  });

  it('refuses no token, and a session cookie made with another token, through the same helper', async () => {
    expect((await request({})).status).toBe(401);
    const forged = sessionCookieValue('a-token-that-is-not-the-real-one', config.fleet, 1_764_000_000_000);
    const res = await request({ cookies: [`clawfleet_dashboard=${forged}`] });
    expect(res.status).toBe(401);
    expect(spies.matches).toHaveLength(1);
    expect(spies.timingSafe).toBe(1);
    scan.record('dashboard response', JSON.stringify(res));
  });
  it('reads the token once per request (on AWS a read can be a Secrets Manager call)', async () => {
    let reads = 0;
    const counted = { ...deps, token: async () => (reads++, DASHBOARD_TOKEN) };
    const res = await handleDashboard(
      { method: 'GET', path: '/api/fleet', query: '', headers: { authorization: 'Bearer not-the-dashboard-token-0123' }, cookies: [], body: '' },
      counted,
    );
    expect(res.status).toBe(401);
    expect(reads).toBe(1);
  });
});

describe('the dashboard sign-in link (`clawfleet dashboard`)', () => {
  const NOW = DASHBOARD_NOW;
  const { config, sources, deps } = tokenDashboard();
  const postCode = (code: string) =>
    handleDashboard(
      {
        method: 'POST',
        path: '/login',
        query: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        cookies: [],
        body: `token=&code=${encodeURIComponent(code)}`,
      },
      deps,
    );

  it('is made with the token the dashboard signs in with, and signs a browser in with a session cookie', async () => {
    const { code, expiresAt } = await newSignInLink(deps);
    expect(expiresAt).toBe(NOW + SIGN_IN_LINK_TTL_MS);
    expect(code).not.toContain(DASHBOARD_TOKEN);
    const res = await postCode(code);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/');
    expect(res.cookies[0]).toMatch(/^clawfleet_dashboard=\d+\.[0-9a-f]{64}; /);
    // The cookie it sets is a session's, good on the next request.
    const cookie = res.cookies[0]!.split(';')[0]!;
    expect(await dashboardSignIn({ headers: {}, cookies: [cookie] }, deps)).toEqual({ ok: true, via: 'cookie' });
    scan.record('dashboard response', JSON.stringify(res));
  });

  it.each([
    ['lapsed the moment its ten minutes end', signInLinkCode(DASHBOARD_TOKEN, config.fleet, NOW - SIGN_IN_LINK_TTL_MS).code],
    ['dated further ahead than a minute of clock skew', signInLinkCode(DASHBOARD_TOKEN, config.fleet, NOW + 60_001).code],
    ['made with another token', signInLinkCode('a-token-that-is-not-the-real-one', config.fleet, NOW).code],
    ['made for another fleet', signInLinkCode(DASHBOARD_TOKEN, 'other-fleet', NOW).code],
    ['a session cookie’s value', sessionCookieValue(DASHBOARD_TOKEN, config.fleet, NOW)],
    ['the token itself', DASHBOARD_TOKEN],
    ['not a code at all', 'x'],
  ])('refuses a code %s, saying how to get a new one', async (_what, code) => {
    const res = await postCode(code);
    expect(res.status).toBe(401);
    expect(res.cookies).toEqual([]);
    expect(res.body).toContain(
      'That sign-in link has lapsed or is not for this dashboard (or the clock that made it is off, or the token changed minutes ago). npx clawfleet dashboard prints a new one',
    );
    scan.record('dashboard response', JSON.stringify(res));
  });

  it('is good from a clock up to a minute ahead', async () => {
    expect((await postCode(signInLinkCode(DASHBOARD_TOKEN, config.fleet, NOW + 60_000).code)).status).toBe(303);
  });

  it('does not refuse the right token typed beside a stale code (a form the browser restored)', async () => {
    const stale = signInLinkCode(DASHBOARD_TOKEN, config.fleet, NOW - SIGN_IN_LINK_TTL_MS).code;
    const res = await handleDashboard(
      {
        method: 'POST',
        path: '/login',
        query: '',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        cookies: [],
        body: `token=${DASHBOARD_TOKEN}&code=${stale}`,
      },
      deps,
    );
    expect(res.status).toBe(303);
  });

  it('is still good one second before it lapses, and checks its mac through the constant-time helper', async () => {
    const res = await postCode(signInLinkCode(DASHBOARD_TOKEN, config.fleet, NOW - SIGN_IN_LINK_TTL_MS + 1000).code);
    expect(res.status).toBe(303);
    expect(spies.matches).toHaveLength(1);
    expect(spies.timingSafe).toBe(1);
  });

  it('is refused where no usable token is configured, as the sign-in is', async () => {
    await expect(newSignInLink({ ...deps, token: async () => 'short' })).rejects.toMatchObject({ code: 'DASHBOARD_TOKEN_UNSET' });
    await expect(newSignInLink({ ...deps, token: async () => undefined })).rejects.toMatchObject({ code: 'DASHBOARD_TOKEN_UNSET' });
  });
});

describe('every auth path in the code', () => {
  const files = [
    'shared/telegram/webhook-secret.ts',
    'shared/hooks/auth.ts',
    'shared/dashboard/auth.ts',
    'shared/control/telegram-webhook.ts',
    'shared/control/telegram-webhook-update.ts',
    'shared/control/hooks.ts',
    'shared/dashboard/handler.ts',
    'local/server.ts',
    'local/runtime-lifecycle.ts',
  ];

  it('compares tokens only with timingSafeEqual, never with === or !==', () => {
    for (const file of files) {
      const code = readFileSync(file, 'utf8');
      const plain = code
        .split('\n')
        .filter(
          (line) =>
            /\b(token|secret|expected|given|mine)\w*\s*[!=]==|[!=]==\s*\w*(token|secret|expected|given|mine)\b/i.test(line) &&
            !/\.length|undefined|typeof|=== '(|\[)/.test(line),
        );
      expect(plain, file).toEqual([]);
    }
    const helper = readFileSync('shared/telegram/webhook-secret.ts', 'utf8');
    expect(helper).toMatch(/timingSafeEqual\(a, b\) : \(timingSafeEqual\(a, a\), false\)/);
    expect(readFileSync('local/server.ts', 'utf8')).toMatch(/timingSafeEqual\(given, mine\)/);
    expect(readFileSync('local/runtime-lifecycle.ts', 'utf8')).toMatch(/timingSafeEqual\(mine, given\)/);
  });

  it('never put a token into a log line or a response', () => {
    scan.record('log lines', log.lines.map((l) => JSON.stringify(l)).join('\n'));
    expect(log.lines.length).toBeGreaterThan(10);
    expect(scan.hits()).toEqual([]);
    writeFigures('secret-scan-auth', { ...scan.stats(), hits: 0 });
  });
});
