// A fake OpenClaw gateway on 127.0.0.1 speaking the Gateway WebSocket protocol 4 as
// OpenClaw 2026.9.6 does (connect.challenge, connect with token and a signed device,
// PAIRING_REQUIRED with a request id until approved, AUTH_TOKEN_MISMATCH, chat.send keyed
// by idempotency key, chat events, chat.history), for the external mode's hostile cases
// that a real gateway will not produce: answers for another session, oversized frames.
// The device signature is checked here independently of the bridge's code.
import { createHash, createPublicKey, verify } from 'node:crypto';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';

export interface FakeChatRun {
  sessionKey: string;
  message: string;
  idempotencyKey: string;
  /** Sends a chat event to the connection that asked. */
  emit(payload: Record<string, unknown>): void;
  /** Sends raw text as a frame (forged or oversized frames). */
  raw(text: string): void;
  /** Records the run's final answer (chat.history returns it) and emits its `final` event. */
  finish(text: string): void;
}

export interface FakeGateway {
  url: string;
  token: string;
  /** Device ids approved so far. */
  paired: Set<string>;
  /** Request ids handed out for pending devices, newest last. */
  pending: string[];
  /** The device id of every connect whose signature verified, in order (approved or not). */
  devices: string[];
  /** Signatures that did not verify (a test expects none). */
  badSignatures: number;
  connects: number;
  /** What chat.send does with a new key; by default answers "echo: <message>". */
  onChat(handler: (run: FakeChatRun) => void): void;
  /** Closes every open connection (a network drop). */
  dropAll(): void;
  close(): Promise<void>;
}

/** OpenClaw's v3 device-auth payload, written out here from its documented shape. */
const payloadV3 = (p: { deviceId: string; scopes: string[]; signedAt: number; token: string; nonce: string; platform: string }) =>
  ['v3', p.deviceId, 'gateway-client', 'backend', 'operator', p.scopes.join(','), String(p.signedAt), p.token, p.nonce, p.platform.toLowerCase(), ''].join('|');

export async function startFakeGateway(opts: { token: string }): Promise<FakeGateway> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const sockets = new Set<WebSocket>();
  const runs = new Map<string, { runId: string; sessionKey: string; text?: string }>();
  let handler = (run: FakeChatRun) => run.finish(`echo: ${run.message}`);
  const gw: FakeGateway = {
    url: `ws://127.0.0.1:${server.address().port}`,
    token: opts.token,
    paired: new Set(),
    pending: [],
    devices: [],
    badSignatures: 0,
    connects: 0,
    onChat: (h) => void (handler = h),
    dropAll: () => {
      for (const s of sockets) s.terminate();
    },
    close: () =>
      new Promise((resolve) => {
        gw.dropAll();
        server.close(() => resolve());
      }),
  };

  server.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    const nonce = `nonce-${Math.random().toString(36).slice(2)}`;
    const ts = Date.now();
    let authed = false;
    const send = (f: unknown) => ws.send(JSON.stringify(f));
    const fail = (id: string, code: string, message: string, details: Record<string, unknown> = {}) => {
      send({ type: 'res', id, ok: false, error: { code, message, details } });
      ws.close(1008, message.slice(0, 100));
    };
    send({ type: 'event', event: 'connect.challenge', payload: { nonce, ts } });
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { id: string; method: string; params: Record<string, any> };
      const p = f.params;
      if (f.method === 'connect') {
        if (p.auth?.token !== gw.token)
          return fail(f.id, 'INVALID_REQUEST', 'unauthorized: gateway token mismatch (provide gateway auth token)', { code: 'AUTH_TOKEN_MISMATCH' });
        const d = p.device;
        const raw = Buffer.from(String(d?.publicKey ?? ''), 'base64url');
        const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
        const deviceId = createHash('sha256').update(raw).digest('hex');
        const signed = payloadV3({ deviceId, scopes: p.scopes, signedAt: d.signedAt, token: p.auth.token, nonce, platform: p.client.platform });
        if (d.id !== deviceId || d.nonce !== nonce || d.signedAt !== ts || !verify(null, Buffer.from(signed), key, Buffer.from(d.signature, 'base64url'))) {
          gw.badSignatures++;
          return fail(f.id, 'INVALID_REQUEST', 'device signature invalid', { code: 'DEVICE_AUTH_SIGNATURE_INVALID' });
        }
        gw.devices.push(deviceId);
        if (!gw.paired.has(deviceId)) {
          const requestId = `req-${gw.pending.length + 1}`;
          gw.pending.push(requestId);
          return fail(f.id, 'NOT_PAIRED', `pairing required: device is not approved yet (requestId: ${requestId})`, {
            code: 'PAIRING_REQUIRED',
            reason: 'not-paired',
            requestId,
            deviceId,
          });
        }
        authed = true;
        gw.connects++;
        return send({
          type: 'res',
          id: f.id,
          ok: true,
          payload: { type: 'hello-ok', protocol: 4, server: { version: 'fake-2026.9.6' }, auth: { role: 'operator', scopes: p.scopes } },
        });
      }
      if (!authed) return fail(f.id, 'INVALID_REQUEST', 'connect first');
      if (f.method === 'chat.send') {
        const seen = runs.get(p.idempotencyKey);
        if (seen) return send({ type: 'res', id: f.id, ok: true, payload: { runId: seen.runId, status: seen.text === undefined ? 'in_flight' : 'ok' } });
        const run = { runId: p.idempotencyKey, sessionKey: p.sessionKey as string, text: undefined as string | undefined };
        runs.set(p.idempotencyKey, run);
        send({ type: 'res', id: f.id, ok: true, payload: { runId: run.runId, status: 'started' } });
        const emit = (payload: Record<string, unknown>) =>
          send({ type: 'event', event: 'chat', payload: { runId: run.runId, sessionKey: run.sessionKey, ...payload } });
        handler({
          sessionKey: run.sessionKey,
          message: p.message,
          idempotencyKey: p.idempotencyKey,
          emit,
          raw: (text) => ws.send(text),
          finish: (text) => {
            run.text = text;
            emit({ state: 'final', message: { role: 'assistant', content: [{ type: 'text', text }] } });
          },
        });
        return;
      }
      if (f.method === 'chat.history') {
        const messages = [...runs.values()]
          .filter((r) => r.sessionKey === p.sessionKey && r.text !== undefined)
          .map((r) => ({ role: 'assistant', content: [{ type: 'text', text: r.text }], __openclaw: { runId: r.runId } }));
        // As OpenClaw's: the session is busy while a run of it has not finished.
        const hasActiveRun = [...runs.values()].some((r) => r.sessionKey === p.sessionKey && r.text === undefined);
        return send({ type: 'res', id: f.id, ok: true, payload: { sessionKey: p.sessionKey, messages, sessionInfo: { hasActiveRun } } });
      }
      send({ type: 'res', id: f.id, ok: false, error: { code: 'INVALID_REQUEST', message: `unknown method ${f.method}` } });
    });
  });
  return gw;
}
