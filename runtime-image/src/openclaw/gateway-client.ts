// A client of OpenClaw's Gateway WebSocket API (protocol 4, as OpenClaw 2026.9.6 speaks it):
// JSON frames — `req` {id, method, params} answered by `res` {id, ok, payload | error}, and
// `event` {event, payload} pushed by the gateway. It connects as a trusted local backend
// (client id "gateway-client", mode "backend", the shared token, on loopback: no device
// pairing) and checks the protocol the gateway agreed to.
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { ClawfleetError } from '../../../shared/errors.ts';

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
  static async connect(url: string, token: string, clientVersion: string): Promise<GatewayClient> {
    const ws = new WebSocket(url, { handshakeTimeout: CONNECT_TIMEOUT_MS, maxPayload: 32 * 1024 * 1024 });
    const client = new GatewayClient(ws);
    const challenge = client.nextEvent('connect.challenge', CONNECT_TIMEOUT_MS);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', (err) => reject(new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `cannot reach the OpenClaw gateway at ${url}: ${err.message}`)));
    });
    await challenge;
    const hello = await client.request('connect', {
      minProtocol: GATEWAY_PROTOCOL,
      maxProtocol: GATEWAY_PROTOCOL,
      client: { id: 'gateway-client', displayName: 'clawfleet bridge', version: clientVersion, platform: process.platform, mode: 'backend' },
      role: 'operator',
      scopes: ['operator.read', 'operator.write'],
      caps: [],
      auth: { token },
    });
    const protocol = typeof hello.protocol === 'number' ? hello.protocol : 0;
    if (hello.type !== 'hello-ok' || protocol !== GATEWAY_PROTOCOL) {
      client.close();
      throw new ClawfleetError(
        'OPENCLAW_PROTOCOL',
        `the OpenClaw gateway agreed to protocol ${protocol}, this bridge speaks ${GATEWAY_PROTOCOL} (docs/runtime.md, "Compatibility")`,
      );
    }
    const server = (hello.server ?? {}) as { version?: string };
    client.server = { version: server.version, protocol };
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
      const timer = setTimeout(
        () => (off(), reject(new ClawfleetError('OPENCLAW_GATEWAY_FAILED', `the OpenClaw gateway sent no ${name} within ${timeoutMs / 1000} s`))),
        timeoutMs,
      );
      const off = this.onEvent((e) => {
        if (e.event !== name) return;
        clearTimeout(timer);
        off();
        resolve(e);
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
        const e = (f.error ?? {}) as { code?: string; message?: string };
        p.reject(Object.assign(new Error(`OpenClaw gateway: ${e.code ?? 'error'}: ${e.message ?? 'no message'}`), { gatewayCode: e.code }));
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
