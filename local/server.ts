// Local mode's HTTP server on 127.0.0.1: the dashboard (shared/dashboard/handler.ts, with a chat
// box per agent), the chat API, the Telegram webhook path, HTTP hooks (/hooks/*, λ hooks'
// core), the runtimes' channel (/runtime/*, one bearer token per runtime), and the admin
// API the CLI uses (/admin/*, the admin token written to the state dir). Every request must
// name this server in its Host header and every write must not come from another site's
// page (shared/http/request-origin.ts); /api/* needs the dashboard's sign-in.
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { z } from 'zod';
import { ClawfleetError } from '../shared/errors.ts';
import { formatBytes } from '../shared/format-bytes.ts';
import { isOwnMediaKey, TELEGRAM_DOWNLOAD_LIMIT_BYTES, TELEGRAM_UPLOAD_LIMIT_BYTES } from '../shared/media/media-ref.ts';
import { errorAnswer } from '../shared/http/error-status.ts';
import { parseJsonBody, requireJsonContentType } from '../shared/http/json-body.ts';
import { crossOriginWrite, hostAllowed, LOOPBACK_HOST_NAMES } from '../shared/http/request-origin.ts';
import { errorFields, type Logger } from '../shared/log.ts';
import { CronTriggerSchema } from '../shared/cron/trigger.ts';
import { isStorageFull, STORAGE_FULL_ANSWER, STORAGE_FULL_RETRY_AFTER_S } from '../shared/storage-full.ts';
import { dashboardSignIn, handleDashboard, isDashboardPath, newSignInLink, type DashboardRequest } from '../shared/dashboard/handler.ts';
import { localDashboard, LOCAL_QUEUE_SAMPLE_MS } from './dashboard.ts';
import type { LocalControlPlane } from './sqlite-control-plane.ts';
import type { FleetStatus } from './fleet-status.ts';
import type { StorageWatch } from './storage-watch.ts';
import { HOLD_OPS, type HoldOp } from './workspace-holds.ts';
import type { WorkspaceView } from '../shared/dashboard/view.ts';
import type { LifecycleAction, RuntimeState } from './runtime-launcher.ts';

const MAX_BODY = 1024 * 1024;

export interface AgentView {
  id: string;
  name: string;
  model: string;
  state: string;
}

export interface ServerDeps {
  cp: LocalControlPlane;
  log: Logger;
  /** The agent a runtime token belongs to. */
  agentOfToken(token: string): string | undefined;
  agents(): AgentView[];
  /** Bearer token of the admin API. */
  adminToken: string;
  /** The dashboard's sign-in token unless the secrets file sets DASHBOARD_TOKEN. */
  dashboardToken: string;
  /** What `clawfleet status` prints; the dashboard reads it too. */
  status(): FleetStatus;
  act(agentId: string, action: LifecycleAction): Promise<RuntimeState>;
  /** The agent page's workspace figures (local/dashboard.ts). */
  workspace?(agentId: string): Promise<WorkspaceView | undefined>;
  /** A workspace transfer's hold on an agent (`clawfleet workspace push|pull`): local/workspace-holds.ts. */
  workspaceHold?(agentId: string, op: HoldOp, body: unknown): Promise<unknown>;
  /** Called on every authenticated runtime call: evidence the runtime is alive. */
  runtimeSeen?(agentId: string): void;
  /** Host names besides the loopback ones that requests may name (`clawfleet start --allow-host`). */
  allowedHosts?: readonly string[];
  /** Where requests that fail for a full disk are reported (logged once, not per request). */
  storage: StorageWatch;
}

/** The local server, and how the supervisor tells it that a runtime is stopping. */
export interface LocalServer extends Server {
  /**
   * The agent's runtime was told to stop: its waiting long polls are answered at once (it
   * lets a waiting poll finish before it exits), and so are any it starts until `false`.
   */
  draining(agentId: string, on: boolean): void;
  /**
   * The agent's runtime process has exited: its waiting long polls are answered (empty) at
   * once, so none of them takes a message for a reader that is gone — their sockets' close
   * may reach us after a message has arrived, which would hide it for the visibility timeout.
   */
  runtimeGone(agentId: string): void;
}

/** Distinct refused Host names logged per run; past this, refusals are only answered. */
const REFUSED_HOSTS_LOGGED = 20;

