// The Gateway protocol check at the bridge's boundary: a managed gateway that speaks another
// protocol than the pinned release's is refused at start, with an error naming both — whether
// it agrees to another protocol in hello-ok or refuses ours as a real OpenClaw of another
// release does (PROTOCOL_MISMATCH with the protocol it expects) — and no turn is ever sent to
// it. The gateway here is a small WebSocket server on 127.0.0.1 speaking the connect handshake.
import { WebSocketServer } from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { OPENCLAW_VERSION } from '../../shared/config/openclaw-release.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { memoryLogger } from '../../shared/log.ts';
import { GATEWAY_PROTOCOL } from '../../runtime-image/src/openclaw/gateway-client.ts';
import type { ManagedGateway } from '../../runtime-image/src/openclaw/gateway-process.ts';
import { GatewaySupervisor } from '../../runtime-image/src/openclaw/gateway-supervisor.ts';

const TOKEN = 'gw-token-protocol-0123456789abcdef';

type ConnectAnswer = { ok: true; payload: Record<string, unknown> } | { ok: false; error: Record<string, unknown> };

interface HandshakeGateway {
  url: string;
  /** Every request's method, in order (a turn would be chat.send). */
  methods: string[];
  /** The protocol range each connect asked for. */
  asked: { min: unknown; max: unknown }[];
  /** Whether every connection the bridge opened has been closed. */
  allClosed(): boolean;
  close(): Promise<void>;
}

const servers: HandshakeGateway[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/** A gateway that sends connect.challenge, then answers connect with `answer` (and any other request with ok). */
async function handshakeGateway(answer: ConnectAnswer): Promise<HandshakeGateway> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const methods: string[] = [];
  const asked: HandshakeGateway['asked'] = [];
  const sockets = new Set<{ terminate(): void }>();
  server.on('connection', (ws) => {
    sockets.add(ws);
    ws.on('close', () => sockets.delete(ws));
    ws.send(JSON.stringify({ type: 'event', event: 'connect.challenge', payload: { nonce: 'nonce-protocol-test', ts: Date.now() } }));
    ws.on('message', (data) => {
      const f = JSON.parse(String(data)) as { id: string; method: string; params: Record<string, unknown> };
      methods.push(f.method);
      if (f.method !== 'connect') return ws.send(JSON.stringify({ type: 'res', id: f.id, ok: true, payload: {} }));
      asked.push({ min: f.params.minProtocol, max: f.params.maxProtocol });
      if (f.params.auth && (f.params.auth as { token?: unknown }).token !== TOKEN) throw new Error('the bridge sent another token');
      ws.send(JSON.stringify({ type: 'res', id: f.id, ...answer }));
      // As OpenClaw does after a handshake error: the connection is closed.
      if (!answer.ok) ws.close(1002, 'protocol mismatch');
    });
  });
  const gw: HandshakeGateway = {
    url: `ws://127.0.0.1:${(server.address() as { port: number }).port}`,
    methods,
    asked,
    allClosed: () => sockets.size === 0,
    close: () =>
      new Promise((resolve) => {
        for (const c of sockets) c.terminate();
        server.close(() => resolve());
      }),
  };
  servers.push(gw);
  return gw;
}

/** The managed gateway the supervisor "started": the fake at its URL, and whether it was stopped again. */
function startedAt(url: string): { start: () => Promise<ManagedGateway>; stops: () => number } {
  let stops = 0;
  let exit!: (code: number | null) => void;
  const exited = new Promise<number | null>((r) => (exit = r));
  return {
    start: async () => ({
      url,
      token: TOKEN,
      pid: undefined,
      configPath: '/nonexistent/openclaw.json',
      exited,
      stop: async () => {
        stops++;
        exit(0);
      },
    }),
    stops: () => stops,
  };
}

