// The dashboard over HTTP, one implementation for both places: the local server and
// λ dashboard (Function URL) translate their requests into DashboardRequest and write the
// DashboardResponse back. Pages and fragments are rendered here from the read model;
// the same data is served as JSON under /api/. Who may use it is decided here too, and
// the local server's own /api/ routes ask the same function (dashboardSignIn).
import * as z from '../zod.ts';
import { approvePairing, ApprovePairingSchema, FleetActionSchema, type FleetActions } from './actions.ts';
import {
  authenticate,
  MIN_DASHBOARD_TOKEN_CHARS,
  SESSION_COOKIE,
  SESSION_MAX_AGE_MS,
  sessionCookieValue,
  signInLinkCode,
  signInLinkValid,
  tokenMatches,
} from './auth.ts';
import { buildAgentDetail, buildFleetView, type DashboardSources } from './fleet-view.ts';
import { ClawfleetError } from '../errors.ts';
import { errorAnswer } from '../http/error-status.ts';
import { parseJsonBody, requireJsonContentType } from '../http/json-body.ts';
import { crossOriginWrite } from '../http/request-origin.ts';
import { errorFields } from '../log.ts';
import { isStorageFull, STORAGE_FULL_ANSWER, STORAGE_FULL_RETRY_AFTER_S } from '../storage-full.ts';
import { agentFragment, agentPage } from './pages/agent-page.ts';
import type { ChatBox } from './pages/chat-box.ts';
import { DASHBOARD_JS } from './pages/client-script.ts';
import { html } from './pages/html.ts';
import { loginPage, pageShell } from './pages/layout.ts';
import { LOGIN_JS } from './pages/login-script.ts';
import { overviewFragment } from './pages/overview.ts';
import { DASHBOARD_CSS } from './pages/styles.ts';

export interface DashboardRequest {
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  /** Cookie header values (Function URLs hand them over as a list). */
  cookies: string[];
  body: string;
}

export interface DashboardResponse {
  status: number;
  headers: Record<string, string>;
  /** Set-Cookie values. */
  cookies: string[];
  body: string;
}

export interface ChatLineView {
  seq: number;
  role: 'user' | 'agent';
  text: string;
  ts: number;
  /** A file the line carries (#16); the page fetches it from the local server's /api/chat/<agent>/files. */
  file?: { key: string; name: string; mimeType: string; size: number } | undefined;
  /** The labels of the inline buttons under an agent's line, by row. */
  buttons?: string[][] | undefined;
}

/** Local mode's chat box; absent on AWS, where people chat on Telegram. */
export interface DashboardChat {
  send(agentId: string, text: string): Promise<string>;
  /** A press of the button at `row`, `column` under the agent's line `seq`, as a Telegram button press reaches the agent. */
  press(agentId: string, press: { seq: number; row: number; column: number }): Promise<string>;
  /** `draft`: the answer being written, while it streams. */
  since(agentId: string, after: number): { messages: ChatLineView[]; typing: boolean; draft?: string };
  /** Its markup and script (shared/dashboard/pages/chat-box.ts), handed in so λ dashboard, which has no chat box, does not carry them. */
  box: ChatBox;
}

export interface DashboardDeps {
  sources: DashboardSources;
  actions: FleetActions;
  /** The dashboard token, or undefined when none is configured (then nothing is served but the login page saying so). */
  token(): Promise<string | undefined>;
  chat?: DashboardChat | undefined;
  /** Secure cookies need https: on for the Function URL, off for http://127.0.0.1. */
  secureCookie: boolean;
  /** Where the token comes from, shown on the login page (never the token). */
  loginHint: string;
  refreshMs: number;
  /**
   * A request failed because the disk is full (local mode): told here instead of logged
   * per request; true if it was taken care of. Absent on AWS, where it cannot happen.
   */
  storageFull?(err: unknown): boolean;
}

const PREFIXES = ['/agents/', '/fragments/', '/assets/', '/api/fleet', '/api/pairings/'];
/** The paths the dashboard answers; the local server keeps its other routes. */
export function isDashboardPath(path: string): boolean {
  return path === '/' || path === '/login' || path === '/logout' || PREFIXES.some((p) => path.startsWith(p));
}

const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // Not no-referrer: under it a browser sends `Origin: null` with the page's own POSTs,
  // and the Origin check (refusedCrossOrigin) could no longer tell them from another site's.
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