const ChatBody = z.strictObject({ text: z.string().min(1).max(100_000) });
const RuntimeBodies = {
  receive: z.object({ waitSeconds: z.number().min(0).max(20), visibilitySeconds: z.number().int().min(1).max(43_200).optional() }),
  extend: z.object({ receipt: z.string(), seconds: z.number().int().min(0).max(43_200) }),
  delete: z.object({ receipt: z.string() }),
  release: z.object({ receipt: z.string() }),
  outbox: z.object({ envelope: z.unknown() }),
  'dead-letter': z.object({ body: z.string(), reason: z.string() }),
  // Budgets (#31): the runtime's own ledger. Its agent is its token's; the caps and the time are the control plane's.
  spend: z.discriminatedUnion('op', [
    z.strictObject({
      op: z.literal('reserve'),
      callId: z.string().min(1).max(128),
      micros: z.number().int().min(0).max(1e12),
      holdMs: z.number().int().min(1_000).max(7_200_000),
    }),
    z.strictObject({
      op: z.literal('settle'),
      callId: z.string().min(1).max(128),
      month: z.string().regex(/^\d{4}-\d{2}$/),
      micros: z.number().int().min(0).max(1e12),
    }),
    z.strictObject({ op: z.literal('month'), month: z.string().regex(/^\d{4}-\d{2}$/) }),
  ]),
};
/** `clawfleet cron run`: a config job's trigger, fired now through the same dispatch as its schedule. */
const CronRunBody = z.strictObject({ trigger: CronTriggerSchema });
const ApproveBody = z.strictObject({ code: z.string().min(1).max(64) });
const ACTIONS = new Set<string>(['restart', 'upgrade', 'hibernate', 'wake']);

