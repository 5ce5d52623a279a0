// The SSRF guard for fetches the agent asks for: a URL's host is resolved first, and every
// address it names must be public (address-class.ts), or loopback/private for a host the
// config allows by name. The connection then goes to an address that was checked (a
// pinned lookup), so a resolver that answers differently the second time changes nothing.
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { ClawfleetError } from '../../../shared/errors.ts';
import { classifyAddress, type AddressClass } from './address-class.ts';

/** The config key an intranet host is allowed by; named in refusals so the user knows where to look. */
const ALLOW_PRIVATE_HOSTS_KEY = 'tools.web.fetch.allowPrivateHosts';

const ONLY_PUBLIC = `web_fetch reaches only public addresses; an intranet host can be allowed by name in ${ALLOW_PRIVATE_HOSTS_KEY}.`;
const NEVER = 'web_fetch never reaches such addresses, whatever the config says.';

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver (getaddrinfo: /etc/hosts, then DNS), every address in its order. */
export const systemResolve: Resolve = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface FetchPolicy {
  /** Host names (canonical: lower case, no trailing dot) that may resolve to loopback or private addresses. */
  allowPrivateHosts: ReadonlySet<string>;
}

/** A refused fetch: the URL points somewhere the agent may not reach. */
export class FetchRefusedError extends ClawfleetError {
  override name = 'FetchRefusedError';
  constructor(message: string) {
    super('FETCH_REFUSED', message);
  }
}

/** A host's canonical name as a URL parser gives it: lower case, IPv4 in dotted decimal, IPv6 bracketed, no trailing dot. */
export function canonicalHost(host: string): string | undefined {
  try {
    return new URL(`http://${host}/`).hostname.replace(/\.$/, '');
  } catch {
    return undefined;
  }
}

/** The policy from config; an entry that is not a host name is a config error (the schema refuses it first). */
export function fetchPolicy(allowPrivateHosts: readonly string[] = []): FetchPolicy {
  const hosts = new Set<string>();
  for (const entry of allowPrivateHosts) {
    const host = canonicalHost(entry);
    if (!host) throw new ClawfleetError('CONFIG_INVALID', `${ALLOW_PRIVATE_HOSTS_KEY}: "${entry}" is not a host name`);
    hosts.add(host);
  }
  return { allowPrivateHosts: hosts };
}

export interface VettedHost {
  /** The name as the URL has it (brackets stripped from IPv6), which the pinned lookup answers for. */
  hostname: string;
  /** Every address the connection may use: each one checked. */
  addresses: LookupAddress[];
}

/**
 * Checks a URL before a request is made to it: scheme, credentials, and every address its
 * host names. Throws FetchRefusedError with a message the model and the user can act on.
 */
export async function vetUrl(url: URL, policy: FetchPolicy, resolve: Resolve = systemResolve): Promise<VettedHost> {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchRefusedError(`${url.protocol} URLs are not fetched; only http and https`);
  if (url.username || url.password) throw new FetchRefusedError('URLs with a user name or password are not fetched');
  const name = url.hostname.replace(/\.$/, '');
  const hostname = name.startsWith('[') ? name.slice(1, -1) : name;
  const allowed = policy.allowPrivateHosts.has(name);
  const refuse = (what: string, c: AddressClass) =>
    new FetchRefusedError(`refused ${url.origin}: ${what} ${c.address} (${c.range}). ${c.verdict === 'forbidden' ? NEVER : ONLY_PUBLIC}`);

  const literal = classifyAddress(name);
  if (literal) {
    if (literal.verdict === 'public' || (literal.verdict === 'local' && allowed)) {
      return { hostname, addresses: [{ address: hostname, family: hostname.includes(':') ? 6 : 4 }] };
    }
    throw refuse('the address is', literal);
  }
  // RFC 6761: "localhost" and every name under it are loopback, whatever a resolver says.
  if ((name === 'localhost' || name.endsWith('.localhost')) && !allowed) {
    throw new FetchRefusedError(`refused ${url.origin}: "${name}" is a loopback name. ${ONLY_PUBLIC}`);
  }
  let answers: LookupAddress[];
  try {
    answers = await resolve(hostname);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ClawfleetError('FETCH_UNRESOLVED', `"${hostname}" does not resolve${code ? ` (${code})` : ''}`, { cause: err });
  }
  if (answers.length === 0) throw new ClawfleetError('FETCH_UNRESOLVED', `"${hostname}" does not resolve`);
  // Every answer must pass: a name that mixes public and private addresses is refused whole,
  // since the connection could use any of them.
  for (const a of answers) {
    const c = classifyAddress(a.address) ?? { verdict: 'forbidden' as const, range: 'not an IP address', address: a.address };
    if (c.verdict === 'forbidden' || (c.verdict === 'local' && !allowed)) throw refuse(`"${hostname}" resolves to`, c);
  }
  return { hostname, addresses: answers.map((a) => ({ address: a.address, family: a.family })) };
}

/**
 * A lookup for node:net that answers only for the vetted host, with its vetted addresses:
 * the socket connects to what was checked, while Host and TLS SNI keep the name.
 */
export function pinnedLookup(vetted: VettedHost): LookupFunction {
  return (host, options, callback) => {
    if (host.replace(/\.$/, '').toLowerCase() !== vetted.hostname.toLowerCase()) {
      const err: NodeJS.ErrnoException = Object.assign(new Error(`lookup of "${host}" was not vetted`), { code: 'ENOTFOUND' });
      callback(err, '', 0);
      return;
    }
    const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
    const usable = family === 0 ? vetted.addresses : vetted.addresses.filter((a) => a.family === family);
    const list = usable.length > 0 ? usable : vetted.addresses;
    if (options.all) (callback as unknown as (err: null, addresses: LookupAddress[]) => void)(null, list);
    else callback(null, list[0]!.address, list[0]!.family);
  };
}