const respond = (status: number, type: string, body: string, extra: Partial<DashboardResponse> = {}): DashboardResponse => ({
  status,
  headers: { ...SECURITY_HEADERS, 'content-type': type, ...extra.headers },
  cookies: extra.cookies ?? [],
  body,
});
const json = (status: number, body: unknown) => respond(status, 'application/json', JSON.stringify(body));
const page = (status: number, body: { toString(): string }, extra?: Partial<DashboardResponse>) =>
  respond(status, 'text/html; charset=utf-8', String(body), extra);
const redirect = (to: string, cookies: string[] = []) => respond(303, 'text/plain; charset=utf-8', `see ${to}`, { headers: { location: to }, cookies });

const ChatBody = z.strictObject({ text: z.string().check(z.trim(), z.minLength(1), z.maxLength(100_000)) });
const index = z.int().check(z.nonnegative(), z.lte(Number.MAX_SAFE_INTEGER));
/** A button press in the chat box: which line, which button (never the button's data, which the server keeps). */
const ChatPressBody = z.strictObject({ seq: index, row: index, column: index });

/** A JSON body (an empty one is `{}`: the action buttons post nothing). */
function jsonBodyOf<T>(schema: z.core.$ZodType<T>, req: DashboardRequest): T {
  requireJsonContentType(req.headers['content-type']);
  return parseJsonBody(schema, req.body.trim() ? req.body : '{}');
}

function sessionCookie(value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}

export async function handleDashboard(req: DashboardRequest, deps: DashboardDeps): Promise<DashboardResponse> {
  try {
    return await route(req, deps);
  } catch (err) {
    const answer = errorAnswer(err);
    if (answer) return json(answer.status, answer.body);
    if (isStorageFull(err) && deps.storageFull?.(err)) {
      return respond(503, 'application/json', JSON.stringify(STORAGE_FULL_ANSWER), { headers: { 'retry-after': String(STORAGE_FULL_RETRY_AFTER_S) } });
    }
    deps.sources.log.error('dashboard request failed', { method: req.method, path: req.path, ...errorFields(err) });
    return json(500, { error: 'internal error' });
  }
}

/** The sign-in a request carries, or why it has none: one path for every route that needs it. */
export type DashboardSignIn = { ok: true; via: 'bearer' | 'cookie' } | { ok: false; code: 'SIGN_IN_REQUIRED' | 'DASHBOARD_TOKEN_UNSET'; reason: string };

/** The dashboard token if one usable is configured (long enough), else why not. */
async function configuredToken(deps: DashboardDeps): Promise<{ token: string } | { why: string }> {
  const token = await deps.token();
  if (token === undefined) return { why: 'No dashboard token is configured.' };
  if (token.length < MIN_DASHBOARD_TOKEN_CHARS) return { why: `The dashboard token is shorter than ${MIN_DASHBOARD_TOKEN_CHARS} characters and is refused.` };
  return { token };
}

/** A sign-in link's code (`clawfleet dashboard`), made with the token this dashboard signs in with now. */
export async function newSignInLink(deps: DashboardDeps): Promise<{ code: string; expiresAt: number }> {
  const configured = await configuredToken(deps);
  if ('why' in configured) throw new ClawfleetError('DASHBOARD_TOKEN_UNSET', configured.why);
  return signInLinkCode(configured.token, deps.sources.config.fleet, deps.sources.clock.now());
}

/** Whether the request is signed in to the dashboard: its bearer token or its session cookie. */
export async function dashboardSignIn(req: Pick<DashboardRequest, 'headers' | 'cookies'>, deps: DashboardDeps): Promise<DashboardSignIn> {
  const configured = await configuredToken(deps);
  if ('why' in configured) return { ok: false, code: 'DASHBOARD_TOKEN_UNSET', reason: configured.why };
  return signInWith(configured.token, req, deps);
}

/** The same check against a token the caller has read already (one read per request). */
function signInWith(token: string, req: Pick<DashboardRequest, 'headers' | 'cookies'>, deps: DashboardDeps): DashboardSignIn {
  const auth = authenticate(token, deps.sources.config.fleet, { authorization: req.headers['authorization'], cookies: req.cookies }, deps.sources.clock.now());
  return auth.ok ? auth : { ok: false, code: 'SIGN_IN_REQUIRED', reason: auth.reason };
}

