// Admits one HTTP hook call (POST /hooks/agent, /hooks/wake, /hooks/<mapping>), as
// OpenClaw's gateway does: authenticate, parse, route, record the session, and queue
// the envelope for the agent. It answers 2xx only once the envelope is durably queued,
// and 5xx when something it depends on is down, so the caller retries. It never throws.
import type { FleetConfig } from '../config/schema.ts';
import { defaultAgentId } from '../config/resolve.ts';
import { errorFields, type Logger } from '../log.ts';
import type { InboundEnvelope } from '../protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../protocol/envelopes.ts';
import type { AgentQueues, Clock, InboundDedupe, InboundOrigins, SessionRegistry, SpendCounts } from '../ports.ts';
import { budgetRefusal } from './budget-gate.ts';
import { authenticateHook, MIN_HOOK_TOKEN_CHARS, queryStringProblem } from '../hooks/auth.ts';
import { parseAgentHookBody, parseWakeHookBody } from '../hooks/bodies.ts';
import { hookEnvelopeId, hookSessionKey, hookSessionPolicy, IDEMPOTENCY_KEY } from '../hooks/hook-session.ts';
import { renderTemplate, templateReadsBody } from '../hooks/template.ts';
import { wakeIfAsleep, type LifecycleDeps } from './lifecycle.ts';
import { newOrigin } from './origins.ts';
import type { HttpResult } from './telegram-webhook-deps.ts';
import { mainSessionKey } from '../routing/session-key.ts';

/** Hook payloads are events, not uploads. */
export const MAX_HOOK_BODY_BYTES = 256 * 1024;
/** The longest text one agent turn is given (the envelope's limit). */
export const MAX_HOOK_TEXT_CHARS = 100_000;
/** How long an Idempotency-Key is remembered: callers retry within hours, not days. */
const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;

export interface HookRequest {
  method: string;
  /** The request path, e.g. `/hooks/agent`. */
  path: string;
  /** The raw query string, without `?`. */
  query?: string | undefined;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  body: string;
}

export interface HooksDeps {
  config: FleetConfig;
  /** The value of config.hooks.tokenSecret in the control plane's hooks secret. */
  hooksToken(): Promise<string>;
  queues: AgentQueues;
  dedupe: InboundDedupe;
  sessions: SessionRegistry;
  /** Each queued envelope's origin: whom the turn's answer reaches. */
  origins: InboundOrigins;
  /** Wakes a hibernating agent; absent where agents never sleep. */
  lifecycle?: LifecycleDeps;
  /** Budgets (#31): the spend count a metered agent's hooks are checked against. */
  spend?: () => SpendCounts;
  /** A fresh unique id, for requests without an Idempotency-Key. */
  newId(): string;
  clock: Clock;
  log: Logger;
}

/** What one admitted hook call queues, before the shared admission steps. */
interface Admission {
  endpoint: string;
  status: 200 | 202;
  envelope: InboundEnvelope & { sessionKey: string };
}

const fail = (status: number, error: string, extra: Record<string, unknown> = {}): HttpResult => ({ status, body: { error, ...extra } });

export async function handleHook(req: HookRequest, deps: HooksDeps): Promise<HttpResult> {
  try {
    return await admit(req, deps);
  } catch (err) {
    // Every expected failure is answered above; this is a bug, and the caller may retry.
    deps.log.error('hook failed unexpectedly', { path: req.path, ...errorFields(err) });
    return fail(500, 'internal error');
  }
}

