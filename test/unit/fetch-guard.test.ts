// The fetch guard's pure parts: which addresses are public, local (allowed by name only)
// or forbidden (never), in every spelling a URL parser or resolver produces; how a URL is
// vetted before any request; and the pinned lookup that makes the connection use what was checked.
import type { LookupAddress } from 'node:dns';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load.ts';
import { RuntimeConfigSchema, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { classifyAddress, parseIPv6 } from '../../runtime-image/src/net/address-class.ts';
import { canonicalHost, fetchPolicy, pinnedLookup, vetUrl, type Resolve } from '../../runtime-image/src/net/fetch-guard.ts';
import { prng } from '../support/prng.ts';

const verdict = (a: string) => classifyAddress(a)?.verdict;

/** A resolver that knows a few names, and records what it was asked. */
function resolver(names: Record<string, string[]>): Resolve & { asked: string[] } {
  const asked: string[] = [];
  const fn = async (host: string): Promise<LookupAddress[]> => {
    asked.push(host);
    const addresses = names[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(fn, { asked });
}

const noDns = resolver({});
const open = fetchPolicy();

describe('address classes', () => {
  it('calls public unicast public, and loopback, RFC 1918, CGNAT and unique-local addresses local', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '2606:4700:4700::1111',
      '2a00:1450:4001::200e',
      '100.63.255.255',
      '100.128.0.0',
      '172.32.0.1',
      '11.0.0.1',
    ])
      expect(verdict(a), a).toBe('public');
    for (const a of [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '198.18.0.1',
      '::1',
      'fd12:3456::1',
      'fc00::1',
      'fec0::1',
    ])
      expect(verdict(a), a).toBe('local');
  });

  it('forbids metadata, link-local, unspecified, broadcast, multicast, documentation and reserved addresses', () => {
    const forbidden = [
      '169.254.169.254',
      '169.254.170.2',
      '169.254.170.23',
      '100.100.100.200',
      '168.63.129.16',
      '169.254.0.1',
      '0.0.0.0',
      '0.1.2.3',
      '255.255.255.255',
      '224.0.0.1',
      '239.255.255.250',
      '240.0.0.1',
      '192.0.0.8',
      '192.0.2.1',
      '198.51.100.7',
      '203.0.113.9',
      '192.88.99.1',
      '::',
      'fd00:ec2::254',
      'fd00:ec2::23',
      'fe80::1',
      'febf::1',
      'ff02::1',
      'ff05::2',
      '2001:db8::1',
      '2001::1',
      '2001:2::1',
      '3fff::1',
      '100::1',
      '64:ff9b:1::1',
      '5f00::1',
      '1::',
      '4000::1',
    ];
    for (const a of forbidden) expect(verdict(a), a).toBe('forbidden');
    expect(classifyAddress('169.254.169.254')?.range).toBe('cloud metadata');
    expect(classifyAddress('fd00:ec2::254')?.range).toBe('cloud metadata');
  });

  it('judges IPv4 carried in IPv6 (mapped, translated, compatible, NAT64, 6to4) by the IPv4 address inside', () => {
    const inside: Record<string, string> = {
      '::ffff:127.0.0.1': 'local',
      '::ffff:7f00:1': 'local',
      '0:0:0:0:0:ffff:127.0.0.1': 'local',
      '::ffff:0:7f00:1': 'local',
      '::7f00:1': 'local',
      '::127.0.0.1': 'local',
      '64:ff9b::7f00:1': 'local',
      '64:ff9b::a9fe:a9fe': 'forbidden',
      '2002:7f00:1::': 'local',
      '2002:a9fe:a9fe::1': 'forbidden',
      '::ffff:169.254.169.254': 'forbidden',
      '::ffff:0.0.0.0': 'forbidden',
      '::ffff:10.1.2.3': 'local',
      '::ffff:8.8.8.8': 'public',
      '64:ff9b::808:808': 'public',
      '2002:808:808::1': 'public',
    };
    for (const [a, v] of Object.entries(inside)) expect(verdict(a), a).toBe(v);
    expect(classifyAddress('::ffff:7f00:1')).toEqual({ verdict: 'local', range: 'loopback; IPv4-mapped ::ffff:7f00:1', address: '127.0.0.1' });
  });

  it('agrees with itself whichever way an IPv4 address is carried (random addresses)', () => {
    const r = prng(12);
    for (let i = 0; i < 500; i++) {
      const b = [r.int(0, 255), r.int(0, 255), r.int(0, 255), r.int(0, 255)];
      const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
      const plain = verdict(b.join('.'));
      for (const carried of [
        `::ffff:${b.join('.')}`,
        `::ffff:${hex(b[0]!, b[1]!)}:${hex(b[2]!, b[3]!)}`,
        `64:ff9b::${b.join('.')}`,
        `2002:${hex(b[0]!, b[1]!)}:${hex(b[2]!, b[3]!)}::1`,
      ]) {
        expect(verdict(carried), carried).toBe(plain);
      }
    }
  });

  it('reads only strict literals: anything else is not an address (and is then resolved as a name)', () => {
    for (const a of [
      '01.2.3.4',
      '1.2.3',
      '256.1.1.1',
      '1.2.3.4.5',
      '0x7f.0.0.1',
      'example.com',
      '',
      '1:2:3:4:5:6:7:8:9',
      ':::',
      '1::2::3',
      'fe80::1%eth0',
      '12345::',
    ])
      expect(classifyAddress(a), a).toBeUndefined();
    expect(parseIPv6('1:2:3:4:5:6:1.2.3.4')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 1, 2, 3, 4]);
    expect(parseIPv6('::')).toEqual(Array(16).fill(0));
  });
});

