// Which session a hook's turn runs in, and the id of the envelope that carries it.
import { createHash } from 'node:crypto';
import { agentOfSessionKey, hookSessionKeyOf, isScopedSessionKey, sessionScope } from '../routing/session-key.ts';

/**
 * A session key is also the SQS FIFO message group: at most 128 characters of the
 * printable ASCII SQS allows there (no spaces).
 */
const SQS_GROUP_SAFE = /^[A-Za-z0-9!"#$%&'()*+,\-./:;<=>?@[\\\]^_`{|}~]{1,128}$/;

export type SessionKeyResult = { ok: true; sessionKey: string } | { ok: false; problem: string };

/** "GitHub PR" → "github-pr": a hook name made fit for a session key. */
export function hookNameSlug(name: string | undefined): string {
  const slug = (name ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug || 'default';
}

/** Which session keys a hook caller may choose (config `hooks.allowRequestSessionKey`, `hooks.allowedSessionKeyPrefixes`). */
export interface HookSessionPolicy {
  /** Whether a /hooks/agent body may name a `sessionKey` at all. */
  allowRequestSessionKey: boolean;
  /** What a caller-chosen key may start with, after its `agent:<id>:` scope. */
  allowedPrefixes: readonly string[];
}

/** A caller may choose only hook sessions unless the config says otherwise: never the main session or a chat's. */
const DEFAULT_HOOK_SESSION_PREFIXES: readonly string[] = ['hook:'];

export function hookSessionPolicy(
  hooks: { allowRequestSessionKey?: boolean | undefined; allowedSessionKeyPrefixes?: string[] | undefined } | undefined,
): HookSessionPolicy {
  return { allowRequestSessionKey: hooks?.allowRequestSessionKey ?? false, allowedPrefixes: hooks?.allowedSessionKeyPrefixes ?? DEFAULT_HOOK_SESSION_PREFIXES };
}

/**
 * A requested session key and who chose it: `caller` for a body's `sessionKey` or a
 * mapping template filled from the body, `operator` for a mapping's fixed key.
 */
export interface RequestedSessionKey {
  key: string;
  chosenBy: 'caller' | 'operator';
}

/**
 * The session of a hook turn for `agentId`. Without a requested key: `agent:<id>:hook:<name>`.
 * A requested `agent:<id>:...` key must name this agent; any other key (OpenClaw's
 * examples use `hook:email:msg-123`) is scoped under the agent, as OpenClaw scopes it. A key
 * the caller chose must then start, after `agent:<id>:`, with one of the policy's prefixes
 * (case-sensitive): with the default ["hook:"] a request can never steer a message into
 * the agent's main session or a chat's session, whose answers reach people.
 */
export function hookSessionKey(
  agentId: string,
  requested: RequestedSessionKey | undefined,
  name: string | undefined,
  policy: HookSessionPolicy,
): SessionKeyResult {
  if (requested === undefined) return { ok: true, sessionKey: hookSessionKeyOf(agentId, hookNameSlug(name)) };
  const scope = sessionScope(agentId);
  let sessionKey = requested.key;
  if (isScopedSessionKey(requested.key)) {
    const owner = agentOfSessionKey(requested.key);
    if (owner === undefined) return { ok: false, problem: `sessionKey ${JSON.stringify(requested.key)} is not a session key (agent:<agentId>:<rest>)` };
    if (owner !== agentId)
      return { ok: false, problem: `sessionKey ${JSON.stringify(requested.key)} belongs to agent "${owner}", not to "${agentId}" who takes this hook` };
  } else {
    sessionKey = `${scope}${requested.key}`;
  }
  if (!SQS_GROUP_SAFE.test(sessionKey)) {
    return { ok: false, problem: `sessionKey ${JSON.stringify(sessionKey)} must be at most 128 printable ASCII characters without spaces` };
  }
  const rest = sessionKey.slice(scope.length);
  if (requested.chosenBy === 'caller' && !policy.allowedPrefixes.some((prefix) => rest.startsWith(prefix))) {
    return {
      ok: false,
      problem: `sessionKey ${JSON.stringify(requested.key)} is not one a hook caller may choose: after "${scope}" it must start with ${policy.allowedPrefixes.map((p) => JSON.stringify(p)).join(' or ')} (hooks.allowedSessionKeyPrefixes)`,
    };
  }
  return { ok: true, sessionKey };
}

/**
 * The envelope id of a hook request. With an Idempotency-Key header every retry gets the
 * same id (so it is queued once); the endpoint is part of it, so one key on two
 * endpoints names two requests. Without a key, each request is new.
 */
export function hookEnvelopeId(endpoint: string, idempotencyKey: string | undefined, newId: () => string): string {
  if (idempotencyKey === undefined) return `hook.${newId()}`;
  const digest = createHash('sha256').update(`${endpoint}\n${idempotencyKey}`).digest('hex').slice(0, 40);
  return `hook.${endpoint}.${digest}`;
}

/** IETF draft-ietf-httpapi-idempotency-key-header: a client-chosen string; we take 1–255 printable ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