async function startRefused(answer: ConnectAnswer): Promise<{ err: unknown; gw: HandshakeGateway; stops: number }> {
  const gw = await handshakeGateway(answer);
  const managed = startedAt(gw.url);
  const supervisor = new GatewaySupervisor({ start: managed.start, clientVersion: 'test', log: memoryLogger() });
  const err = await supervisor.start().then(
    () => undefined,
    (e: unknown) => e,
  );
  await supervisor.stop();
  return { err, gw, stops: managed.stops() };
}

const helloOk = (protocol: number) => ({ ok: true as const, payload: { type: 'hello-ok', protocol, server: { version: 'fake' }, auth: { role: 'operator' } } });

describe(`the Gateway protocol check (protocol ${GATEWAY_PROTOCOL}, OpenClaw ${OPENCLAW_VERSION})`, () => {
  it('connects to a gateway that agrees to the pinned protocol (the control case: the fake gateway can pass)', async () => {
    const gw = await handshakeGateway(helloOk(GATEWAY_PROTOCOL));
    const managed = startedAt(gw.url);
    const supervisor = new GatewaySupervisor({ start: managed.start, clientVersion: 'test', log: memoryLogger() });
    const client = await supervisor.start();
    expect(client.server).toEqual({ version: 'fake', protocol: GATEWAY_PROTOCOL });
    expect(gw.asked).toEqual([{ min: GATEWAY_PROTOCOL, max: GATEWAY_PROTOCOL }]);
    await supervisor.stop();
  });

  it.each([GATEWAY_PROTOCOL + 1, GATEWAY_PROTOCOL - 1])(
    'refuses at start a gateway that agrees to protocol %i instead, naming both, and stops it without sending a turn',
    async (other) => {
      const { err, gw, stops } = await startRefused(helloOk(other));
      expect(err).toBeInstanceOf(ClawfleetError);
      expect((err as ClawfleetError).code).toBe('OPENCLAW_PROTOCOL');
      expect((err as Error).message).toContain(`agreed to protocol ${other}`);
      expect((err as Error).message).toContain(`this bridge speaks protocol ${GATEWAY_PROTOCOL}`);
      expect((err as Error).message).toContain(OPENCLAW_VERSION);
      // Nothing half-started: the gateway stopped, the connection closed, no chat.send.
      expect(stops).toBeGreaterThanOrEqual(1);
      expect(gw.methods).toEqual(['connect']);
      await expect.poll(() => gw.allClosed()).toBe(true);
    },
  );

  it('refuses at start a gateway of another release that rejects the protocol asked for, naming the one it expects', async () => {
    // OpenClaw's own answer to a range it does not serve (message-handler: "protocol mismatch").
    const { err, gw, stops } = await startRefused({
      ok: false,
      error: {
        code: 'INVALID_REQUEST',
        message: 'protocol mismatch',
        details: {
          code: 'PROTOCOL_MISMATCH',
          clientMinProtocol: GATEWAY_PROTOCOL,
          clientMaxProtocol: GATEWAY_PROTOCOL,
          expectedProtocol: 7,
          minimumProbeProtocol: 3,
        },
      },
    });
    expect(err).toBeInstanceOf(ClawfleetError);
    expect((err as ClawfleetError).code).toBe('OPENCLAW_PROTOCOL');
    expect((err as Error).message).toMatch(new RegExp(`speaks protocol 7; this bridge speaks protocol ${GATEWAY_PROTOCOL}`));
    expect(stops).toBeGreaterThanOrEqual(1);
    expect(gw.methods).toEqual(['connect']);
  });

  it('says so too when such a refusal names no protocol (or a malformed one), never passing its text on as a number', async () => {
    const { err } = await startRefused({
      ok: false,
      error: { code: 'INVALID_REQUEST', message: 'protocol mismatch', details: { code: 'PROTOCOL_MISMATCH', expectedProtocol: '5; rm -rf /' } },
    });
    expect((err as ClawfleetError).code).toBe('OPENCLAW_PROTOCOL');
    expect((err as Error).message).toContain(`speaks another protocol (it did not say which); this bridge speaks protocol ${GATEWAY_PROTOCOL}`);
    expect((err as Error).message).not.toContain('rm -rf');
  });
});