describe('vetting a URL', () => {
  const refusal = async (url: string, policy = open, resolve: Resolve = noDns) => {
    try {
      await vetUrl(new URL(url), policy, resolve);
    } catch (err) {
      return err as { code?: string; message: string };
    }
    throw new Error(`${url} was not refused`);
  };

  it('refuses loopback in every spelling a URL accepts, without asking a resolver', async () => {
    const spellings = [
      '127.0.0.1',
      '2130706433',
      '0x7f.0.0.1',
      '0x7f000001',
      '127.1',
      '127.0.1',
      '0177.0.0.1',
      '[::1]',
      '[::ffff:127.0.0.1]',
      '[::ffff:7f00:1]',
      '[0:0:0:0:0:ffff:127.0.0.1]',
      '[::127.0.0.1]',
      '[64:ff9b::127.0.0.1]',
      '[2002:7f00:1::]',
      'localhost',
      'LOCALHOST.',
      'api.localhost',
    ];
    for (const host of spellings) {
      const err = await refusal(`http://${host}:8787/api/chat/beta/messages`);
      expect(err.code, host).toBe('FETCH_REFUSED');
      expect(err.message, host).toMatch(/loopback/);
    }
    expect(noDns.asked).toEqual([]);
  });

  it('refuses metadata, unspecified and private addresses, naming what they are and the key that could allow a private one', async () => {
    expect((await refusal('http://169.254.169.254/latest/meta-data/iam/security-credentials/')).message).toBe(
      'refused http://169.254.169.254: the address is 169.254.169.254 (cloud metadata). web_fetch never reaches such addresses, whatever the config says.',
    );
    for (const url of [
      'http://169.254.170.2/v2/credentials/x',
      'http://0xa9fea9fe/',
      'http://[fd00:ec2::254]/latest/',
      'http://[::ffff:169.254.169.254]/',
      'http://0.0.0.0:8787/',
      'http://0/',
      'http://[::]/',
    ]) {
      expect((await refusal(url)).message, url).toMatch(/never reaches/);
    }
    for (const url of ['http://10.0.0.5/', 'http://167772165/', 'http://192.168.1.1/', 'http://172.16.0.1/', 'http://100.64.0.1/', 'http://[fd12::1]/']) {
      expect((await refusal(url)).message, url).toMatch(
        /reaches only public addresses; an intranet host can be allowed by name in tools\.web\.fetch\.allowPrivateHosts/,
      );
    }
  });

  it('resolves a name first and refuses it if any address it resolves to is not public', async () => {
    const dns = resolver({
      'evil.example': ['127.0.0.1'],
      'meta.example': ['169.254.169.254'],
      'mixed.example': ['93.184.216.34', '10.0.0.1'],
      'v6.example': ['::ffff:127.0.0.1'],
      'ok.example': ['93.184.216.34', '2606:2800:220:1::'],
    });
    expect((await refusal('http://evil.example/', open, dns)).message).toBe(
      'refused http://evil.example: "evil.example" resolves to 127.0.0.1 (loopback). web_fetch reaches only public addresses; an intranet host can be allowed by name in tools.web.fetch.allowPrivateHosts.',
    );
    expect((await refusal('http://meta.example/', open, dns)).message).toMatch(/resolves to 169\.254\.169\.254 \(cloud metadata\)/);
    expect((await refusal('http://mixed.example/', open, dns)).message).toMatch(/resolves to 10\.0\.0\.1/);
    expect((await refusal('http://v6.example/', open, dns)).message).toMatch(/resolves to 127\.0\.0\.1/);
    expect(await vetUrl(new URL('https://ok.example/x'), open, dns)).toEqual({
      hostname: 'ok.example',
      addresses: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::', family: 6 },
      ],
    });
    expect(await refusal('http://nowhere.example/', open, dns)).toMatchObject({
      code: 'FETCH_UNRESOLVED',
      message: '"nowhere.example" does not resolve (ENOTFOUND)',
    });
  });

  it('lets a listed host reach a private address, and nothing else: not other hosts, not metadata', async () => {
    const dns = resolver({
      'wiki.corp.example': ['10.1.2.3'],
      'git.corp.example': ['10.1.2.4'],
      'sub.wiki.corp.example': ['10.1.2.5'],
      'meta.corp.example': ['169.254.169.254'],
    });
    const policy = fetchPolicy(['Wiki.Corp.Example.', 'meta.corp.example', '169.254.169.254', '10.9.9.9', 'localhost']);
    expect(await vetUrl(new URL('http://wiki.corp.example/page'), policy, dns)).toMatchObject({ addresses: [{ address: '10.1.2.3' }] });
    expect((await refusal('http://git.corp.example/', policy, dns)).message).toMatch(/10\.1\.2\.4 \(private/);
    expect((await refusal('http://sub.wiki.corp.example/', policy, dns)).message).toMatch(/10\.1\.2\.5/);
    // Listing a metadata address, or a name for one, changes nothing.
    expect((await refusal('http://meta.corp.example/', policy, dns)).message).toMatch(/cloud metadata\)\. web_fetch never reaches/);
    expect((await refusal('http://169.254.169.254/', policy, dns)).message).toMatch(/never reaches/);
    // A listed IP address is matched in any spelling of it.
    expect(await vetUrl(new URL('http://168364297/'), policy, dns)).toMatchObject({ hostname: '10.9.9.9' });
    expect(await vetUrl(new URL('http://localhost:3000/'), policy, resolver({ localhost: ['127.0.0.1'] }))).toMatchObject({
      addresses: [{ address: '127.0.0.1' }],
    });
  });

  it('refuses other schemes and URLs carrying credentials', async () => {
    expect((await refusal('file:///etc/passwd')).message).toMatch(/file: URLs are not fetched/);
    expect((await refusal('http://user:pw@example.com/')).message).toMatch(/user name or password/);
  });

  it('canonicalises allowlist entries as a URL parser does, and refuses ones that are not hosts', () => {
    expect(canonicalHost('WIKI.corp.')).toBe('wiki.corp');
    expect(canonicalHost('0x0a.1')).toBe('10.0.0.1');
    expect(canonicalHost('[FD12::0001]')).toBe('[fd12::1]');
    expect(() => fetchPolicy(['exa mple.com'])).toThrow(/is not a host name/);
  });
});

