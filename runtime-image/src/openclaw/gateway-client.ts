// A client of OpenClaw's Gateway WebSocket API (protocol 4, as OpenClaw 2026.9.6 speaks it):
// JSON frames — `req` {id, method, params} answered by `res` {id, ok, payload | error}, and
// `event` {event, payload} pushed by the gateway. It connects as a backend client (client
// id "gateway-client", mode "backend", the shared token): to its own managed gateway on
// loopback as a trusted local backend, to an operator's gateway (external mode) with a
// device identity signing the gateway's challenge (device-identity.ts), and checks the
// protocol the gateway agreed to. A refused connect says why: pairing pending, token wrong.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { OPENCLAW_VERSION } from '../../../shared/config/openclaw-release.ts';
import { ClawfleetError } from '../../../shared/errors.ts';
import { deviceAuthPayload, type DeviceIdentity } from './device-identity.ts';

/** The Gateway protocol this bridge speaks; a gateway that agrees to another is refused. */
export const GATEWAY_PROTOCOL = 4;
const CONNECT_TIMEOUT_MS = 15_000;

export interface GatewayEvent {
  event: string;
  payload: Record<string, unknown>;
}

interface Pending {
  resolve(payload: Record<string, unknown>): void;
  reject(err: Error): void;
}

export class GatewayClosedError extends Error {
  constructor(why: string) {
    super(`the OpenClaw gateway connection closed: ${why}`);
    this.name = 'GatewayClosedError';
  }
}

/** The gateway refused the connect: `code` is its detail code (PAIRING_REQUIRED, AUTH_TOKEN_MISMATCH, …). */
export class GatewayConnectRefused extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** For PAIRING_REQUIRED: the pending request the gateway's operator approves. */
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'GatewayConnectRefused';
  }
}

export interface ConnectOptions {
  /** Signs the gateway's challenge (external mode); without it the connect is the trusted local backend's. */
  device?: DeviceIdentity;
  /** The largest frame taken from the gateway; a bigger one closes the connection (ws code 1009). */
  maxPayload?: number;
}

const REQUEST_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
const SCOPES = ['operator.read', 'operator.write'];

