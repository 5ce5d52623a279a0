// web_fetch as a prompt-injected agent would use it against the machine it runs on
// (issue #12, Why 5): every spelling of loopback, the metadata endpoints, a name that
// resolves to loopback, a redirect from an allowed server into loopback, and DNS rebinding.
// A real "victim" HTTP server listens on loopback; each form is shown to reach it with a
// plain fetch first, then web_fetch must refuse it and the victim must see nothing.
//
// How the tests reach a server of their own at all: there is no test-only switch. They
// use what a user has — a host listed in tools.web.fetch.allowPrivateHosts — with a
// resolver injected in code that maps the test's names to 127.0.0.1. No config can list
// its way to a metadata, link-local or unspecified address (see the allowlist cases).
import type { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchPolicy, type Resolve } from '../../runtime-image/src/net/fetch-guard.ts';
import { guardedGet } from '../../runtime-image/src/net/guarded-get.ts';
import type { AgentTool, ToolResult } from '../../runtime-image/src/tools/tool.ts';
import { webFetchTool } from '../../runtime-image/src/tools/web-fetch.ts';

interface Seen {
  url: string;
  host: string | undefined;
}

/** An HTTP server on one address that records every request it gets. */
async function recordingServer(
  address: string,
  port: number,
  handle: (req: IncomingMessage, res: import('node:http').ServerResponse) => void,
): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', host: req.headers.host });
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, resolve);
  });
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const close = (s: Server | undefined) => new Promise<void>((r) => (s ? (s.closeAllConnections(), s.close(() => r())) : r()));

/** Resolves the test's own names, as a DNS server would; records every question. */
function testResolver(answers: Record<string, () => string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (host: string): Promise<LookupAddress[]> => {
    asked.push(host);
    const answer = answers[host];
    if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return answer().map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
}

async function fetchWith(tool: AgentTool, url: string): Promise<ToolResult> {
  const parsed = tool.parse({ url });
  if (!parsed.ok) return { text: parsed.error, isError: true };
  return tool.run(parsed.value, { signal: new AbortController().signal, sessionKey: 'agent:fran:main', inboundId: 'tg.fran.1', request: async () => 'x' });
}

let victim: Awaited<ReturnType<typeof recordingServer>>;
let victim6: Awaited<ReturnType<typeof recordingServer>> | undefined;
let site: Awaited<ReturnType<typeof recordingServer>>;
const victimSeen = () => [...victim.seen, ...(victim6?.seen ?? [])];

beforeAll(async () => {
  // The victim: something on loopback an agent must not read (the local control plane's
  // /api/chat, a database's HTTP port). On 127.0.0.1 and, where the machine has it, ::1.
  victim = await recordingServer('127.0.0.1', 0, (_req, res) => res.end('victim: private data'));
  victim6 = await recordingServer('::1', victim.port, (_req, res) => res.end('victim: private data')).catch(() => undefined);
  // An allowed site (reached as "public.test"), which redirects wherever a query says.
  site = await recordingServer('127.0.0.1', 0, (req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (u.pathname === '/to') return res.writeHead(Number(u.searchParams.get('code') ?? 302), { location: u.searchParams.get('u')! }).end();
    if (u.pathname === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`site page ${u.pathname}`);
  });
});

afterAll(async () => {
  await Promise.all([close(victim?.server), close(victim6?.server), close(site?.server)]);
});

describe('web_fetch against loopback and metadata addresses', () => {
  const forms = () => [
    '127.0.0.1',
    'localhost',
    '0.0.0.0',
    '2130706433',
    '0x7f.0.0.1',
    '127.1',
    '0177.0.0.1',
    ...(victim6 ? ['[::1]', '[::ffff:127.0.0.1]'] : []),
  ];

  it('each loopback spelling really reaches the victim with a plain fetch (so a refusal below is the guard’s doing)', async () => {
    for (const host of forms()) {
      const res = await fetch(`http://${host}:${victim.port}/control-${encodeURIComponent(host)}`);
      expect(await res.text(), host).toBe('victim: private data');
    }
    expect(victimSeen()).toHaveLength(forms().length);
  });

  it('refuses every spelling of loopback, and the victim sees no request', async () => {
    const before = victimSeen().length;
    const dns = testResolver({});
    const tool = webFetchTool({ resolve: dns });
    for (const host of forms()) {
      const r = await fetchWith(tool, `http://${host}:${victim.port}/api/chat/beta/messages`);
      expect(r.isError, host).toBe(true);
      expect(r.text, host).toMatch(/^refused http:\/\/.*(loopback|unspecified).*allowPrivateHosts|never reaches/);
    }
    expect(victimSeen()).toHaveLength(before);
    // Literal addresses and localhost are judged without asking DNS at all.
    expect(dns.asked).toEqual([]);
  });

  it('refuses the EC2 and ECS credential endpoints in their usual and disguised spellings', async () => {
    const tool = webFetchTool({ resolve: testResolver({}) });
    for (const url of [
      'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
      'http://169.254.170.2/v2/credentials/0b5c2a3e',
      'http://2852039166/latest/meta-data/',
      'http://0xa9.0xfe.0xa9.0xfe/latest/',
      'http://[::ffff:169.254.169.254]/latest/',
      'http://[fd00:ec2::254]/latest/meta-data/',
    ]) {
      const r = await fetchWith(tool, url);
      expect(r, url).toEqual({
        text: expect.stringMatching(/\(cloud metadata[^)]*\)\. web_fetch never reaches such addresses, whatever the config says\.$/),
        isError: true,
      });
    }
  });

  it('refuses a name that resolves to loopback', async () => {
    const before = victimSeen().length;
    const r = await fetchWith(
      webFetchTool({ resolve: testResolver({ 'attacker-rebind.example': () => ['127.0.0.1'] }) }),
      `http://attacker-rebind.example:${victim.port}/`,
    );
    expect(r).toEqual({ text: expect.stringMatching(/"attacker-rebind\.example" resolves to 127\.0\.0\.1 \(loopback\)/), isError: true });
    expect(victimSeen()).toHaveLength(before);
  });
});