describe('the pinned lookup', () => {
  const vetted = {
    hostname: 'wiki.corp.example',
    addresses: [
      { address: '10.1.2.3', family: 4 },
      { address: 'fd12::3', family: 6 },
    ],
  };
  const ask = (host: string, options: Parameters<ReturnType<typeof pinnedLookup>>[1]) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number | undefined }>((resolve) =>
      pinnedLookup(vetted)(host, options, (err, address, family) => resolve({ err, address, family })),
    );

  it('answers the vetted host with its vetted addresses only, never asking DNS', async () => {
    expect(await ask('wiki.corp.example', {})).toEqual({ err: null, address: '10.1.2.3', family: 4 });
    expect(await ask('WIKI.corp.example.', { family: 6 })).toEqual({ err: null, address: 'fd12::3', family: 6 });
    expect((await ask('wiki.corp.example', { all: true })).address).toEqual(vetted.addresses);
  });

  it('refuses any other name', async () => {
    const answer = await ask('169.254.169.254.nip.io', {});
    expect(answer.err?.code).toBe('ENOTFOUND');
    expect(answer.err?.message).toMatch(/was not vetted/);
  });
});

describe('tools.web.fetch.allowPrivateHosts in clawfleet.json', () => {
  const withHosts = (hosts: unknown, where: 'defaults' | 'agent' = 'agent') => {
    const c = JSON.parse(readFileSync('clawfleet.json', 'utf8')) as Record<string, any>;
    const tools = { deny: ['exec'], web: { fetch: { allowPrivateHosts: hosts } } };
    if (where === 'agent') c.agents.list[1].tools = tools;
    else c.agents.defaults.tools = tools;
    return c;
  };

  it('is carried to the agent’s runtime, from the agent or from agents.defaults', () => {
    for (const where of ['agent', 'defaults'] as const) {
      const rc = runtimeConfigFor(parseConfig(withHosts(['wiki.corp.example', '10.0.0.5', '[fd12::1]', 'nas_1.lan.'], where)), 'fran');
      expect(RuntimeConfigSchema.parse(JSON.parse(JSON.stringify(rc))).agent.tools?.web?.fetch?.allowPrivateHosts).toEqual([
        'wiki.corp.example',
        '10.0.0.5',
        '[fd12::1]',
        'nas_1.lan.',
      ]);
    }
  });

  it('takes host names only: no scheme, port, path or wildcard', () => {
    for (const bad of ['http://wiki.corp', 'wiki.corp:8080', 'wiki.corp/x', '*.corp.example', '', 'a b']) {
      expect(() => parseConfig(withHosts([bad])), bad).toThrow(/allowPrivateHosts\[0\]: must be a host name/);
    }
    expect(() => parseConfig(withHosts(['x'], 'agent')).agents.list[1]!.tools).not.toThrow();
    const c = withHosts([]);
    c.agents.list[1].tools.web.fetch.allowPrivate = true;
    expect(() => parseConfig(c)).toThrow(/allowPrivate/);
  });
});