function bearerMatches(expected: string, header: string | undefined): boolean {
  const given = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const mine = Buffer.from(expected);
  return given.length === mine.length && timingSafeEqual(given, mine);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new ClawfleetError('BODY_TOO_LARGE', `body larger than ${MAX_BODY} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Types the dashboard shows in the page; anything else (SVG and HTML included) is only ever downloaded. */
const INLINE_IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A raw body of up to `max` bytes (a file), refused past it with the limit as a person reads it ("20 MiB"). */
async function readBytes(req: IncomingMessage, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) throw new ClawfleetError('MEDIA_TOO_LARGE', `file larger than ${formatBytes(max)}`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json', headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  res.end(type === 'application/json' ? JSON.stringify(body) : String(body));
}

export function createLocalServer(deps: ServerDeps): LocalServer {
  const { cp } = deps;
  const draining = new Set<string>();
  const polls = new Map<string, Set<AbortController>>();
  const agentIds = new Set(cp.config.agents.list.map((a) => a.id));
  const knownAgent = (id: string) => {
    if (!agentIds.has(id)) throw new ClawfleetError('AGENT_UNKNOWN', `no agent "${id}"`);
    return id;
  };

  const runtime = async (req: IncomingMessage, res: ServerResponse, op: string): Promise<unknown> => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const agentId = token ? deps.agentOfToken(token) : undefined;
    if (!agentId) throw new ClawfleetError('TOKEN_INVALID', 'unknown runtime token');
    deps.runtimeSeen?.(agentId);
    const schema = RuntimeBodies[op as keyof typeof RuntimeBodies];
    if (!schema) throw new ClawfleetError('ROUTE_UNKNOWN', `no runtime operation "${op}"`);
    const body = parseJsonBody(schema as z.ZodType<Record<string, unknown>>, await readBody(req));
    const inbox = cp.inbox(agentId);
    switch (op) {
      case 'receive': {
        // The runtime may die mid-poll: stop waiting, and hand back anything taken for it.
        const abort = new AbortController();
        res.once('close', () => abort.abort());
        // Gone already while its body was read: 'close' came before the listener above.
        if (req.socket.destroyed) abort.abort();
        // A stopping runtime waits for its poll: end the wait (an empty answer) so it exits now.
        const drain = new AbortController();
        const agentPolls = polls.get(agentId) ?? new Set<AbortController>();
        polls.set(agentId, agentPolls.add(drain));
        const wait = draining.has(agentId) ? 0 : (body.waitSeconds as number);
        try {
          const messages = await inbox.receive(wait, AbortSignal.any([abort.signal, drain.signal]), body.visibilitySeconds as number | undefined);
          if (abort.signal.aborted) await Promise.all(messages.map((m) => inbox.release(m.receipt)));
          // The reader may die between our check and the answer: an answer that never
          // left this process is released rather than hidden for the visibility timeout.
          else if (messages.length) {
            res.once('close', () => {
              if (!res.writableFinished)
                void Promise.all(messages.map((m) => inbox.release(m.receipt))).catch((err) => deps.log.warn('message not released', errorFields(err)));
            });
          }
          return { messages };
        } finally {
          agentPolls.delete(drain);
        }
      }
      case 'extend':
        return inbox.extend(body.receipt as string, body.seconds as number).then(() => ({}));
      case 'delete':
        return inbox.delete(body.receipt as string).then(() => ({}));
      case 'release':
        return inbox.release(body.receipt as string).then(() => ({}));
      case 'spend':
        return cp.runtimeSpend(agentId, body as z.infer<(typeof RuntimeBodies)['spend']>);
      case 'outbox': {
        // A reply may wait for Telegram's retry_after: no longer than its runtime is there.
        const gone = new AbortController();
        res.once('close', () => gone.abort());
        return cp.outboxFromRuntime(agentId, JSON.stringify(body.envelope), gone.signal).then(() => ({}));
      }
      default:
        // The runtime's own rejects: inbound envelopes it could not process.
        return cp
          .inboxDlq(agentId)
          .put(body.body as string, body.reason as string)
          .then(() => ({}));
    }
  };

  // ── media (#16): a runtime reads its own in/ and out/ files and writes its own out/ files, as its task role may on AWS.
  const runtimeMedia = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const agentId = token ? deps.agentOfToken(token) : undefined;
    if (!agentId) throw new ClawfleetError('TOKEN_INVALID', 'unknown runtime token');
    deps.runtimeSeen?.(agentId);
    const store = cp.media;
    if (!store) throw new ClawfleetError('ROUTE_UNKNOWN', 'this fleet keeps no media');
    const key = url.searchParams.get('key') ?? '';
    const writing = req.method === 'PUT';
    if (!isOwnMediaKey(agentId, key, 'out') && (writing || !isOwnMediaKey(agentId, key, 'in'))) {
      throw new ClawfleetError('MEDIA_NOT_OWNED', `"${key.slice(0, 200)}" is not under this runtime's own ${writing ? 'out/' : 'in/ or out/'} prefix`);
    }
    if (writing) {
      const type = (req.headers['content-type'] ?? 'application/octet-stream').slice(0, 128);
      await store.put(key, await readBytes(req, TELEGRAM_UPLOAD_LIMIT_BYTES), type);
      deps.storage.wrote();
      return send(res, 200, {});
    }
    const stored = await store.get(key);
    if (!stored) throw new ClawfleetError('MEDIA_MISSING', `nothing is kept at "${key}"`);
    res.writeHead(200, { 'content-type': stored.mimeType, 'content-length': stored.bytes.byteLength, 'cache-control': 'no-store' });
    res.end(stored.bytes);
  };

  /**
   * A file of an agent's chat (#16), for the signed-in dashboard: only keys under that agent's
   * own prefixes. Served so the browser can never run it: raster images inline (an <img>), all
   * else as a download, no sniffing, and a CSP that allows nothing should it be opened anyway.
   */
  const chatFileDownload = async (res: ServerResponse, agentId: string, key: string): Promise<void> => {
    if (!isOwnMediaKey(agentId, key, 'in') && !isOwnMediaKey(agentId, key, 'out'))
      throw new ClawfleetError('MEDIA_NOT_OWNED', `"${key.slice(0, 200)}" is not a file of ${agentId}'s chat`);
    const stored = await cp.media?.get(key);
    if (!stored) throw new ClawfleetError('MEDIA_MISSING', 'that file is no longer kept');
    const inline = INLINE_IMAGE_TYPES.has(stored.mimeType);
    const name = key.split('/').pop()!;
    res.writeHead(200, {
      'content-type': inline ? stored.mimeType : 'application/octet-stream',
      'content-length': stored.bytes.byteLength,
      'content-disposition': `${inline ? 'inline' : 'attachment'}; filename="${name}"`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, no-store',
    });
    res.end(stored.bytes);
  };

  const admin = async (req: IncomingMessage, path: string): Promise<unknown> => {
    if (!bearerMatches(deps.adminToken, req.headers.authorization)) throw new ClawfleetError('TOKEN_INVALID', 'bad admin token');
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && path === '/admin/status') return deps.status();
    if (req.method === 'POST' && (m = /^\/admin\/agents\/([^/]+)\/([a-z]+)$/.exec(path))) {
      const agentId = knownAgent(m[1]!);
      if (HOLD_OPS.includes(m[2] as HoldOp) && deps.workspaceHold) {
        const text = await readBody(req);
        const body = text.trim() ? parseJsonBody(z.unknown(), text) : {};
        // A refusal (the agent is awake, held already, or raced) is a ClawfleetError the CLI prints as it is.
        return await deps.workspaceHold(agentId, m[2] as HoldOp, body);
      }
      if (!ACTIONS.has(m[2]!)) throw new ClawfleetError('ROUTE_UNKNOWN', `no runtime action "${m[2]}"; one of ${[...ACTIONS].join(', ')}`);
      // Held for a workspace transfer (AGENT_HELD): answered 409 with why.
      return { agentId, state: await deps.act(agentId, m[2] as LifecycleAction) };
    }
    if (req.method === 'POST' && path === '/admin/cron/run') {
      const { trigger } = parseJsonBody(CronRunBody, await readBody(req));
      knownAgent(trigger.agentId);
      return { agentId: trigger.agentId, ...(await cp.runTrigger(trigger)) };
    }
    // `clawfleet dashboard`: a sign-in link's code, never the token itself.
    if (req.method === 'POST' && path === '/admin/dashboard/sign-in-link') return await newSignInLink(dashboard.deps);
    if (req.method === 'GET' && path === '/admin/pairings') return { pending: await cp.pairings.listPending(Date.now()) };
    if (req.method === 'POST' && path === '/admin/pairings/approve') {
      const { code } = parseJsonBody(ApproveBody, await readBody(req));
      const approved = await cp.pairings.approve(code.toUpperCase(), Date.now());
      if (!approved) throw new ClawfleetError('PAIRING_UNKNOWN', `no pending pairing with code ${code} (codes lapse after an hour)`);
      return { approved };
    }
    throw new ClawfleetError('ROUTE_UNKNOWN', `no admin route ${req.method} ${path}`);
  };

  const dashboard = localDashboard(deps);
  const headersOf = (req: IncomingMessage): DashboardRequest['headers'] =>
    Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
  const cookiesOf = (req: IncomingMessage): string[] => (req.headers.cookie ? [req.headers.cookie] : []);
  const dashboardRequest = async (req: IncomingMessage, url: URL, res: ServerResponse): Promise<void> => {
    const out = await handleDashboard(
      {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.search.slice(1),
        headers: headersOf(req),
        cookies: cookiesOf(req),
        body: req.method === 'POST' ? await readBody(req) : '',
      },
      dashboard.deps,
    );
    res.writeHead(out.status, { ...out.headers, ...(out.cookies.length ? { 'set-cookie': out.cookies } : {}) });
    res.end(out.body);
  };
  /** The local /api/ routes: signed in as the dashboard is (its token as a bearer, or its session cookie). */
  const requireSignIn = async (req: IncomingMessage): Promise<void> => {
    const signIn = await dashboardSignIn({ headers: headersOf(req), cookies: cookiesOf(req) }, dashboard.deps);
    if (!signIn.ok) throw new ClawfleetError(signIn.code, signIn.reason);
  };

  const allowedHosts = new Set(deps.allowedHosts ?? []);
  const refusedHosts = new Set<string>();
  /** DNS rebinding: a page on another name that resolves to 127.0.0.1 still says its own name. */
  const checkHost = (req: IncomingMessage): void => {
    if (hostAllowed(req.headers.host, allowedHosts)) return;
    const host = (req.headers.host ?? '').slice(0, 100);
    if (refusedHosts.size < REFUSED_HOSTS_LOGGED && !refusedHosts.has(host)) {
      refusedHosts.add(host);
      deps.log.warn('request refused: its Host is not this server (DNS rebinding, or a proxy name to allow with --allow-host)', { host });
    }
    // The names allowed besides loopback are the operator's business: not told to whoever asks.
    throw new ClawfleetError(
      'HOST_NOT_ALLOWED',
      `Host "${host}" is not this server; it answers to ${LOOPBACK_HOST_NAMES.join(', ')} and to names allowed with clawfleet start --allow-host`,
    );
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname;
    const route = async (): Promise<void> => {
      let m: RegExpExecArray | null;
      checkHost(req);
      const crossOrigin = crossOriginWrite({
        method: req.method ?? 'GET',
        host: req.headers.host,
        origin: req.headers.origin,
        secFetchSite: req.headers['sec-fetch-site'] as string | undefined,
        referer: req.headers.referer,
      });
      if (crossOrigin) throw new ClawfleetError('ORIGIN_NOT_ALLOWED', crossOrigin);
      if (isDashboardPath(path)) return dashboardRequest(req, url, res);
      if (req.method === 'GET' && path === '/healthz') return send(res, 200, { ok: true });
      if (path.startsWith('/api/')) await requireSignIn(req);
      if (req.method === 'GET' && path === '/api/agents') return send(res, 200, { fleet: cp.config.fleet, agents: deps.agents() });
      if ((m = /^\/api\/chat\/([^/]+)$/.exec(path)) && req.method === 'POST') {
        const agentId = knownAgent(m[1]!);
        requireJsonContentType(req.headers['content-type']);
        const { text } = parseJsonBody(ChatBody, await readBody(req));
        const envelopeId = await cp.chatMessage(agentId, text);
        deps.storage.wrote();
        return send(res, 202, { envelopeId });
      }
      // media (#16): a file into the chat box (the raw body, its type the content-type), and the chat's files back.
      if ((m = /^\/api\/chat\/([^/]+)\/files$/.exec(path)) && req.method === 'POST') {
        const agentId = knownAgent(m[1]!);
        const name = (url.searchParams.get('name') ?? '').trim();
        if (!name || name.length > 255) throw new ClawfleetError('BODY_INVALID', 'name the file: ?name=<file name> (1–255 characters)');
        const caption = url.searchParams.get('caption') ?? '';
        if (caption.length > 4096) throw new ClawfleetError('BODY_INVALID', 'a caption is at most 4096 characters');
        const mimeType = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase() || 'application/octet-stream';
        if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(mimeType) || mimeType.length > 128)
          throw new ClawfleetError('CONTENT_TYPE_UNSUPPORTED', `"${mimeType.slice(0, 64)}" is not a MIME type`);
        const bytes = await readBytes(req, TELEGRAM_DOWNLOAD_LIMIT_BYTES);
        if (bytes.length === 0) throw new ClawfleetError('BODY_INVALID', 'the file is empty');
        const envelopeId = await cp.chatFile(agentId, { name, mimeType, bytes }, caption);
        deps.storage.wrote();
        return send(res, 202, { envelopeId });
      }
      if ((m = /^\/api\/chat\/([^/]+)\/files$/.exec(path)) && req.method === 'GET')
        return chatFileDownload(res, knownAgent(m[1]!), url.searchParams.get('key') ?? '');
      if ((m = /^\/api\/chat\/([^/]+)\/messages$/.exec(path)) && req.method === 'GET') {
        return send(res, 200, cp.chat.since(knownAgent(m[1]!), Number(url.searchParams.get('after') ?? 0) || 0));
      }
      if ((m = /^\/telegram\/([^/]+)$/.exec(path)) && req.method === 'POST') {
        const result = await cp.telegramUpdate(m[1]!, req.headers['x-telegram-bot-api-secret-token'] as string | undefined, await readBody(req));
        return send(res, result.status, result.body);
      }
      if (path.startsWith('/hooks/')) {
        // The body is read first whatever the method: the core answers 405 itself.
        const body = await readBody(req);
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), Array.isArray(v) ? v[0] : v]));
        const result = await cp.hook({ method: req.method ?? 'GET', path, query: url.search.slice(1), headers, body });
        return send(res, result.status, result.body, 'application/json', result.status === 405 ? { allow: 'POST' } : {});
      }
      if (path === '/runtime/media' && (req.method === 'GET' || req.method === 'PUT')) return runtimeMedia(req, res, url);
      if ((m = /^\/runtime\/([a-z-]+)$/.exec(path)) && req.method === 'POST') return send(res, 200, await runtime(req, res, m[1]!));
      if (path.startsWith('/admin/')) return send(res, 200, await admin(req, path));
      throw new ClawfleetError('ROUTE_UNKNOWN', `no route ${req.method} ${path}`);
    };
    route().catch((err) => {
      const answer = errorAnswer(err);
      if (answer) return send(res, answer.status, answer.body);
      // Nothing was taken: the client may try again once there is space.
      if (isStorageFull(err) && deps.storage.failed(err, `${req.method} ${path}`)) {
        return send(res, 503, STORAGE_FULL_ANSWER, 'application/json', { 'retry-after': String(STORAGE_FULL_RETRY_AFTER_S) });
      }
      deps.log.error('request failed', { method: req.method, path, ...errorFields(err) });
      send(res, 500, { error: 'internal error' });
    });
  });
  /** Answers every waiting long poll of the agent's runtime at once (empty). */
  const endPolls = (agentId: string) => {
    for (const poll of polls.get(agentId) ?? []) poll.abort();
  };
  const local = Object.assign(server, {
    draining(agentId: string, on: boolean) {
      if (!on) return void draining.delete(agentId);
      draining.add(agentId);
      endPolls(agentId);
    },
    runtimeGone: endPolls,
  });
  // The queue chart's samples: every agent's depth every 30 s while the fleet runs.
  const sampler = setInterval(() => void dashboard.sample(), LOCAL_QUEUE_SAMPLE_MS);
  sampler.unref();
  server.once('close', () => clearInterval(sampler));
  void dashboard.sample();
  return local;
}