/** A write (any method but GET, HEAD and OPTIONS) that a page of another origin sent through the browser, refused with why; else undefined. */
function refusedCrossOrigin(req: Pick<DashboardRequest, 'method' | 'headers'>): string | undefined {
  return crossOriginWrite({
    method: req.method,
    host: req.headers['host'],
    origin: req.headers['origin'],
    secFetchSite: req.headers['sec-fetch-site'],
    referer: req.headers['referer'],
  });
}

async function route(req: DashboardRequest, deps: DashboardDeps): Promise<DashboardResponse> {
  const { sources: src } = deps;
  const fleet = src.config.fleet;
  const { method, path } = req;

  if (method === 'GET' && path === '/assets/dashboard.css')
    return respond(200, 'text/css; charset=utf-8', DASHBOARD_CSS, { headers: { 'cache-control': 'max-age=300' } });
  if (method === 'GET' && path === '/assets/dashboard.js')
    return respond(200, 'text/javascript; charset=utf-8', DASHBOARD_JS, { headers: { 'cache-control': 'max-age=300' } });
  if (method === 'GET' && path === '/assets/login.js')
    return respond(200, 'text/javascript; charset=utf-8', LOGIN_JS, { headers: { 'cache-control': 'max-age=300' } });
  if (method === 'GET' && path === '/assets/chat.js' && deps.chat)
    return respond(200, 'text/javascript; charset=utf-8', deps.chat.box.script, { headers: { 'cache-control': 'max-age=300' } });

  // Signing in and out included: another site must not sign a browser in to this dashboard either.
  const crossOrigin = refusedCrossOrigin(req);
  if (crossOrigin) throw new ClawfleetError('ORIGIN_NOT_ALLOWED', crossOrigin);

  const configured = await configuredToken(deps);
  if ('why' in configured) return page(503, loginPage({ fleet, error: configured.why, hint: deps.loginHint }));
  const { token } = configured;

  if (path === '/login') {
    if (method === 'GET') return page(200, loginPage({ fleet, hint: deps.loginHint }));
    if (method !== 'POST') throw new ClawfleetError('METHOD_NOT_ALLOWED', 'GET or POST');
    const form = new URLSearchParams(req.body);
    // A sign-in link's code (pages/login-script.ts posts it), or the token as typed: either
    // signs in, so a right token is not refused for a stale code beside it.
    const code = form.get('code') || undefined;
    const given = form.get('token') ?? undefined;
    const viaLink = code !== undefined && signInLinkValid(token, fleet, code, src.clock.now());
    if (!viaLink && !tokenMatches(token, given)) {
      if (code !== undefined) {
        src.log.warn('dashboard sign-in refused', { reason: 'lapsed or bad sign-in link' });
        const command = `npx clawfleet dashboard${src.where === 'aws' ? ' --aws' : ''}`;
        // A code is dated by the clock of whoever made it, and a rotated token takes a while to reach every λ: both read as lapsed.
        const error = `That sign-in link has lapsed or is not for this dashboard (or the clock that made it is off, or the token changed minutes ago). ${command} prints a new one; or sign in with the token.`;
        return page(401, loginPage({ fleet, error, hint: deps.loginHint }));
      }
      src.log.warn('dashboard sign-in refused', { reason: given ? 'bad token' : 'no token' });
      return page(401, loginPage({ fleet, error: 'That token is not right.', hint: deps.loginHint }));
    }
    return redirect('/', [sessionCookie(sessionCookieValue(token, fleet, src.clock.now()), Math.floor(SESSION_MAX_AGE_MS / 1000), deps.secureCookie)]);
  }
  if (path === '/logout') {
    if (method !== 'POST') throw new ClawfleetError('METHOD_NOT_ALLOWED', 'POST');
    return redirect('/login', [sessionCookie('', 0, deps.secureCookie)]);
  }

  // The token read above: a request reads it once (on AWS each read may be a Secrets Manager call).
  const auth = signInWith(token, req, deps);
  if (!auth.ok) {
    if (method === 'GET' && (path === '/' || path.startsWith('/agents/'))) return redirect('/login');
    throw new ClawfleetError('SIGN_IN_REQUIRED', auth.reason);
  }

  const agentIds = new Set(src.config.agents.list.map((a) => a.id));
  const agentOf = (id: string) => {
    const agentId = decodeURIComponent(id);
    if (!agentIds.has(agentId)) throw new ClawfleetError('AGENT_UNKNOWN', `no agent "${agentId}" in fleet "${fleet}"`);
    return agentId;
  };
  let m: RegExpExecArray | null;

  if (method === 'GET') {
    if (path === '/') {
      const view = await buildFleetView(src);
      return page(
        200,
        pageShell({ fleet, where: src.where, title: 'Fleet', liveSrc: '/fragments/overview', refreshMs: deps.refreshMs, content: overviewFragment(view) }),
      );
    }
    if ((m = /^\/agents\/([^/]+)$/.exec(path))) {
      const detail = await buildAgentDetail(agentOf(m[1]!), src);
      const a = detail.agent;
      return page(
        200,
        pageShell({
          fleet,
          where: src.where,
          title: a.name,
          liveSrc: `/fragments/agents/${encodeURIComponent(a.id)}`,
          refreshMs: deps.refreshMs,
          content: agentPage(detail, deps.chat?.box.panel(a.id, a.name)),
          chat: deps.chat !== undefined,
          breadcrumb: html`<span>›</span><span>${a.name}</span>`,
        }),
      );
    }
    if (path === '/fragments/overview') return page(200, overviewFragment(await buildFleetView(src)));
    if ((m = /^\/fragments\/agents\/([^/]+)$/.exec(path))) return page(200, agentFragment(await buildAgentDetail(agentOf(m[1]!), src)));
    if (path === '/api/fleet') return json(200, await buildFleetView(src));
    if ((m = /^\/api\/fleet\/([^/]+)$/.exec(path))) return json(200, await buildAgentDetail(agentOf(m[1]!), src));
    if ((m = /^\/api\/fleet\/([^/]+)\/chat$/.exec(path))) {
      if (!deps.chat) throw new ClawfleetError('ROUTE_UNKNOWN', 'the chat box is in local mode only; on AWS, talk to agents on Telegram');
      const after = Number(new URLSearchParams(req.query).get('after') ?? 0);
      return json(200, deps.chat.since(agentOf(m[1]!), Number.isFinite(after) ? after : 0));
    }
  }

  if (method === 'POST') {
    if ((m = /^\/api\/fleet\/([^/]+)\/chat$/.exec(path))) {
      if (!deps.chat) throw new ClawfleetError('ROUTE_UNKNOWN', 'the chat box is in local mode only; on AWS, talk to agents on Telegram');
      const agentId = agentOf(m[1]!);
      const { text } = jsonBodyOf(ChatBody, req);
      return json(202, { envelopeId: await deps.chat.send(agentId, text) });
    }
    if ((m = /^\/api\/fleet\/([^/]+)\/chat\/press$/.exec(path))) {
      if (!deps.chat) throw new ClawfleetError('ROUTE_UNKNOWN', 'the chat box is in local mode only; on AWS, talk to agents on Telegram');
      const agentId = agentOf(m[1]!);
      return json(202, { envelopeId: await deps.chat.press(agentId, jsonBodyOf(ChatPressBody, req)) });
    }
    if ((m = /^\/api\/fleet\/([^/]+)\/([a-z]+)$/.exec(path))) {
      const agentId = agentOf(m[1]!);
      const action = FleetActionSchema.safeParse(m[2]);
      if (!action.success) throw new ClawfleetError('ROUTE_UNKNOWN', `no action "${m[2]}"; one of ${FleetActionSchema.options.join(', ')}`);
      jsonBodyOf(z.strictObject({}), req);
      const state = await deps.actions.act(agentId, action.data);
      src.log.info('dashboard action', { agentId, action: action.data, state, via: auth.via });
      return json(200, { agentId, action: action.data, state });
    }
    if (path === '/api/pairings/approve') {
      const { code } = jsonBodyOf(ApprovePairingSchema, req);
      const approved = await approvePairing(src.pairings, code, src.clock.now());
      src.log.info('dashboard approved a pairing', { accountId: approved.accountId, peerId: approved.peerId, via: auth.via });
      return json(200, { approved: { accountId: approved.accountId, peerId: approved.peerId, displayName: approved.displayName } });
    }
  }
  throw new ClawfleetError('ROUTE_UNKNOWN', `no dashboard route ${method} ${path}`);
}