describe('redirects', () => {
  const dns = () => testResolver({ 'public.test': () => ['127.0.0.1'], 'loopback.test': () => ['127.0.0.1'] });
  // public.test is the allowed site; nothing else is allowed.
  const tool = () => webFetchTool({ resolve: dns(), allowPrivateHosts: ['public.test'] });
  const via = (target: string, code = 302) => `http://public.test:${site.port}/to?code=${code}&u=${encodeURIComponent(target)}`;

  it('checks every hop: a 30x from an allowed server into loopback or metadata is refused, and the victim sees nothing', async () => {
    const before = victimSeen().length;
    const siteBefore = site.seen.length;
    const targets = [
      [`http://127.0.0.1:${victim.port}/secret`, 302],
      [`http://localhost:${victim.port}/secret`, 301],
      [`http://2130706433:${victim.port}/secret`, 303],
      [`http://[::ffff:127.0.0.1]:${victim.port}/secret`, 307],
      [`//0.0.0.0:${victim.port}/secret`, 308],
      [`http://loopback.test:${victim.port}/secret`, 302],
      ['http://169.254.169.254/latest/meta-data/', 302],
    ] as const;
    for (const [target, code] of targets) {
      const r = await fetchWith(tool(), via(target, code));
      expect(r.isError, target).toBe(true);
      expect(r.text, target).toMatch(/^refused /);
    }
    // Each first hop reached the allowed site; no second hop reached the victim.
    expect(site.seen.length - siteBefore).toBe(targets.length);
    expect(victimSeen()).toHaveLength(before);
  });

  it('follows a redirect that stays allowed, saying where the page came from', async () => {
    const r = await fetchWith(tool(), via('/landing'));
    expect(r).toMatchObject({
      text: 'site page /landing',
      isError: false,
      untrusted: { source: 'web_fetch', meta: { url: `http://public.test:${site.port}/landing`, 'redirected from': via('/landing') } },
    });
  });

  it('stops a redirect loop after 5 hops, and refuses a redirect to another scheme', async () => {
    expect(await fetchWith(tool(), `http://public.test:${site.port}/loop`)).toEqual({
      text: `http://public.test:${site.port}/loop redirected more than 5 times`,
      isError: true,
    });
    expect(await fetchWith(tool(), via('file:///etc/passwd'))).toEqual({
      text: `http://public.test:${site.port}/to?code=302&u=file%3A%2F%2F%2Fetc%2Fpasswd redirected to a file: URL; only http and https are followed`,
      isError: true,
    });
  });
});