async function admit(req: HookRequest, deps: HooksDeps): Promise<HttpResult> {
  const { config, log } = deps;
  const name = /^\/hooks\/([^/]+)\/?$/.exec(req.path)?.[1];
  if (name === undefined) return fail(404, 'no such path: POST /hooks/agent, /hooks/wake or /hooks/<mapping>');
  if (req.method !== 'POST') return fail(405, 'hooks take POST only');
  if (!config.hooks) return fail(404, 'hooks are not enabled in this fleet (no "hooks" in clawfleet.json)');

  const queryProblem = queryStringProblem(req.query);
  if (queryProblem) {
    // The query string itself is never logged: it may hold the token.
    log.warn('hook refused: query string', { endpoint: name });
    return fail(400, queryProblem);
  }
  if (Buffer.byteLength(req.body) > MAX_HOOK_BODY_BYTES) return fail(413, `body larger than ${MAX_HOOK_BODY_BYTES} bytes`);

  let expected: string;
  try {
    expected = await deps.hooksToken();
  } catch (err) {
    log.error('cannot read the hooks token', { endpoint: name, ...errorFields(err) });
    return fail(503, 'temporarily unavailable');
  }
  if (expected.length < MIN_HOOK_TOKEN_CHARS) {
    log.error(`the hooks token is shorter than ${MIN_HOOK_TOKEN_CHARS} characters; every hook is refused until it is replaced`, { endpoint: name });
    return fail(500, 'hooks are misconfigured on the server');
  }
  const auth = authenticateHook(expected, req.headers);
  if (!auth.ok) {
    log.warn('hook refused: not authenticated', { endpoint: name, reason: auth.reason });
    return fail(401, auth.reason);
  }

  const contentType = req.headers['content-type'];
  if (!contentType || !/^application\/([\w.+-]+\+)?json\s*(;|$)/i.test(contentType)) {
    return fail(415, 'send the body as JSON with "Content-Type: application/json"');
  }

  const mapping = config.hooks.mappings?.[name];
  if (name !== 'agent' && name !== 'wake' && !mapping) {
    const names = ['agent', 'wake', ...Object.keys(config.hooks.mappings ?? {})];
    return fail(404, `no hook "${name}"; this fleet has: ${names.join(', ')}`);
  }

  const idempotencyKey = req.headers['idempotency-key'];
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
    return fail(400, 'Idempotency-Key must be 1–255 printable ASCII characters without spaces');
  }

  let json: unknown;
  try {
    json = JSON.parse(req.body);
  } catch {
    return fail(400, 'body is not JSON');
  }

  const id = hookEnvelopeId(name, idempotencyKey, deps.newId);
  const now = deps.clock.now();
  const built =
    name === 'agent' ? agentHook(json, id, now, config) : name === 'wake' ? wakeHook(json, id, now, config) : mappedHook(name, mapping!, json, id, now, config);
  if (!('envelope' in built)) return built;
  return queue(built, idempotencyKey !== undefined, deps);
}

function bodyProblems(problems: string[]): HttpResult {
  return fail(400, problems.join('; '), { problems });
}

function tooLong(what: string, length: number): HttpResult {
  return fail(413, `${what} is ${length} characters; an agent turn takes at most ${MAX_HOOK_TEXT_CHARS}`);
}

/** POST /hooks/agent: a message for an agent turn, in the hook's own session. */
function agentHook(json: unknown, id: string, now: number, config: FleetConfig): Admission | HttpResult {
  const parsed = parseAgentHookBody(json);
  if (!parsed.ok) return bodyProblems(parsed.problems);
  const body = parsed.value;
  if (body.message.length > MAX_HOOK_TEXT_CHARS) return tooLong('message', body.message.length);
  const agentId = body.agentId ?? defaultAgentId(config);
  if (!config.agents.list.some((a) => a.id === agentId)) return fail(404, `no agent "${agentId}" in this fleet`);
  const policy = hookSessionPolicy(config.hooks);
  if (body.sessionKey !== undefined && !policy.allowRequestSessionKey) {
    return fail(
      400,
      'sessionKey: this fleet does not let hook callers choose the session; omit it (the hook gets a session of its own), or set hooks.allowRequestSessionKey (with hooks.allowedSessionKeyPrefixes) in clawfleet.json',
    );
  }
  const session = hookSessionKey(agentId, body.sessionKey === undefined ? undefined : { key: body.sessionKey, chosenBy: 'caller' }, body.name, policy);
  if (!session.ok) return fail(400, session.problem);
  return {
    endpoint: 'agent',
    status: 202,
    envelope: {
      v: PROTOCOL_VERSION,
      kind: 'message',
      id,
      agentId,
      sessionKey: session.sessionKey,
      ts: now,
      text: body.message,
      from: { channel: 'hook', accountId: 'agent', ...(body.name ? { displayName: body.name } : {}) },
    },
  };
}

/** POST /hooks/wake: a system event in the default agent's main session. */
function wakeHook(json: unknown, id: string, now: number, config: FleetConfig): Admission | HttpResult {
  const parsed = parseWakeHookBody(json);
  if (!parsed.ok) return bodyProblems(parsed.problems);
  if (parsed.value.text.length > MAX_HOOK_TEXT_CHARS) return tooLong('text', parsed.value.text.length);
  const agentId = defaultAgentId(config);
  return {
    endpoint: 'wake',
    status: 200,
    envelope: { v: PROTOCOL_VERSION, kind: 'system_event', id, agentId, sessionKey: mainSessionKey(agentId), ts: now, text: parsed.value.text },
  };
}

type Mapping = NonNullable<NonNullable<FleetConfig['hooks']>['mappings']>[string];

