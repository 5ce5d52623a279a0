// runtime.openclaw.mode "external" without a real gateway: the config checks (URL, token
// secret, ws:// only to loopback), the secret it needs, the device identity and its signed
// connect, and the bridge against a fake gateway on 127.0.0.1 that is hostile where a real
// one will not be: pairing pending, a wrong token, an answer for another session, a frame
// over the limit, a repeated key after the connection dropped. The real OpenClaw is driven
// in test/openclaw/openclaw-external.test.ts.
import { execFileSync } from 'node:child_process';
import { createPublicKey, verify } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayUrlProblem } from '../../shared/config/openclaw-gateway-url.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { runtimeConfigFor } from '../../shared/config/resolve.ts';
import { memoryLogger } from '../../shared/log.ts';
import type { OutboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { secretsNeeded } from '../../shared/secrets/agent-secrets.ts';
import { AnswerJournal } from '../../runtime-image/src/openclaw/answer-journal.ts';
import { bridgeTurn, gatewaySessionKey, type BridgeDeps } from '../../runtime-image/src/openclaw/bridge-turn.ts';
import { deviceAuthPayload, loadOrCreateDeviceIdentity } from '../../runtime-image/src/openclaw/device-identity.ts';
import { EXTERNAL_MAX_FRAME_BYTES, ExternalGateway } from '../../runtime-image/src/openclaw/external-gateway.ts';
import type { TurnRequest } from '../../runtime-image/src/turn/turn-request.ts';
import { configIssues } from '../support/config-issues.ts';
import { startFakeGateway, type FakeGateway } from '../support/fake-openclaw-gateway.ts';
import { tempDir } from '../support/temp-dirs.ts';

const TOKEN = 'gw-token-external-0123456789abcdef';
const demo = () => JSON.parse(readFileSync('clawfleet.json', 'utf8'));

function withFran(openclaw: Record<string, unknown>): any {
  const config = demo();
  config.agents.list[1].runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048, openclaw };
  return config;
}

