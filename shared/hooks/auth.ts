// Who may call the hooks: the holder of the fleet's hooks token, presented in a header.
// OpenClaw accepts `Authorization: Bearer <token>` and `x-openclaw-token: <token>`; we
// accept both so its callers move without changes. A token in the query string is
// refused outright: URLs are written to access logs, proxy logs and browser history.
import { secretTokenMatches } from '../telegram/webhook-secret.ts';

/** A token shorter than this is refused as configuration, not compared: it is guessable and too short to be masked in logs. */
export const MIN_HOOK_TOKEN_CHARS = 16;

export type AuthOutcome = { ok: true; via: 'authorization' | 'x-openclaw-token' | 'both' } | { ok: false; reason: string };

/** Header names are lower case (as Lambda Function URLs and Node deliver them). */
export function authenticateHook(expected: string, headers: Record<string, string | undefined>): AuthOutcome {
  const authorization = headers['authorization'];
  const openclaw = headers['x-openclaw-token'];
  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
    if (!match) return { ok: false, reason: 'the Authorization header must be "Bearer <token>"' };
    bearer = match[1];
  }
  if (bearer === undefined && openclaw === undefined) {
    return { ok: false, reason: 'missing token: send "Authorization: Bearer <token>"' };
  }
  // Every token presented must match: two headers that disagree are not a login.
  const given = [bearer, openclaw].filter((t): t is string => t !== undefined);
  if (!given.every((t) => secretTokenMatches(expected, t))) return { ok: false, reason: 'bad token' };
  return { ok: true, via: bearer !== undefined && openclaw !== undefined ? 'both' : bearer !== undefined ? 'authorization' : 'x-openclaw-token' };
}

/** Why a query string is refused, or undefined when there is none. Hooks take no query parameters. */
export function queryStringProblem(rawQuery: string | undefined): string | undefined {
  if (!rawQuery) return undefined;
  const names = [...new URLSearchParams(rawQuery).keys()];
  if (names.length === 0) return undefined;
  if (names.some((n) => /token|secret|key|auth/i.test(n))) {
    return 'a token in the query string is refused: URLs end up in access logs, proxies and browser history. Send it as "Authorization: Bearer <token>" and rotate the one you sent';
  }
  return `hooks take no query parameters (got ${[...new Set(names)].map((n) => JSON.stringify(n)).join(', ')})`;
}
