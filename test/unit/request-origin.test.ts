// The Host and Origin policy of the local HTTP surface (shared/http/request-origin.ts):
// which names a request may address the server by, and which writes a browser may send;
// and the same Origin check in the dashboard handler where λ dashboard runs it.
import { describe, expect, it } from 'vitest';
import { crossOriginWrite, hostAllowed, parseAllowedHost, parseHostHeader, type RequestSource } from '../../shared/http/request-origin.ts';
import type { DashboardSources } from '../../shared/dashboard/fleet-view.ts';
import { memoryLogger } from '../../shared/log.ts';
import { handleDashboard } from '../../shared/dashboard/handler.ts';

describe('the Host header', () => {
  const allowed = new Set(['fleet.example.ts.net']);

  it.each([
    '127.0.0.1:8787',
    'localhost:8787',
    '[::1]:8787',
    'LocalHost:1',
    'localhost',
    '127.0.0.1',
    'fleet.example.ts.net',
    'fleet.example.ts.net:443',
    ' localhost:8787 ',
  ])('lets %s through', (host) => {
    expect(hostAllowed(host, allowed)).toBe(true);
  });

  it.each([
    undefined,
    '',
    'rebind.attacker.example',
    'rebind.attacker.example:8787',
    '127.0.0.1.nip.io:8787',
    'localhost.attacker.example',
    'localhost.',
    '127.0.0.2:8787',
    '0.0.0.0:8787',
    '[::ffff:127.0.0.1]:8787',
    '2130706433:8787',
    'user@localhost:8787',
    'localhost:8787/x',
    'localhost:0',
    'localhost:65536',
    'localhost:8787, rebind.attacker.example',
    'evil.fleet.example.ts.net',
    'fleet.example.ts.net.attacker.example',
  ])('refuses %j', (host) => {
    expect(hostAllowed(host, allowed)).toBe(false);
  });

  it('reads name and port', () => {
    expect(parseHostHeader('[::1]:8787')).toEqual({ name: '[::1]', port: 8787 });
    expect(parseHostHeader('LOCALHOST')).toEqual({ name: 'localhost', port: undefined });
  });

  it('takes an allowed name only as a bare host name, never a pattern or URL', () => {
    expect(parseAllowedHost('Fleet.Example.ts.net')).toBe('fleet.example.ts.net');
    expect(parseAllowedHost('192.168.1.20')).toBe('192.168.1.20');
    for (const bad of ['*', '*.example.com', 'https://fleet.example.com', 'fleet.example.com:443', 'fleet.example.com/', '', 'a b', '-bad.example']) {
      expect(() => parseAllowedHost(bad), bad).toThrow(/is not a host name/);
    }
  });
});

describe('writes from another origin', () => {
  const req = (over: Partial<RequestSource>): RequestSource => ({
    method: 'POST',
    host: '127.0.0.1:8787',
    origin: undefined,
    secFetchSite: undefined,
    referer: undefined,
    ...over,
  });

  it('lets reads through whatever they say', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get'])
      expect(crossOriginWrite(req({ method, origin: 'http://evil.example', secFetchSite: 'cross-site' }))).toBeUndefined();
  });

  it('lets a write from the server’s own page through, and one from a program (no Origin, Sec-Fetch-Site or Referer)', () => {
    expect(crossOriginWrite(req({ origin: 'http://127.0.0.1:8787' }))).toBeUndefined();
    expect(crossOriginWrite(req({ host: 'fleet.example.ts.net', origin: 'https://fleet.example.ts.net' }))).toBeUndefined();
    expect(crossOriginWrite(req({ host: 'fleet.example.ts.net:443', origin: 'https://fleet.example.ts.net' }))).toBeUndefined();
    expect(crossOriginWrite(req({ host: 'localhost', origin: 'http://localhost:80' }))).toBeUndefined();
    expect(crossOriginWrite(req({ secFetchSite: 'same-origin' }))).toBeUndefined();
    expect(crossOriginWrite(req({ referer: 'http://127.0.0.1:8787/agents/jerry' }))).toBeUndefined();
    expect(crossOriginWrite(req({}))).toBeUndefined();
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) expect(crossOriginWrite(req({ method }))).toBeUndefined();
  });

  it.each([
    { origin: 'http://evil.example' },
    { origin: 'http://127.0.0.1:8788' },
    { origin: 'http://localhost:8787' },
    { origin: 'null' },
    { origin: 'file://' },
    { origin: 'not a url' },
    { origin: 'http://127.0.0.1:8787', host: undefined },
    { secFetchSite: 'cross-site' },
    { secFetchSite: 'same-site' },
    { referer: 'http://evil.example/x' },
    { referer: 'garbage' },
    // Origin decides when present, whatever else the request says.
    { origin: 'http://evil.example', secFetchSite: 'same-origin' },
    { origin: 'http://evil.example', referer: 'http://127.0.0.1:8787/' },
  ])('refuses a write with %j', (over) => {
    expect(crossOriginWrite(req(over))).toMatch(/refused/);
  });
});

describe('the dashboard handler, as λ dashboard runs it behind its Function URL', () => {
  const host = 'abcdefghij0123456789.lambda-url.us-east-1.on.aws';
  const token = 'lambda-dashboard-token-0123456789';
  const acted: string[] = [];
  const deps = {
    // Only what these requests touch; anything more would throw and show as a 500.
    sources: {
      config: { fleet: 'demo', agents: { list: [{ id: 'jerry' }] } },
      clock: { now: () => 1_764_000_000_000 },
      log: memoryLogger(),
    } as unknown as DashboardSources,
    actions: { act: async (agentId: string) => (acted.push(agentId), 'asleep' as const) },
    token: async () => token,
    secureCookie: true,
    loginHint: 'the dashboard secret',
    refreshMs: 5_000,
  };
  const post = (headers: Record<string, string>) =>
    handleDashboard(
      {
        method: 'POST',
        path: '/api/fleet/jerry/hibernate',
        query: '',
        headers: { host, 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        cookies: [],
        body: '{}',
      },
      deps,
    );

  it('refuses a POST another site’s page sent, before it acts, and serves its own page’s', async () => {
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: `https://${host}.evil.example` },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of foreign) {
      const res = await post(headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'ORIGIN_NOT_ALLOWED' });
    }
    expect(acted).toEqual([]);
    expect((await post({ origin: `https://${host}` })).status).toBe(200);
    expect((await post({})).status).toBe(200);
    expect(acted).toEqual(['jerry', 'jerry']);
  });
});