describe('runtime.openclaw.mode "external" in the config', () => {
  it('takes a wss:// gateway and a token secret, and the agent then needs the token, not model keys', () => {
    const config = withFran({ mode: 'external', url: 'wss://gateway.example:18789', tokenSecret: 'OPENCLAW_GATEWAY_TOKEN', agent: 'main' });
    expect(configIssues(config)).toEqual([]);
    const needed = secretsNeeded(runtimeConfigFor(parseConfig(config), 'fran'), { modelKeys: true }).map((n) => n.name);
    expect(needed).toContain('OPENCLAW_GATEWAY_TOKEN');
    expect(needed).not.toContain('OPENAI_API_KEY');
  });

  it('refuses two agents answered by the same agent of the same gateway (they would share its sessions); other agents or gateways are fine', () => {
    const external = (agent: string, url = 'wss://gateway.example:18789') => ({
      kind: 'openclaw',
      cpus: 1,
      memoryMb: 2048,
      openclaw: { mode: 'external', url, tokenSecret: 'OPENCLAW_GATEWAY_TOKEN', agent },
    });
    const both = (ray: Record<string, unknown>) => {
      const config = withFran({ mode: 'external', url: 'wss://gateway.example:18789', tokenSecret: 'OPENCLAW_GATEWAY_TOKEN', agent: 'main' });
      config.agents.list.find((a: { id: string }) => a.id === 'ray').runtime = ray;
      return config;
    };
    expect(configIssues(both(external('main', 'wss://GATEWAY.example:18789/')))).toEqual([
      {
        path: 'agents.list[3].runtime.openclaw.agent',
        message:
          'agent "fran" is already answered by gateway agent "main" at gateway.example:18789: the two would share its sessions; give each its own gateway agent',
      },
    ]);
    expect(configIssues(both(external('ops')))).toEqual([]);
    expect(configIssues(both(external('main', 'wss://other.example:18789')))).toEqual([]);
  });

  it('refuses ws:// to a host that is not loopback unless allowed, and takes it to loopback', () => {
    const at = 'agents.list[1].runtime.openclaw.url';
    expect(configIssues(withFran({ mode: 'external', url: 'ws://192.0.2.2:18789', tokenSecret: 'T' }))).toEqual([
      { path: at, message: expect.stringMatching(/ws:\/\/ to a host that is not loopback: the token would cross the network in clear/) },
    ]);
    expect(configIssues(withFran({ mode: 'external', url: 'ws://192.0.2.2:18789', tokenSecret: 'T', allowInsecureWs: true }))).toEqual([]);
    for (const url of ['ws://127.0.0.1:18789', 'ws://localhost:1', 'ws://[::1]:1']) expect(gatewayUrlProblem(url)).toBeUndefined();
  });

  it('refuses credentials or a query in the URL without echoing them, other schemes, and link-local hosts', () => {
    const secretish = 'sk-pasted-token-9876';
    for (const url of [`wss://u:${secretish}@gw.example`, `wss://gw.example/?token=${secretish}`, `wss://gw.example/#${secretish}`]) {
      const found = configIssues(withFran({ mode: 'external', url, tokenSecret: 'T' }));
      expect(found).toHaveLength(1);
      expect(JSON.stringify(found)).not.toContain(secretish);
    }
    expect(gatewayUrlProblem('https://gw.example')).toMatch(/wss:\/\//);
    expect(gatewayUrlProblem('wss://169.254.169.254/')).toMatch(/link-local/);
    expect(gatewayUrlProblem('not a url')).toMatch(/must be a URL/);
  });

  it('refuses the external keys in managed mode, and an external mode without them', () => {
    expect(configIssues(withFran({ url: 'wss://gw.example', tokenSecret: 'T' }))).toEqual([
      { path: 'agents.list[1].runtime.openclaw.url', message: 'applies to runtime.openclaw.mode "external" only' },
      { path: 'agents.list[1].runtime.openclaw.tokenSecret', message: 'applies to runtime.openclaw.mode "external" only' },
    ]);
    expect(configIssues(withFran({ mode: 'external', url: 'wss://gw.example' })).map((i) => i.path)).toEqual(['agents.list[1].runtime.openclaw.tokenSecret']);
  });

  it('maps the session key to the gateway’s agent in external mode only', () => {
    expect(gatewaySessionKey('agent:fran:telegram:direct:42', 'fran', { gatewayAgent: 'main' })).toBe('agent:main:telegram:direct:42');
    expect(gatewaySessionKey('agent:fran:telegram:direct:42', 'fran', undefined)).toBe('agent:fran:telegram:direct:42');
  });
});

describe('the device identity', () => {
  it('is made once (0600), kept, and signs OpenClaw’s v3 payload with the key its id names', () => {
    const file = join(tempDir('cf-device-'), 'dev', 'device-key.pem');
    const a = loadOrCreateDeviceIdentity(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadOrCreateDeviceIdentity(file).deviceId).toBe(a.deviceId);
    const payload = deviceAuthPayload(a.deviceId, {
      clientId: 'gateway-client',
      clientMode: 'backend',
      role: 'operator',
      scopes: ['operator.read', 'operator.write'],
      signedAtMs: 1,
      token: 't',
      nonce: 'n',
      platform: 'Linux',
    });
    expect(payload).toBe(`v3|${a.deviceId}|gateway-client|backend|operator|operator.read,operator.write|1|t|n|linux|`);
    const raw = Buffer.from(a.publicKey, 'base64url');
    const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
    expect(verify(null, Buffer.from(payload), key, Buffer.from(a.sign(payload), 'base64url'))).toBe(true);
  });
});

describe('the bridge against an operator’s gateway (a fake, hostile where it can be)', () => {
  let gw: FakeGateway | undefined;
  let conn: ExternalGateway | undefined;
  afterEach(async () => {
    await conn?.stop();
    await gw?.close();
    conn = gw = undefined;
  });

  const connection = (token: string, warnings: (string | undefined)[] = [], url = gw!.url) => {
    const log = memoryLogger();
    conn = new ExternalGateway({
      url,
      token,
      tokenName: 'OPENCLAW_GATEWAY_TOKEN',
      howToSet: 'clawfleet secrets set OPENCLAW_GATEWAY_TOKEN --agent fran',
      device: loadOrCreateDeviceIdentity(join(tempDir('cf-device-'), 'k.pem')),
      clientVersion: 'test',
      log,
      onWarning: (w) => warnings.push(w),
    });
    return { conn, log };
  };

  const until = async (what: string, probe: () => boolean) => {
    // An event, awaited with a generous limit (300 × 20 ms was a guess a busy machine could lose).
    for (const deadline = Date.now() + 30_000; !probe() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    if (!probe()) throw new Error(`timed out waiting for ${what}`);
  };

  it('waits for pairing approval, saying the exact command, and connects once the device is approved', async () => {
    gw = await startFakeGateway({ token: TOKEN });
    const warnings: (string | undefined)[] = [];
    const { conn } = connection(TOKEN, warnings);
    const started = conn.start();
    await until('a pairing request', () => gw!.pending.length > 0);
    await until('the warning', () => warnings.some((w) => w?.includes('openclaw devices approve req-1')));
    expect(conn.warning()).toMatch(
      /^waiting for pairing approval of this agent's device [0-9a-f]{12}… at ws:\/\/127\.0\.0\.1:\d+: run `openclaw devices approve req-1` on the gateway$/,
    );
    expect(conn.current()).toBeUndefined();
    gw.paired.add((conn as unknown as { opts: { device: { deviceId: string } } }).opts.device.deviceId);
    const client = await started;
    expect(client.server.version).toBe('fake-2026.9.6');
    expect(conn.warning()).toBeUndefined();
    expect(warnings.at(-1)).toBeUndefined();
    expect(gw.badSignatures).toBe(0);
  });

  it('says a wrong token is refused, names the value to set, never shows the token, and keeps waiting instead of exiting', async () => {
    gw = await startFakeGateway({ token: TOKEN });
    const wrong = 'wrong-token-value-5555';
    const { conn, log } = connection(wrong);
    const started = conn.start();
    started.catch(() => {});
    await until('the refusal', () => conn.warning()?.includes('AUTH_TOKEN_MISMATCH') === true);
    expect(conn.warning()).toMatch(
      /refused the token \(AUTH_TOKEN_MISMATCH\): OPENCLAW_GATEWAY_TOKEN in the agent's secret must be the gateway's gateway.auth.token/,
    );
    expect(JSON.stringify(log.lines)).not.toContain(wrong);
    expect(conn.warning()).not.toContain(wrong);
    await conn.stop();
    await expect(started).rejects.toMatchObject({ code: 'STOPPED_WAITING_FOR_GATEWAY' });
  });

  it('refuses a wss:// gateway whose certificate does not verify, before any request (so before the token) is sent', async () => {
    const dir = tempDir('cf-tls-');
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ],
      { stdio: 'ignore' },
    );
    const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) });
    let requests = 0;
    server.on('request', (_req, res) => {
      requests++;
      res.end();
    });
    server.on('upgrade', (_req, socket) => {
      requests++;
      socket.destroy();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { conn } = connection(TOKEN, [], `wss://127.0.0.1:${(server.address() as { port: number }).port}`);
      conn.start().catch(() => {});
      await until('the TLS refusal', () => /certificate/i.test(conn.warning() ?? ''));
      expect(conn.current()).toBeUndefined();
      expect(requests).toBe(0);
    } finally {
      await conn?.stop();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  async function connectedBridge(): Promise<{ deps: BridgeDeps; sent: OutboundEnvelope[] }> {
    gw = await startFakeGateway({ token: TOKEN });
    const { conn } = connection(TOKEN);
    gw.paired.add((conn as unknown as { opts: { device: { deviceId: string } } }).opts.device.deviceId);
    await conn.start();
    const sent: OutboundEnvelope[] = [];
    const deps: BridgeDeps = {
      agentId: 'fran',
      outbox: { send: async (e) => void sent.push(e) },
      clock: { now: () => Date.now() },
      log: memoryLogger(),
      journal: new AnswerJournal(tempDir('cf-ws-')),
      gateway: (signal) => conn.connected(signal),
      turnTimeoutMs: 10_000,
      external: { gatewayAgent: 'main' },
    };
    return { deps, sent };
  }

  const request = (inboundId: string, input: string): TurnRequest => ({
    inboundId,
    sessionKey: 'agent:fran:telegram:direct:42',
    isolated: false,
    input,
    answer: { kind: 'reply', sessionKey: 'agent:fran:telegram:direct:42' },
    quiet: [],
  });

  it('takes only its own session’s answer: one sent for another session key, and forged frames, are not believed', async () => {
    const { deps, sent } = await connectedBridge();
    gw!.onChat((run) => {
      run.raw('not json at all');
      run.raw(JSON.stringify({ type: 'res', id: 'nobody-asked', ok: true, payload: {} }));
      run.emit({
        sessionKey: 'agent:main:telegram:direct:999',
        state: 'final',
        message: { role: 'assistant', content: [{ type: 'text', text: 'FORGED for another chat' }] },
      });
      run.finish(`echo: ${run.message}`);
    });
    expect(await bridgeTurn(request('tg.1', 'hello'), deps, new AbortController().signal)).toBe('replied');
    expect(sent.filter((e) => e.kind === 'reply').map((e) => (e as { text: string }).text)).toEqual(['echo: hello']);
    expect(sent.find((e) => e.kind === 'reply')).toMatchObject({ sessionKey: 'agent:fran:telegram:direct:42', inReplyTo: 'tg.1' });
  });

  it('drops a connection that sends a frame over the limit, reconnects, and takes the run’s answer from the history under the same key', async () => {
    const { deps, sent } = await connectedBridge();
    const keys: string[] = [];
    gw!.onChat((run) => {
      keys.push(run.idempotencyKey);
      // The frame kills the connection; the run finishes in the gateway meanwhile, unseen.
      run.raw(JSON.stringify({ type: 'event', event: 'chat', payload: { pad: 'x'.repeat(EXTERNAL_MAX_FRAME_BYTES + 1) } }));
      setTimeout(() => run.finish('answer after the drop'), 50);
    });
    expect(await bridgeTurn(request('tg.2', 'big'), deps, new AbortController().signal)).toBe('replied');
    expect(gw!.connects).toBe(2);
    // One run: the repeated key was answered "ok" and the answer read back, not asked again.
    expect(keys).toEqual(['tg.2']);
    expect(sent.filter((e) => e.kind === 'reply').map((e) => (e as { text: string }).text)).toEqual(['answer after the drop']);
  });
});
