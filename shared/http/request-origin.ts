// Whether a request really is for this server and, when it changes something, comes from
// one of its own pages. The Host check stops DNS rebinding (a web page whose name resolves
// to 127.0.0.1 still sends its own name as Host); the Origin check stops another site's
// page from posting through the browser of someone signed in. Pure: the edges call it.
import { ClawfleetError } from '../errors.ts';

/** The names a browser on this machine uses for a server bound to 127.0.0.1. */
export const LOOPBACK_HOST_NAMES: readonly string[] = ['127.0.0.1', 'localhost', '[::1]'];

/** Requests that only read; every other method is a write and must pass the Origin check. */
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const HOST_HEADER = /^(\[[0-9a-f:.]+\]|[a-z0-9._-]+)(?::(\d{1,5}))?$/;
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const IPV6_LITERAL = /^\[[0-9a-f:.]{2,45}\]$/;

/** A Host header's name (lower case) and port, or undefined when it is not one. */
export function parseHostHeader(header: string | undefined): { name: string; port: number | undefined } | undefined {
  const m = HOST_HEADER.exec((header ?? '').trim().toLowerCase());
  if (!m) return undefined;
  const port = m[2] === undefined ? undefined : Number(m[2]);
  if (port !== undefined && (port < 1 || port > 65535)) return undefined;
  return { name: m[1]!, port };
}

/**
 * An extra name the operator lets through (a reverse proxy's or a tunnel's): a DNS name or
 * an IP address, without scheme, port or wildcard. Returned in lower case.
 */
export function parseAllowedHost(value: string): string {
  const name = value.trim().toLowerCase();
  if (DNS_NAME.test(name) || IPV6_LITERAL.test(name)) return name;
  throw new ClawfleetError(
    'HOST_INVALID',
    `"${value}" is not a host name (give the bare name, such as fleet.example.ts.net: no scheme, port, path or wildcard)`,
  );
}

/**
 * True when the Host header names this server: a loopback name or one in `allowed`, with
 * any port (an SSH tunnel or a proxy may put the server behind another one).
 */
export function hostAllowed(header: string | undefined, allowed: ReadonlySet<string>): boolean {
  const host = parseHostHeader(header);
  return host !== undefined && (LOOPBACK_HOST_NAMES.includes(host.name) || allowed.has(host.name));
}

export interface RequestSource {
  method: string;
  host: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  referer: string | undefined;
}

/**
 * Why a write did not come from one of this server's own pages, or undefined when it did
 * or when it did not come from a browser at all. Browsers send Origin with every POST; where
 * it is missing, Sec-Fetch-Site (newer browsers) and then Referer decide; a request with none
 * of them is a program (the CLI, a runtime, a hook caller, Telegram), which authenticates
 * with its own token. `Origin: null` (sandboxed frames, file: pages) is never this server.
 */
export function crossOriginWrite(req: RequestSource): string | undefined {
  if (READ_METHODS.has(req.method.toUpperCase())) return undefined;
  if (req.origin !== undefined) return sameOrigin(req.origin, req.host) ? undefined : `a write from another origin (${req.origin.slice(0, 200)}) is refused`;
  if (req.secFetchSite !== undefined) {
    const site = req.secFetchSite.trim().toLowerCase();
    return site === 'same-origin' || site === 'none' ? undefined : `a write from a ${site.slice(0, 40)} page is refused`;
  }
  if (req.referer !== undefined) return sameOrigin(req.referer, req.host) ? undefined : 'a write referred by another origin is refused';
  return undefined;
}

/**
 * True when `url` (an Origin or Referer) is http(s) on exactly the host and port the request
 * was sent to. The scheme is not compared: behind a proxy that ends TLS the server cannot
 * know it, and no other site can hold the same host and port.
 */
function sameOrigin(url: string, hostHeader: string | undefined): boolean {
  const host = parseHostHeader(hostHeader);
  if (!host) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
  const defaultPort = parsed.protocol === 'https:' ? 443 : 80;
  const port = parsed.port === '' ? defaultPort : Number(parsed.port);
  return parsed.hostname.toLowerCase() === host.name && port === (host.port ?? defaultPort);
}
