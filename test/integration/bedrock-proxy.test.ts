// pi-ai's Bedrock client in the runtime bundle with the switches a deployment behind a proxy
// sets: AWS_BEDROCK_FORCE_HTTP1, and HTTP(S)_PROXY (pi-ai then sends through proxy-agent). Both
// load a CommonJS package with a dynamic import(), which the bundle once turned into a chunk
// with only a default export: "NodeHttpHandler is not a constructor", thrown where nothing
// caught it, and the runtime process died on its first Bedrock call (runtime-image/build.mjs,
// cjsNamedExports). Each runtime here answers through the fake Bedrock (through a forward
// proxy this test runs, for the proxy case), and keeps running; a proxy that refuses the call
// makes a failed turn, and the same runtime answers the next message.
import { request as httpRequest, createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { awsTestEnv } from '../support/aws.ts';
import { startFakeBedrock, type FakeBedrock } from '../support/fake-bedrock.ts';
import { provisionFleet, type ProvisionedFleet } from '../support/provision.ts';
import { askOnQueues, emulatorRuntimeEnv } from '../support/queue-turn.ts';
import { startRuntime, type RuntimeProcess } from '../support/runtime-process.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { franOnBedrock } from '../support/bedrock-fleet.ts';

const BUNDLE = join(process.cwd(), 'runtime-image', 'dist', 'main.mjs');

const aws = awsTestEnv();
const sqs = new SQSClient(aws);
let bedrock: FakeBedrock;
let fleet: ProvisionedFleet;
let env: Record<string, string>;
let dir: string;
let runtime: RuntimeProcess | undefined;

/** A plain HTTP forward proxy (absolute-URI requests, as proxy-agent sends for http:// targets): relays each, or refuses all with 502. */
interface ForwardProxy {
  url: string;
  seen: string[];
  refuse: boolean;
  close(): Promise<void>;
}
async function startForwardProxy(): Promise<ForwardProxy> {
  const proxy: Omit<ForwardProxy, 'url' | 'close'> = { seen: [], refuse: false };
  const server: Server = createServer((req, res) => {
    proxy.seen.push(`${req.method} ${req.url}`);
    if (proxy.refuse || !req.url?.startsWith('http://')) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('proxy refuses');
      return;
    }
    const upstream = httpRequest(req.url, { method: req.method, headers: req.headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    ...proxy,
    get seen() {
      return proxy.seen;
    },
    get refuse() {
      return proxy.refuse;
    },
    set refuse(v: boolean) {
      proxy.refuse = v;
    },
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

beforeAll(async () => {
  dir = tempDir('cf-bedrock-proxy-');
  // HTTP/1.1: both switches make the client speak it.
  bedrock = await startFakeBedrock();
  const config = franOnBedrock('bedproxy', bedrock.baseUrl);
  fleet = await provisionFleet(aws, config, { telegram: {}, agents: { fran: {} } });
  env = emulatorRuntimeEnv(aws, config, fleet.queues.fran!, 'fran', { CLAWFLEET_HEALTH_FILE: join(dir, 'alive') });
}, 90_000);

afterEach(async () => {
  // SIGTERM: the runtime drains and ends its long poll. A SIGKILLed one's poll, still open at
  // the emulator, would take the next case's message for its visibility timeout.
  await runtime?.kill('SIGTERM');
  runtime = undefined;
});

afterAll(async () => {
  await bedrock?.close();
});

/** fran's runtime from the bundle with `extra` in its environment, its workspace and state fresh. */
async function startFran(name: string, extra: Record<string, string>): Promise<RuntimeProcess> {
  const r = startRuntime({ ...env, CLAWFLEET_WORKSPACE: join(dir, `${name}-ws`), CLAWFLEET_RUNTIME_STATE: join(dir, `${name}-state`), ...extra }, [
    process.execPath,
    '--enable-source-maps',
    BUNDLE,
  ]);
  await r.waitFor((l) => l.msg === 'ready', 60_000);
  return r;
}

/** Asserts the runtime is still running (a dead process has an exit code). */
function alive(r: RuntimeProcess): void {
  expect(r.child.exitCode, r.output().slice(-3000)).toBeNull();
  expect(r.child.signalCode).toBeNull();
}

describe('Bedrock in the runtime bundle behind a proxy', () => {
  it('answers with AWS_BEDROCK_FORCE_HTTP1 set (HTTP/1.1 through @smithy/node-http-handler)', async () => {
    runtime = await startFran('http1', { AWS_BEDROCK_FORCE_HTTP1: '1' });
    const before = bedrock.calls.length;
    const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'bedproxy.http1', 'hello over HTTP/1.1', 30_000);
    expect(reply, runtime.output().slice(-3000)).toMatchObject({ inReplyTo: 'bedproxy.http1', text: 'echo' });
    expect(bedrock.calls.length).toBe(before + 1);
    alive(runtime);
  });

  it('answers through HTTP_PROXY and HTTPS_PROXY; a proxy that refuses makes a failed turn, and the next message is answered', async () => {
    const proxy = await startForwardProxy();
    try {
      runtime = await startFran('proxy', { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url });
      const before = bedrock.calls.length;
      const reply = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'bedproxy.proxy', 'hello through the proxy', 30_000);
      expect(reply, `${proxy.seen.join('\n')}\n${runtime.output().slice(-3000)}`).toMatchObject({ inReplyTo: 'bedproxy.proxy', text: 'echo' });
      // The call went through the proxy, to the fake's ConverseStream.
      expect(bedrock.calls.length).toBe(before + 1);
      expect(proxy.seen).toContainEqual(expect.stringMatching(new RegExp(`^POST ${bedrock.baseUrl}/model/.+/converse-stream$`)));

      proxy.refuse = true;
      const refused = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'bedproxy.refused', 'the proxy says no', 60_000);
      // A failed turn: answered (the runtime's words for a failed model call), not a dead process.
      expect(refused, runtime.output().slice(-3000)).toMatchObject({ inReplyTo: 'bedproxy.refused' });
      expect(refused!.text).not.toBe('echo');
      expect(bedrock.calls.length).toBe(before + 1);
      alive(runtime);

      proxy.refuse = false;
      const again = await askOnQueues(sqs, fleet.queues.fran!, 'fran', 'bedproxy.again', 'and now?', 30_000);
      expect(again, runtime.output().slice(-3000)).toMatchObject({ inReplyTo: 'bedproxy.again', text: 'echo' });
      alive(runtime);
    } finally {
      await proxy.close();
    }
  });
});
