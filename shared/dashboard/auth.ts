// Who may see and steer the fleet: the holder of the dashboard token. It is compared in
// constant time, accepted as `Authorization: Bearer <token>` or through the login form,
// which sets a session cookie (HttpOnly, SameSite=Strict). The cookie holds an HMAC keyed
// by the token, never the token: it proves a login without revealing anything, works on
// any Lambda container without shared state, and dies when the token is rotated. A sign-in
// link (`clawfleet dashboard`) carries a code made the same way: it says when it lapses and
// proves who made it, so it signs a browser in for ten minutes without being the token.
import { createHmac } from 'node:crypto';
import { secretTokenMatches } from '../telegram/webhook-secret.ts';

/** The value in the dashboard secret (`clawfleet/<fleet>/control/dashboard`) that holds the token. */
export const DASHBOARD_TOKEN_NAME = 'DASHBOARD_TOKEN';
export const SESSION_COOKIE = 'clawfleet_dashboard';
export const SESSION_MAX_AGE_MS = 12 * 3600_000;
/** Shorter tokens are refused as configuration: guessable, and too short to mask in logs. */
export const MIN_DASHBOARD_TOKEN_CHARS = 16;

function sessionMac(token: string, fleet: string, issuedAt: number): string {
  return createHmac('sha256', token).update(`clawfleet dashboard session v1|${fleet}|${issuedAt}`).digest('hex');
}

export function sessionCookieValue(token: string, fleet: string, issuedAt: number): string {
  return `${issuedAt}.${sessionMac(token, fleet, issuedAt)}`;
}

export function sessionCookieValid(token: string, fleet: string, value: string | undefined, now: number): boolean {
  const m = /^(\d{10,16})\.([0-9a-f]{64})$/.exec(value ?? '');
  if (!m) return false;
  const issuedAt = Number(m[1]);
  if (issuedAt > now + 60_000 || now - issuedAt > SESSION_MAX_AGE_MS) return false;
  return secretTokenMatches(sessionMac(token, fleet, issuedAt), m[2]);
}

/** How long a sign-in link signs in: long enough to open it, short enough that one seen later is spent. */
export const SIGN_IN_LINK_TTL_MS = 10 * 60_000;

function linkMac(token: string, fleet: string, expiresAt: number): string {
  return createHmac('sha256', token).update(`clawfleet dashboard sign-in link v1|${fleet}|${expiresAt}`).digest('hex');
}

/** A sign-in link's code: when it lapses, and an HMAC keyed by the token (a session's cookie and a link's code never pass for each other). */
export function signInLinkCode(token: string, fleet: string, now: number): { code: string; expiresAt: number } {
  const expiresAt = now + SIGN_IN_LINK_TTL_MS;
  return { code: `${expiresAt}.${linkMac(token, fleet, expiresAt)}`, expiresAt };
}

export function signInLinkValid(token: string, fleet: string, code: string | undefined, now: number): boolean {
  const m = /^(\d{10,16})\.([0-9a-f]{64})$/.exec(code ?? '');
  if (!m) return false;
  const expiresAt = Number(m[1]);
  // A lapse further off than any code is made for was not made by us (or by a clock far ahead).
  if (expiresAt <= now || expiresAt > now + SIGN_IN_LINK_TTL_MS + 60_000) return false;
  return secretTokenMatches(linkMac(token, fleet, expiresAt), m[2]);
}

/** The dashboard's sign-in page at `base` (its root URL), the code after '#': a browser never sends a URL's fragment to the server. */
export const signInLink = (base: string, code: string) => `${base.replace(/\/+$/, '')}/login#code=${code}`;

/** One cookie's value from Cookie headers (Function URLs hand them over as a list). */
function cookieValue(cookies: readonly string[], name: string): string | undefined {
  for (const header of cookies) {
    for (const pair of header.split(';')) {
      const eq = pair.indexOf('=');
      if (eq > 0 && pair.slice(0, eq).trim() === name) return pair.slice(eq + 1).trim();
    }
  }
  return undefined;
}

export type DashboardAuth = { ok: true; via: 'bearer' | 'cookie' } | { ok: false; reason: string };

export function authenticate(token: string, fleet: string, req: { authorization: string | undefined; cookies: readonly string[] }, now: number): DashboardAuth {
  if (req.authorization !== undefined) {
    const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(req.authorization);
    if (!m) return { ok: false, reason: 'the Authorization header must be "Bearer <token>"' };
    return secretTokenMatches(token, m[1]) ? { ok: true, via: 'bearer' } : { ok: false, reason: 'bad token' };
  }
  const cookie = cookieValue(req.cookies, SESSION_COOKIE);
  if (cookie === undefined) return { ok: false, reason: 'not signed in' };
  return sessionCookieValid(token, fleet, cookie, now)
    ? { ok: true, via: 'cookie' }
    : { ok: false, reason: 'session expired or the token changed; sign in again' };
}

export function tokenMatches(token: string, given: string | undefined): boolean {
  return secretTokenMatches(token, given);
}
