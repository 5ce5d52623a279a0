// Which IP addresses a fetch may reach: public unicast only. Pure: parses an IPv4 or IPv6
// literal to bytes and finds the most specific special-purpose range it falls in (IANA's
// special-purpose registries, cloud metadata endpoints, and IPv4 carried inside IPv6).

/**
 * public: reachable. local: loopback or a private network, allowed only for a host
 * named in tools.web.fetch.allowPrivateHosts. forbidden: never, whatever the config says
 * (metadata endpoints, link-local, unspecified, multicast, documentation, reserved).
 */
export type AddressVerdict = 'public' | 'local' | 'forbidden';

export interface AddressClass {
  verdict: AddressVerdict;
  /** What the range is, for messages: "loopback", "cloud metadata", "private (RFC 1918)". */
  range: string;
  /** The address in its usual spelling (IPv4 carried in IPv6 is named by its IPv4 address). */
  address: string;
}

type Bytes = readonly number[];

interface Range {
  prefix: Bytes;
  bits: number;
  range: string;
  /** embedded: the IPv4 address inside (at byte offset `at`) decides. */
  verdict: AddressVerdict | { embeddedAt: number };
}

const v4 = (cidr: string, range: string, verdict: AddressVerdict): Range => {
  const [addr, bits] = cidr.split('/') as [string, string];
  return { prefix: parseIPv4(addr)!, bits: Number(bits), range, verdict };
};
const v6 = (cidr: string, range: string, verdict: Range['verdict']): Range => {
  const [addr, bits] = cidr.split('/') as [string, string];
  return { prefix: parseIPv6(addr)!, bits: Number(bits), range, verdict };
};

const METADATA = 'cloud metadata';

// The most specific range wins (the table is searched longest prefix first).
const IPV4_RANGES: Range[] = [
  v4('169.254.169.254/32', METADATA, 'forbidden'), // EC2 IMDS, and GCP, Azure, OpenStack
  v4('169.254.170.2/32', METADATA, 'forbidden'), // ECS task credentials endpoint
  v4('169.254.170.23/32', METADATA, 'forbidden'), // EKS Pod Identity agent
  v4('100.100.100.200/32', METADATA, 'forbidden'), // Alibaba Cloud metadata (inside CGNAT space)
  v4('168.63.129.16/32', METADATA, 'forbidden'), // Azure WireServer (a public address, but a platform endpoint)
  v4('255.255.255.255/32', 'broadcast', 'forbidden'),
  v4('0.0.0.0/8', 'unspecified ("this network", reaches this host)', 'forbidden'),
  v4('10.0.0.0/8', 'private (RFC 1918)', 'local'),
  v4('100.64.0.0/10', 'shared CGNAT (RFC 6598)', 'local'),
  v4('127.0.0.0/8', 'loopback', 'local'),
  v4('169.254.0.0/16', 'link-local', 'forbidden'),
  v4('172.16.0.0/12', 'private (RFC 1918)', 'local'),
  v4('192.0.0.0/24', 'IETF protocol assignments', 'forbidden'),
  v4('192.0.2.0/24', 'documentation (TEST-NET-1)', 'forbidden'),
  v4('192.88.99.0/24', '6to4 relay anycast', 'forbidden'),
  v4('192.168.0.0/16', 'private (RFC 1918)', 'local'),
  v4('198.18.0.0/15', 'benchmarking (RFC 2544)', 'local'),
  v4('198.51.100.0/24', 'documentation (TEST-NET-2)', 'forbidden'),
  v4('203.0.113.0/24', 'documentation (TEST-NET-3)', 'forbidden'),
  v4('224.0.0.0/4', 'multicast', 'forbidden'),
  v4('240.0.0.0/4', 'reserved', 'forbidden'),
].sort((a, b) => b.bits - a.bits);