/** POST /hooks/<name>: any JSON body, turned into a message by the mapping's template. */
function mappedHook(name: string, mapping: Mapping, json: unknown, id: string, now: number, config: FleetConfig): Admission | HttpResult {
  if (!config.agents.list.some((a) => a.id === mapping.agentId)) {
    // Config validation refuses this; a hand-built config could still get here.
    return fail(500, `hook mapping "${name}" names no agent of this fleet`);
  }
  const message = renderTemplate(mapping.messageTemplate, json, MAX_HOOK_TEXT_CHARS);
  if (message.tooLong) return fail(413, `hook mapping "${name}" renders a message longer than ${MAX_HOOK_TEXT_CHARS} characters`);
  if (message.text.trim() === '') {
    return fail(400, `hook mapping "${name}" rendered an empty message: the body lacks the fields its messageTemplate reads`);
  }
  // A session key template that renders empty (its fields missing) falls back to the mapping's own session.
  const rendered = mapping.sessionKey === undefined ? undefined : renderTemplate(mapping.sessionKey, json, 512).text.trim() || undefined;
  // A fixed key is the operator's choice; one filled from the body is the caller's, and bounded like one.
  const chosenBy = mapping.sessionKey !== undefined && templateReadsBody(mapping.sessionKey) ? 'caller' : 'operator';
  const session = hookSessionKey(mapping.agentId, rendered === undefined ? undefined : { key: rendered, chosenBy }, name, hookSessionPolicy(config.hooks));
  if (!session.ok) return fail(400, `hook mapping "${name}": ${session.problem}`);
  return {
    endpoint: name,
    status: 202,
    envelope: {
      v: PROTOCOL_VERSION,
      kind: 'message',
      id,
      agentId: mapping.agentId,
      sessionKey: session.sessionKey,
      ts: now,
      text: message.text,
      from: { channel: 'hook', accountId: name, displayName: name },
    },
  };
}

/** The steps every admitted hook shares: dedupe, session and origin records, queue, wake. */
async function queue(admission: Admission, idempotent: boolean, deps: HooksDeps): Promise<HttpResult> {
  const { envelope, endpoint } = admission;
  const { agentId, sessionKey, id } = envelope;
  const ctx = { endpoint, envelopeId: id, agentId, sessionKey };
  const accepted = (extra: Record<string, unknown> = {}): HttpResult => ({
    status: admission.status,
    body: { ok: true, envelopeId: id, agentId, sessionKey, ...extra },
  });
  const now = deps.clock.now();
  try {
    if (idempotent && (await deps.dedupe.seen(id))) {
      deps.log.info('duplicate hook ignored', ctx);
      return accepted({ duplicate: true });
    }
    // Budgets (#31): over its cap, the agent takes no hook; the caller is told why and may try again once it resets.
    const refusal = await budgetRefusal(deps.config, agentId, deps.spend, now);
    if (refusal) {
      deps.log.info('hook not queued: the agent is over its budget', { ...ctx, period: refusal.reached.period });
      return fail(429, refusal.text, { overBudget: refusal.reached.period, resetsAt: new Date(refusal.reached.resetsAt).toISOString() });
    }
    const existing = await deps.sessions.get(sessionKey);
    if (existing && existing.agentId !== agentId) {
      deps.log.error('hook session belongs to another agent', { ...ctx, owner: existing.agentId });
      return fail(409, `session "${sessionKey}" belongs to another agent`);
    }
    // A hook's own session has nobody to answer: its replies are logged. In a session that
    // already has a chat (an agent's main session, where the config lets a hook in), the
    // answer goes to that chat's last direct route, as OpenClaw's channel "last" does.
    if (!existing) await deps.sessions.put({ sessionKey, agentId, target: { channel: 'none' }, updatedAt: now });
    await deps.origins.put(newOrigin({ id, agentId, sessionKey, target: existing?.target ?? { channel: 'none' }, createdAt: now }));
    await deps.queues.send(envelope);
    // Remembered only after queueing: a crash in between means the retry queues again,
    // which SQS FIFO deduplication (same id) and the runtime's turn key absorb.
    if (idempotent) await deps.dedupe.remember(id, now + IDEMPOTENCY_TTL_MS);
  } catch (err) {
    deps.log.error('hook not queued; the caller should retry', { ...ctx, ...errorFields(err) });
    return fail(503, 'temporarily unavailable; retry (with the same Idempotency-Key) later');
  }
  deps.log.info('hook queued', { ...ctx, kind: envelope.kind });
  if (deps.lifecycle) await wakeForHook(agentId, deps, deps.lifecycle);
  return accepted();
}

/** The envelope is queued, so nothing here may fail the request: the health tick wakes an agent with a non-empty queue. */
async function wakeForHook(agentId: string, deps: HooksDeps, lifecycle: LifecycleDeps): Promise<void> {
  try {
    await lifecycle.registry.recordActivity(agentId, deps.clock.now());
    await wakeIfAsleep(agentId, lifecycle, 'hook');
  } catch (err) {
    deps.log.warn('agent not woken now; the health tick will', { agentId, ...errorFields(err) });
  }
}
