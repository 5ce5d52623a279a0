// The Retry-After a provider's failed response asks for: parsed in its three forms, and
// noted for the model call that made the request — never for another call in parallel.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noteRetryAfter, retryAfterSeconds, type ResponseNotes } from '../../runtime-image/src/model/retry-after.ts';

const NOW = Date.parse('2026-11-29T12:00:00Z');
const h = (init: Record<string, string>) => new Headers(init);

describe('retryAfterSeconds', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    expect(retryAfterSeconds(h({ 'retry-after': '30' }), NOW)).toBe(30);
    expect(retryAfterSeconds(h({ 'retry-after': '1.5' }), NOW)).toBe(1.5);
    expect(retryAfterSeconds(h({ 'retry-after-ms': '250', 'retry-after': '30' }), NOW)).toBe(0.25);
    expect(retryAfterSeconds(h({ 'retry-after': 'Sun, 29 Nov 2026 12:00:20 GMT' }), NOW)).toBe(20);
    expect(retryAfterSeconds(h({ 'retry-after': 'Sun, 29 Nov 2026 11:00:00 GMT' }), NOW)).toBe(0);
  });

  it('is undefined when the provider did not say, or said nonsense', () => {
    expect(retryAfterSeconds(h({}), NOW)).toBeUndefined();
    expect(retryAfterSeconds(h({ 'retry-after': 'soon' }), NOW)).toBeUndefined();
    expect(retryAfterSeconds(h({ 'retry-after': '-5' }), NOW)).toBeUndefined();
    // An empty or odd retry-after-ms does not hide a good retry-after.
    expect(retryAfterSeconds(h({ 'retry-after-ms': '', 'retry-after': '30' }), NOW)).toBe(30);
    expect(retryAfterSeconds(h({ 'retry-after-ms': 'soon', 'retry-after': '30' }), NOW)).toBe(30);
  });
});

describe('noteRetryAfter', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    // /429/<seconds> answers 429 with that retry-after after a short delay; /ok answers 200.
    server = createServer((req, res) => {
      const [, kind, seconds] = req.url!.split('/');
      setTimeout(() => {
        if (kind === '429') res.writeHead(429, { 'retry-after': seconds! }).end('slow down');
        else res.writeHead(200).end('fine');
      }, 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('notes each failed response for its own call, with calls in parallel', async () => {
    const a: ResponseNotes = {};
    const b: ResponseNotes = {};
    const c: ResponseNotes = {};
    await Promise.all([
      noteRetryAfter(a, () => fetch(`${base}/429/7`).then((r) => r.text())),
      noteRetryAfter(b, () => fetch(`${base}/429/2`).then((r) => r.text())),
      noteRetryAfter(c, () => fetch(`${base}/ok`).then((r) => r.text())),
    ]);
    expect(a.retryAfterSeconds).toBe(7);
    expect(b.retryAfterSeconds).toBe(2);
    expect(c.retryAfterSeconds).toBeUndefined();
  });

  it('leaves fetches outside a model call alone', async () => {
    const res = await fetch(`${base}/429/9`);
    expect(res.status).toBe(429);
    expect(await res.text()).toBe('slow down');
  });
});