const IPV6_RANGES: Range[] = [
  v6('::/128', 'unspecified', 'forbidden'),
  v6('::1/128', 'loopback', 'local'),
  v6('::ffff:0:0/96', 'IPv4-mapped', { embeddedAt: 12 }),
  v6('::ffff:0:0:0/96', 'IPv4-translated', { embeddedAt: 12 }),
  v6('::/96', 'IPv4-compatible', { embeddedAt: 12 }),
  v6('64:ff9b::/96', 'NAT64', { embeddedAt: 12 }),
  v6('64:ff9b:1::/48', 'local-use NAT64', 'forbidden'),
  v6('100::/64', 'discard-only', 'forbidden'),
  v6('2001::/23', 'IETF protocol assignments (Teredo, ORCHID, benchmarking)', 'forbidden'),
  v6('2001:db8::/32', 'documentation', 'forbidden'),
  v6('2002::/16', '6to4', { embeddedAt: 2 }),
  v6('3fff::/20', 'documentation', 'forbidden'),
  v6('5f00::/16', 'SRv6 SIDs', 'forbidden'),
  v6('fd00:ec2::/32', METADATA, 'forbidden'), // EC2 IMDS (fd00:ec2::254), EKS Pod Identity (fd00:ec2::23)
  v6('fc00::/7', 'unique local (private)', 'local'),
  v6('fe80::/10', 'link-local', 'forbidden'),
  v6('fec0::/10', 'site-local (deprecated, private)', 'local'),
  v6('ff00::/8', 'multicast', 'forbidden'),
].sort((a, b) => b.bits - a.bits);

/** Global unicast is 2000::/3; the rest of the IPv6 space is unassigned or special. */
const IPV6_GLOBAL_UNICAST = parseIPv6('2000::')!;

/** Classifies an IP literal (IPv4 dotted decimal, or IPv6 with or without brackets); undefined if it is not one. */
export function classifyAddress(text: string): AddressClass | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const four = parseIPv4(bare);
  if (four) return classifyIPv4(four);
  const six = parseIPv6(bare);
  if (six) return classifyIPv6(six, bare.toLowerCase());
  return undefined;
}

function classifyIPv4(bytes: Bytes): AddressClass {
  const address = bytes.join('.');
  const hit = IPV4_RANGES.find((r) => matches(bytes, r));
  if (!hit) return { verdict: 'public', range: 'public', address };
  return { verdict: hit.verdict as AddressVerdict, range: hit.range, address };
}

function classifyIPv6(bytes: Bytes, address: string): AddressClass {
  const hit = IPV6_RANGES.find((r) => matches(bytes, r));
  if (hit && typeof hit.verdict === 'object') {
    const inner = classifyIPv4(bytes.slice(hit.verdict.embeddedAt, hit.verdict.embeddedAt + 4));
    // The IPv4 address inside decides: ::ffff:127.0.0.1 is loopback, 64:ff9b::8.8.8.8 public.
    return { ...inner, range: inner.verdict === 'public' ? inner.range : `${inner.range}; ${hit.range} ${address}` };
  }
  if (hit) return { verdict: hit.verdict as AddressVerdict, range: hit.range, address };
  if (!matches(bytes, { prefix: IPV6_GLOBAL_UNICAST, bits: 3 })) return { verdict: 'forbidden', range: 'reserved (outside 2000::/3)', address };
  return { verdict: 'public', range: 'public', address };
}

function matches(bytes: Bytes, r: { prefix: Bytes; bits: number }): boolean {
  if (bytes.length !== r.prefix.length) return false;
  for (let bit = 0; bit < r.bits; bit += 8) {
    const take = Math.min(8, r.bits - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (r.prefix[bit / 8]! & mask)) return false;
  }
  return true;
}

/** Strict dotted decimal, the only IPv4 spelling a parsed URL or a resolver gives: four parts 0–255, no leading zeros. */
function parseIPv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** IPv6 text (RFC 4291 §2.2: "::" compression, a trailing dotted IPv4 part; no zone id) to 16 bytes. */
export function parseIPv6(text: string): number[] | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(text) || text.length > 45) return undefined;
  const lastColon = text.lastIndexOf(':');
  if (lastColon < 0) return undefined;
  let body = text;
  let tail: number[] = [];
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    const four = parseIPv4(last);
    if (!four) return undefined;
    tail = four;
    // "::1.2.3.4" keeps its "::"; "::ffff:1.2.3.4" drops the colon before the IPv4 part.
    body = text.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const wanted = 8 - tail.length / 2;
  const split = (s: string) => (s === '' ? [] : s.split(':'));
  const halves = body.split('::');
  let groups: string[];
  if (halves.length > 2) return undefined;
  if (halves.length === 2) {
    const head = split(halves[0]!);
    const rest = split(halves[1]!);
    const missing = wanted - head.length - rest.length;
    if (missing < 1) return undefined;
    groups = [...head, ...Array<string>(missing).fill('0'), ...rest];
  } else {
    groups = split(body);
    if (groups.length !== wanted) return undefined;
  }
  const bytes: number[] = [];
  for (const g of groups) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return [...bytes, ...tail];
}
