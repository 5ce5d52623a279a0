// The runtime's side of local mode's channel against a plain HTTP server on loopback: what it
// sends, how it fails (the status and the control plane's reason, never the token), a long
// poll ended by its signal, and an answer cut off halfway.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpRuntimeChannel } from '../../shared/adapters/local/http-runtime-channel.ts';

const TOKEN = 'rt-token-0123456789abcdef';
let server: Server | undefined;

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server whose every request goes to `handle`, with the body it got; the channel pointed at it. */
async function channel(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Promise<HttpRuntimeChannel> {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return new HttpRuntimeChannel(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, TOKEN, 45);
}

describe('the local runtime channel', () => {
  it('posts each operation as JSON with its bearer token and reads the answer', async () => {
    const seen: { url?: string; auth?: string; type?: string; body: unknown }[] = [];
    const ch = await channel((req, body, res) => {
      seen.push({ url: req.url, auth: req.headers.authorization, type: req.headers['content-type'], body: JSON.parse(body) });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(req.url === '/runtime/receive' ? JSON.stringify({ messages: [{ body: '{}', receipt: 'r1', receiveCount: 1 }] }) : '{}');
    });
    expect(await ch.receive(5)).toEqual([{ body: '{}', receipt: 'r1', receiveCount: 1 }]);
    await ch.extend('r1', 30);
    await ch.delete('r1');
    await ch.put('raw', 'not an envelope');
    expect(seen).toEqual([
      { url: '/runtime/receive', auth: `Bearer ${TOKEN}`, type: 'application/json', body: { waitSeconds: 5, visibilitySeconds: 45 } },
      { url: '/runtime/extend', auth: `Bearer ${TOKEN}`, type: 'application/json', body: { receipt: 'r1', seconds: 30 } },
      { url: '/runtime/delete', auth: `Bearer ${TOKEN}`, type: 'application/json', body: { receipt: 'r1' } },
      { url: '/runtime/dead-letter', auth: `Bearer ${TOKEN}`, type: 'application/json', body: { body: 'raw', reason: 'not an envelope' } },
    ]);
  });

  it('fails a refused call with the status and the reason, never the token', async () => {
    const ch = await channel((_req, _body, res) => res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unknown runtime token"}'));
    const err = await ch.receive(1).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe('control plane receive failed: 401 unknown runtime token');
    expect((err as Error).message).not.toContain(TOKEN);
  });

  it('ends a waiting long poll with no messages when its signal aborts', async () => {
    let waiting!: () => void;
    let closed!: () => void;
    const serverWaits = new Promise<void>((r) => (waiting = r));
    const serverSawClose = new Promise<void>((r) => (closed = r));
    const ch = await channel((_req, _body, res) => {
      res.once('close', closed); // never answers
      waiting();
    });
    const abort = new AbortController();
    const polling = ch.receive(20, abort.signal);
    await serverWaits;
    abort.abort();
    expect(await polling).toEqual([]);
    // The connection is gone too: the local server hands back what it had taken for a poll that left.
    await serverSawClose;
  });

  it('fails a call whose answer is cut off, rather than taking half of it', async () => {
    const ch = await channel((_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"messages":[');
      setImmediate(() => res.socket?.destroy());
    });
    await expect(ch.receive(1)).rejects.toThrow();
  });
});