export class GatewayClient {
  private readonly pending = new Map<string, Pending>();
  private readonly listeners = new Set<(e: GatewayEvent) => void>();
  private readonly closeListeners = new Set<(err: Error) => void>();
  private closedWith: Error | undefined;
  /** What the gateway said about itself in hello-ok. */
  server: { version?: string; protocol: number } = { protocol: 0 };
  /** Names this connection (so this gateway's life) in idempotency keys: see bridge-turn.ts. */
  readonly instance = randomUUID().slice(0, 8);

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => this.frame(String(data)));
    ws.on('close', (code, reason) => this.closed(new GatewayClosedError(`code ${code}${reason.length ? ` (${String(reason).slice(0, 200)})` : ''}`)));
    ws.on('error', (err) => this.closed(new GatewayClosedError(err.message)));
  }

  /** Opens the socket, waits for the challenge, connects with the token; rejects with why it could not. */
  static async connect(url: string, token: string, clientVersion: string, opts: ConnectOptions = {}): Promise<GatewayClient> {
    const ws = new WebSocket(url, { handshakeTimeout: CONNECT_TIMEOUT_MS, maxPayload: opts.maxPayload ?? 32 * 1024 * 1024 });
    const client = new GatewayClient(ws);
    const challenge = client.nextEvent('connect.challenge', CONNECT_TIMEOUT_MS);
    challenge.catch(() => {});
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', (err) => reject(new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `cannot reach the OpenClaw gateway at ${safeUrl(url)}: ${err.message}`)));
    });
    const { nonce, ts } = (await challenge).payload;
    if (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > 512 || typeof ts !== 'number' || !Number.isSafeInteger(ts) || ts < 0) {
      client.close();
      throw new ClawfleetError('OPENCLAW_PROTOCOL', 'the OpenClaw gateway sent a malformed connect.challenge (no nonce or timestamp)');
    }
    const clientInfo = { id: 'gateway-client', mode: 'backend', platform: process.platform };
    const device = opts.device && {
      id: opts.device.deviceId,
      publicKey: opts.device.publicKey,
      signature: opts.device.sign(
        deviceAuthPayload(opts.device.deviceId, {
          clientId: clientInfo.id,
          clientMode: clientInfo.mode,
          role: 'operator',
          scopes: SCOPES,
          signedAtMs: ts,
          token,
          nonce,
          platform: clientInfo.platform,
        }),
      ),
      signedAt: ts,
      nonce,
    };
    let hello: Record<string, unknown>;
    try {
      hello = await client.request('connect', {
        minProtocol: GATEWAY_PROTOCOL,
        maxProtocol: GATEWAY_PROTOCOL,
        client: { ...clientInfo, displayName: 'clawfleet bridge', version: clientVersion },
        role: 'operator',
        scopes: SCOPES,
        caps: [],
        auth: { token },
        ...(device ? { device } : {}),
      });
    } catch (err) {
      client.close();
      throw refusal(err);
    }
    const protocol = typeof hello.protocol === 'number' ? hello.protocol : 0;
    if (hello.type !== 'hello-ok' || protocol !== GATEWAY_PROTOCOL) {
      client.close();
      throw protocolMismatch(`agreed to protocol ${protocol}`);
    }
    const server = (hello.server ?? {}) as { version?: unknown };
    client.server = { version: typeof server.version === 'string' ? server.version.slice(0, 100) : undefined, protocol };
    // A paired device that was granted less than chat needs would fail every turn: said now, at connect.
    const granted = (hello.auth as { scopes?: unknown } | undefined)?.scopes;
    if (opts.device && (!Array.isArray(granted) || !SCOPES.every((s) => granted.includes(s)))) {
      client.close();
      throw new GatewayConnectRefused(
        'SCOPE_MISSING',
        `the OpenClaw gateway granted this device ${Array.isArray(granted) && granted.length ? granted.join(', ') : 'no scope'}; the bridge needs ${SCOPES.join(' and ')} (approve it with those scopes)`,
      );
    }
    return client;
  }

  get closed_(): Error | undefined {
    return this.closedWith;
  }

  /** Sends a request; resolves with its payload, rejects with the gateway's error or the closed connection. */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = randomUUID();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ type: 'req', id, method, params }), (err) => {
        if (err) {
          this.pending.delete(id);
          reject(new GatewayClosedError(err.message));
        }
      });
    });
  }

  onEvent(listener: (e: GatewayEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onClose(listener: (err: Error) => void): () => void {
    if (this.closedWith) {
      listener(this.closedWith);
      return () => {};
    }
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  close(): void {
    this.ws.close();
    this.closed(new GatewayClosedError('closed by the bridge'));
  }

  private nextEvent(name: string, timeoutMs: number): Promise<GatewayEvent> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        offClose();
        reject(new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `the OpenClaw gateway sent no ${name} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      let offClose = () => {};
      const off = this.onEvent((e) => {
        if (e.event !== name) return;
        clearTimeout(timer);
        off();
        offClose();
        resolve(e);
      });
      // A connection that closes first ends the wait now, not at the timeout (no timer left behind).
      offClose = this.onClose((err) => {
        clearTimeout(timer);
        off();
        reject(err);
      });
    });
  }

  private frame(text: string): void {
    let f: { type?: unknown; id?: unknown; ok?: unknown; payload?: unknown; error?: unknown; event?: unknown };
    try {
      f = JSON.parse(text) as typeof f;
    } catch {
      return; // not a frame of this protocol; nothing waits on it
    }
    if (f.type === 'res' && typeof f.id === 'string') {
      const p = this.pending.get(f.id);
      if (!p) return;
      this.pending.delete(f.id);
      if (f.ok === true) p.resolve((f.payload ?? {}) as Record<string, unknown>);
      else {
        const e = (f.error ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
        const code = typeof e.code === 'string' ? e.code.slice(0, 64) : undefined;
        const message = typeof e.message === 'string' ? e.message.slice(0, 500) : 'no message';
        p.reject(Object.assign(new Error(`OpenClaw gateway: ${code ?? 'error'}: ${message}`), { gatewayCode: code, gatewayDetails: e.details }));
      }
    } else if (f.type === 'event' && typeof f.event === 'string') {
      const e: GatewayEvent = { event: f.event, payload: (f.payload ?? {}) as Record<string, unknown> };
      for (const l of this.listeners) l(e);
    }
  }

  private closed(err: Error): void {
    if (this.closedWith) return;
    this.closedWith = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
    for (const l of this.closeListeners) l(err);
    this.closeListeners.clear();
  }
}

/** The URL without what must never be logged (userinfo, query); config load refuses both anyway. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return 'the configured URL';
  }
}

/** The bridge and the gateway speak different protocols: both named, and where the pin is said. */
function protocolMismatch(gatewaySide: string): ClawfleetError {
  return new ClawfleetError(
    'OPENCLAW_PROTOCOL',
    `the OpenClaw gateway ${gatewaySide}; this bridge speaks protocol ${GATEWAY_PROTOCOL}, as the pinned OpenClaw ${OPENCLAW_VERSION} does (docs/runtime.md, "Compatibility")`,
  );
}

/**
 * A refused connect as a GatewayConnectRefused with the gateway's detail code, when it gave
 * one — or, when it refused the protocol range asked for (a gateway of another release
 * answers PROTOCOL_MISMATCH with the protocol it expects), as the protocol error that it is.
 */
function refusal(err: unknown): Error {
  if (!(err instanceof Error) || !('gatewayCode' in err)) return err as Error;
  const details = (err as { gatewayDetails?: unknown }).gatewayDetails;
  const d = details && typeof details === 'object' ? (details as { code?: unknown; requestId?: unknown; expectedProtocol?: unknown }) : {};
  if (d.code === 'PROTOCOL_MISMATCH') {
    const expected = d.expectedProtocol;
    return protocolMismatch(
      typeof expected === 'number' && Number.isSafeInteger(expected) ? `speaks protocol ${expected}` : 'speaks another protocol (it did not say which)',
    );
  }
  const code = typeof d.code === 'string' ? d.code.slice(0, 64) : String((err as { gatewayCode?: unknown }).gatewayCode ?? 'REFUSED');
  const requestId = typeof d.requestId === 'string' && REQUEST_ID.test(d.requestId) ? d.requestId : undefined;
  return new GatewayConnectRefused(code, err.message, requestId);
}