describe('DNS rebinding', () => {
  it('connects to the address that was checked, not to what the name resolves to a moment later', async () => {
    // First answer: the allowed intranet host (here, the test site on loopback). Every
    // later answer: the metadata endpoint. A guard that checks and then lets the HTTP
    // client resolve again would connect there; the pinned lookup connects to the first.
    let answers = 0;
    const dns = testResolver({ 'wiki.rebind.test': () => (answers++ === 0 ? ['127.0.0.1'] : ['169.254.169.254']) });
    const tool = webFetchTool({ resolve: dns, allowPrivateHosts: ['wiki.rebind.test'] });
    const before = site.seen.length;
    const r = await fetchWith(tool, `http://wiki.rebind.test:${site.port}/doc`);
    expect(r).toMatchObject({ text: 'site page /doc', isError: false });
    expect(dns.asked).toEqual(['wiki.rebind.test']);
    // The request went to the checked address, and still named the host it asked for.
    expect(site.seen.slice(before)).toEqual([{ url: '/doc', host: `wiki.rebind.test:${site.port}` }]);
    // Asked again, the name now resolves to metadata, and the fetch is refused.
    expect(await fetchWith(tool, `http://wiki.rebind.test:${site.port}/doc`)).toMatchObject({
      isError: true,
      text: expect.stringMatching(/resolves to 169\.254\.169\.254 \(cloud metadata\)/),
    });
  });

  it('keeps the name for TLS: SNI and certificate checks use the host, while the socket goes to the pinned address', async () => {
    // A self-signed certificate for secure.rebind.test (test/fixtures/tls, valid until 2126).
    const cert = readFileSync(new URL('../fixtures/tls/secure-rebind-test.cert.pem', import.meta.url), 'utf8');
    const key = readFileSync(new URL('../fixtures/tls/secure-rebind-test.key.pem', import.meta.url), 'utf8');
    const servernames: Array<string | false | null> = [];
    const server = createTlsServer({ key, cert }, (req, res) => {
      servernames.push((req.socket as TLSSocket).servername);
      res.end('secure page');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const dns = testResolver({ 'secure.rebind.test': () => ['127.0.0.1'], 'other.rebind.test': () => ['127.0.0.1'] });
      const policy = fetchPolicy(['secure.rebind.test', 'other.rebind.test']);
      const get = (host: string) =>
        guardedGet(`https://${host}:${port}/`, { policy, resolve: dns, signal: AbortSignal.timeout(5_000), maxBytes: 1_000, ca: cert });
      expect((await get('secure.rebind.test')).body.toString()).toBe('secure page');
      expect(servernames).toEqual(['secure.rebind.test']);
      // The same address under a name the certificate does not carry fails the TLS check.
      await expect(get('other.rebind.test')).rejects.toThrow(/altnames|certificate/i);
    } finally {
      await close(server);
    }
  });
});

describe('the allowlist', () => {
  it('lets exactly the listed intranet name through, and never a metadata address, whatever is listed', async () => {
    const dns = testResolver({
      'wiki.intranet.test': () => ['127.0.0.1'],
      'other.intranet.test': () => ['127.0.0.1'],
      'meta.intranet.test': () => ['169.254.169.254'],
    });
    const tool = webFetchTool({
      resolve: dns,
      allowPrivateHosts: ['wiki.intranet.test', 'meta.intranet.test', '169.254.169.254', '169.254.170.2', '[fd00:ec2::254]', '0.0.0.0'],
    });
    expect(await fetchWith(tool, `http://wiki.intranet.test:${site.port}/home`)).toMatchObject({ text: 'site page /home', isError: false });
    expect(await fetchWith(tool, `http://other.intranet.test:${site.port}/home`)).toMatchObject({
      isError: true,
      text: expect.stringMatching(/\(loopback\)\. web_fetch reaches only public addresses/),
    });
    for (const url of [
      'http://meta.intranet.test/latest/',
      'http://169.254.169.254/latest/',
      'http://169.254.170.2/v2/credentials',
      `http://0.0.0.0:${victim.port}/`,
    ]) {
      expect(await fetchWith(tool, url), url).toMatchObject({
        isError: true,
        text: expect.stringMatching(/never reaches such addresses, whatever the config says/),
      });
    }
  });
});
