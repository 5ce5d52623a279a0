// The browser's only way out: an HTTP proxy on 127.0.0.1 that Chromium is started behind
// (--proxy-server, loopback not bypassed), so every request the page makes — navigations,
// redirects, subresources, downloads, XHR/fetch, WebSockets — is vetted by web_fetch's
// address guard (net/fetch-guard.ts) and connected to the very address that was checked.
// CONNECT carries https and wss; absolute-form requests and upgrades carry http and ws.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { ClawfleetError } from '../../../shared/errors.ts';
import { pinnedLookup, systemResolve, vetUrl, type FetchPolicy, type Resolve, type VettedHost } from '../net/fetch-guard.ts';

export interface GuardProxy {
  /** http://127.0.0.1:<port> */
  url: string;
  /** Refusals so far, newest last (the browser tool tells the model about them). */
  refusals: string[];
  close(): Promise<void>;
}

const MAX_REFUSALS = 50;
/** Marks the proxy's own refusal of a plain-http request (https refusals fail the tunnel instead). */
export const REFUSED_HEADER = 'x-clawfleet-refused';

export async function startGuardProxy(policy: FetchPolicy, resolve: Resolve = systemResolve): Promise<GuardProxy> {
  const refusals: string[] = [];
  const sockets = new Set<Socket>();
  const refuse = (err: unknown) => {
    const why = err instanceof ClawfleetError ? err.message : `refused: ${(err as Error).message}`;
    refusals.push(why);
    if (refusals.length > MAX_REFUSALS) refusals.shift();
    return why;
  };
  const vet = (url: URL): Promise<VettedHost> => vetUrl(url, policy, resolve);
  const dial = (vetted: VettedHost, port: number) => connect({ host: vetted.hostname, port, lookup: pinnedLookup(vetted) });

  const server: Server = createServer((req, res) => {
    // A plain-http request in absolute form ("GET http://host/path").
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void res.writeHead(400).end('not a proxy request');
    }
    vet(url).then(
      (vetted) => {
        const upstream = httpRequest(
          {
            host: vetted.hostname,
            port: url.port || 80,
            path: `${url.pathname}${url.search}`,
            method: req.method,
            headers: withoutProxyHeaders(req),
            lookup: pinnedLookup(vetted),
          },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
        req.pipe(upstream);
      },
      (err) => res.writeHead(403, { 'content-type': 'text/plain', [REFUSED_HEADER]: '1' }).end(refuse(err)),
    );
  });

  // https and wss: a tunnel to host:port, opened only to a vetted address.
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    const [host, portText] = splitHostPort(req.url ?? '');
    const port = Number(portText);
    let url: URL;
    try {
      if (!host || !Number.isInteger(port) || port < 1 || port > 65_535) throw new Error('bad CONNECT target');
      url = new URL(`https://${host}:${port}/`);
    } catch {
      return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    }
    vet(url).then(
      (vetted) => {
        const upstream = dial(vetted, port);
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.once('connect', () => {
          client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
      },
      (err) => client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${refuse(err)}`),
    );
  });

  // ws: an upgrade request in absolute form, replayed to the vetted address.
  server.on('upgrade', (req: IncomingMessage, client: Socket, head: Buffer) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      return void client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    }
    vet(new URL(url.href.replace(/^ws/, 'http'))).then(
      (vetted) => {
        const upstream = dial(vetted, Number(url.port) || 80);
        sockets.add(upstream);
        upstream.on('close', () => sockets.delete(upstream));
        upstream.once('connect', () => {
          const headers = Object.entries(withoutProxyHeaders(req)).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => `${k}: ${x}`) : [`${k}: ${v}`]));
          upstream.write(`${req.method} ${url.pathname}${url.search} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
          if (head.length > 0) upstream.write(head);
          upstream.pipe(client);
          client.pipe(upstream);
        });
        upstream.on('error', () => client.destroy());
        client.on('close', () => upstream.destroy());
      },
      (err) => client.end(`HTTP/1.1 403 Forbidden\r\n\r\n${refuse(err)}`),
    );
  });

  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', done);
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    refusals,
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

function splitHostPort(target: string): [string, string] {
  const bracket = /^\[([^\]]+)\]:(\d+)$/.exec(target);
  if (bracket) return [`[${bracket[1]}]`, bracket[2]!];
  const i = target.lastIndexOf(':');
  return i < 0 ? [target, '443'] : [target.slice(0, i), target.slice(i + 1)];
}

function withoutProxyHeaders(req: IncomingMessage): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k === 'proxy-connection' || k === 'proxy-authorization') continue;
    out[k] = v;
  }
  return out;
}
