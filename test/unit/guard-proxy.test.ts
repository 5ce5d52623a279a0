// The browser's guard proxy on its own, spoken to as Chromium speaks to it: CONNECT tunnels
// (https, wss), absolute-form requests (http) and upgrades (ws). Refused targets get a 403
// and are never connected to; allowed ones are reached at the address the guard checked,
// not at whatever the system resolver would say.
import { once } from 'node:events';
import { createServer as createHttpServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGuardProxy, type GuardProxy } from '../../runtime-image/src/browser/guard-proxy.ts';
import { fetchPolicy, type Resolve } from '../../runtime-image/src/net/fetch-guard.ts';

let proxy: GuardProxy;
let web: Server;
let webPort: number;
const hits: string[] = [];
// A name only this resolver knows, answering with loopback (an intranet host the config allows).
const resolve: Resolve = async (host) => {
  if (host === 'intranet.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'metadata.test') return [{ address: '169.254.169.254', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
};

beforeAll(async () => {
  web = createHttpServer((req, res) => {
    hits.push(`${req.headers.host} ${req.url}`);
    res.end(`hello from ${req.url}`);
  });
  web.on('upgrade', (req, socket) => {
    hits.push(`upgrade ${req.url}`);
    socket.end('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n');
  });
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', r));
  webPort = (web.address() as AddressInfo).port;
  proxy = await startGuardProxy(fetchPolicy(['intranet.test']), resolve);
});
afterAll(async () => {
  await proxy.close();
  web.closeAllConnections();
  web.close();
});

const proxyPort = () => Number(new URL(proxy.url).port);

/** Sends raw bytes to the proxy and reads what comes back until it closes or `until` matches. */
async function raw(text: string, until = /\r\n\r\n/): Promise<string> {
  const socket = connect(proxyPort(), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(text);
  let got = '';
  socket.on('data', (d) => (got += d.toString()));
  await new Promise<void>((done) => {
    const check = () => (until.test(got) ? done() : undefined);
    socket.on('data', check);
    socket.on('close', () => done());
  });
  socket.destroy();
  return got;
}

describe('the guard proxy', () => {
  it('tunnels CONNECT to an allowed host, connecting to the address the guard resolved', async () => {
    hits.length = 0;
    const got = await raw(
      `CONNECT intranet.test:${webPort} HTTP/1.1\r\nhost: intranet.test:${webPort}\r\n\r\nGET /through-the-tunnel HTTP/1.1\r\nhost: intranet.test\r\nconnection: close\r\n\r\n`,
      /hello from/,
    );
    expect(got).toMatch(/^HTTP\/1.1 200 Connection Established/);
    expect(got).toContain('hello from /through-the-tunnel');
    expect(hits).toEqual([`intranet.test /through-the-tunnel`]);
  });

  it('refuses CONNECT to loopback, private or metadata addresses with a 403, and connects to none of them', async () => {
    hits.length = 0;
    for (const target of [
      `127.0.0.1:${webPort}`,
      `localhost:${webPort}`,
      `[::1]:${webPort}`,
      '169.254.169.254:80',
      `metadata.test:443`,
      '10.1.2.3:443',
      `2130706433:${webPort}`,
    ]) {
      const got = await raw(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
      expect(got, target).toMatch(/^HTTP\/1.1 403 Forbidden\r\n[\s\S]*refused/);
    }
    expect(hits).toEqual([]);
    expect(proxy.refusals.at(-1)).toMatch(/refused https:\/\/127\.0\.0\.1:\d+: the address is 127\.0\.0\.1 \(loopback\)/);
  });

  it('forwards a plain-http request to an allowed host, and marks its refusals of the others', async () => {
    hits.length = 0;
    const get = (url: string) =>
      new Promise<{ status: number; refused?: string; body: string }>((done, fail) => {
        const req = request({ host: '127.0.0.1', port: proxyPort(), path: url, headers: { host: new URL(url).host } }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => done({ status: res.statusCode!, refused: res.headers['x-clawfleet-refused'] as string | undefined, body }));
        });
        req.on('error', fail);
        req.end();
      });
    expect(await get(`http://intranet.test:${webPort}/page`)).toEqual({ status: 200, refused: undefined, body: 'hello from /page' });
    expect(await get(`http://127.0.0.1:${webPort}/secret`)).toMatchObject({ status: 403, refused: '1', body: expect.stringMatching(/^refused /) });
    expect(await get('http://metadata.test/latest/meta-data/')).toMatchObject({ status: 403, body: expect.stringMatching(/169\.254\.169\.254/) });
    expect(hits).toEqual([`intranet.test:${webPort} /page`]);
  });

  it('passes a ws upgrade to an allowed host and refuses one to loopback', async () => {
    hits.length = 0;
    const upgrade = (host: string) =>
      raw(
        `GET ws://${host}/socket HTTP/1.1\r\nhost: ${host}\r\nconnection: upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`,
      );
    expect(await upgrade(`intranet.test:${webPort}`)).toMatch(/^HTTP\/1.1 101 Switching Protocols/);
    expect(await upgrade(`127.0.0.1:${webPort}`)).toMatch(/^HTTP\/1.1 403 Forbidden/);
    expect(hits).toEqual(['upgrade /socket']);
  });
});
