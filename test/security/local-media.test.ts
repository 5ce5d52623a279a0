// The local runtime channel's media route (#16) is the local stand-in for a task role's S3
// grants: a runtime reads only its own in/ and out/ files and writes only its own out/ files,
// whatever key it names; without its token nothing is read. Driven through the runtime's own
// client (HttpRuntimeMedia) and raw requests.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalControlPlane } from '../../local/sqlite-control-plane.ts';
import { createLocalServer, type LocalServer } from '../../local/server.ts';
import { StorageWatch } from '../../local/storage-watch.ts';
import { HttpRuntimeMedia } from '../../shared/adapters/local/http-runtime-media.ts';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import { InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { rawRequest } from '../support/raw-http.ts';

const TOKENS: Record<string, string> = { alpha: 'a'.repeat(48), beta: 'b'.repeat(48) };
const store = new InMemoryMediaStore();
let server: LocalServer;
let url: string;
let cp: LocalControlPlane;
const DASHBOARD = 'd'.repeat(64);

beforeAll(async () => {
  const config = parseConfig({
    fleet: 'surface',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'alpha', default: true }, { id: 'beta' }] },
    models: { providers: { openai: { api: 'openai-completions' } } },
  });
  const log = memoryLogger();
  cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new InMemorySecretStore(), systemClock, log, { media: store });
  server = createLocalServer({
    cp,
    log,
    storage: new StorageWatch(log, systemClock),
    adminToken: 'c'.repeat(64),
    dashboardToken: DASHBOARD,
    agentOfToken: (token) => Object.entries(TOKENS).find(([, t]) => t === token)?.[0],
    agents: () => [],
    status: () => ({ fleet: 'surface', where: 'local (test)', agents: [] }),
    act: async () => 'running',
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await store.put('agents/alpha/in/tg.a.1/photo.jpg', Buffer.from('alpha photo'), 'image/jpeg');
  await store.put('agents/beta/in/tg.b.1/photo.jpg', Buffer.from('beta photo'), 'image/jpeg');
  await store.put('agents/beta/out/r/report.pdf', Buffer.from('beta report'), 'application/pdf');
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const raw = (method: string, path: string, headers: Record<string, string> = {}, body?: string) => rawRequest(`${url}${path}`, method, headers, body);

describe('a runtime’s media, locally', () => {
  const alpha = () => new HttpRuntimeMedia(url, TOKENS.alpha!);

  it('reads its own in/ files and writes and reads back its own out/ files', async () => {
    expect(await alpha().get('agents/alpha/in/tg.a.1/photo.jpg')).toEqual({ bytes: Buffer.from('alpha photo'), mimeType: 'image/jpeg' });
    await alpha().put('agents/alpha/out/r1/chart.png', Buffer.from('png'), 'image/png');
    expect(store.objects.get('agents/alpha/out/r1/chart.png')).toMatchObject({ mimeType: 'image/png' });
    expect(await alpha().get('agents/alpha/out/r1/chart.png')).toMatchObject({ mimeType: 'image/png' });
    expect(await alpha().get('agents/alpha/in/tg.a.9/gone.jpg')).toBeUndefined();
  });

  it.each([
    ['another agent’s in/ file', 'agents/beta/in/tg.b.1/photo.jpg'],
    ['another agent’s out/ file', 'agents/beta/out/r/report.pdf'],
    ['a key that climbs out', 'agents/alpha/in/../../beta/in/tg.b.1/photo.jpg'],
    ['a key outside every prefix', 'control/telegram'],
  ])('refuses to read %s', async (_what, key) => {
    await expect(alpha().get(key)).rejects.toThrow(/403 .*is not under this runtime's own in\/ or out\/ prefix/);
  });

  it.each([
    ['its own in/ prefix (only the control plane writes there)', 'agents/alpha/in/tg.a.1/photo.jpg'],
    ['another agent’s out/ prefix', 'agents/beta/out/r/report.pdf'],
  ])('refuses to write %s, leaving it as it was', async (_what, key) => {
    const before = store.objects.get(key);
    await expect(alpha().put(key, Buffer.from('forged'), 'image/jpeg')).rejects.toThrow(/403 .*is not under this runtime's own out\/ prefix/);
    expect(store.objects.get(key)).toBe(before);
  });

  it('refuses a file envelope from its runtime naming another agent’s out/ key into its own outbox DLQ, sending nothing', async () => {
    const forged = {
      v: PROTOCOL_VERSION,
      kind: 'file',
      id: 'tg.a.1.req.forged',
      agentId: 'alpha',
      sessionKey: 'agent:alpha:main',
      inboundId: 'tg.a.1',
      ts: 1,
      key: 'agents/beta/out/r/report.pdf',
      fileKind: 'document',
      fileName: 'report.pdf',
      mimeType: 'application/pdf',
      size: 11,
    };
    const lines = cp.chat.since('alpha', 0).messages.length;
    const res = await raw(
      'POST',
      '/runtime/outbox',
      { authorization: `Bearer ${TOKENS.alpha}`, 'content-type': 'application/json' },
      JSON.stringify({ envelope: forged }),
    );
    expect(res.status).toBe(200);
    expect(cp.dlq('alpha').list()).toEqual([
      expect.objectContaining({
        reason: expect.stringMatching(/^MEDIA_NOT_OWNED: key "agents\/beta\/out\/r\/report\.pdf" is not under the sender's own prefix agents\/alpha\/out\//),
      }),
    ]);
    expect(cp.chat.since('alpha', 0).messages).toHaveLength(lines);
  });

  it('answers nothing without a runtime token', async () => {
    const res = await raw('GET', '/runtime/media?key=agents/alpha/in/tg.a.1/photo.jpg');
    expect(res.status).toBe(401);
    expect(res.body).not.toContain('alpha photo');
    expect((await raw('GET', '/runtime/media?key=agents/alpha/in/tg.a.1/photo.jpg', { authorization: 'Bearer nope' })).status).toBe(401);
  });
});

describe('files in the dashboard’s chat box', () => {
  const signedIn = { authorization: `Bearer ${DASHBOARD}` };

  it('takes an uploaded photo into the agent’s own in/ prefix and queues a message naming it, shown as a line with the file', async () => {
    const res = await raw('POST', '/api/chat/alpha/files?name=cat%20pic.jpg&caption=look', { ...signedIn, 'content-type': 'image/jpeg' }, 'JPEGDATA');
    expect(res.status).toBe(202);
    const { envelopeId } = JSON.parse(res.body) as { envelopeId: string };
    const [queued] = await cp.inbox('alpha').receive(0);
    const envelope = JSON.parse(queued!.body);
    expect(envelope).toMatchObject({
      id: envelopeId,
      kind: 'message',
      text: 'look',
      media: [{ kind: 'photo', mimeType: 'image/jpeg', size: 8, fileName: 'cat pic.jpg' }],
    });
    expect(envelope.media[0].key).toBe(`agents/alpha/in/${envelopeId}/cat_pic.jpg`);
    expect(Buffer.from(store.objects.get(envelope.media[0].key)!.bytes).toString()).toBe('JPEGDATA');
    expect(cp.chat.since('alpha', 0).messages.at(-1)).toMatchObject({
      role: 'user',
      text: 'look',
      file: { key: envelope.media[0].key, name: 'cat pic.jpg', mimeType: 'image/jpeg', size: 8 },
    });
    // Shown back inline, as a picture only.
    const back = await new Promise<{ status: number; headers: Record<string, unknown> }>((resolve) =>
      request(`${url}/api/chat/alpha/files?key=${encodeURIComponent(envelope.media[0].key)}`, { headers: signedIn }, (r) => {
        r.resume();
        resolve({ status: r.statusCode!, headers: r.headers });
      }).end(),
    );
    expect(back).toMatchObject({
      status: 200,
      headers: { 'content-type': 'image/jpeg', 'x-content-type-options': 'nosniff', 'content-disposition': 'inline; filename="cat_pic.jpg"' },
    });
  });

  it('serves any other file as a download the browser will not run (HTML and SVG included)', async () => {
    for (const [name, type] of [
      ['page.html', 'text/html'],
      ['x.svg', 'image/svg+xml'],
    ] as const) {
      await store.put(`agents/alpha/out/r/${name}`, Buffer.from('<script>alert(1)</script>'), type);
      const res = await new Promise<Record<string, unknown>>((resolve) =>
        request(`${url}/api/chat/alpha/files?key=agents/alpha/out/r/${name}`, { headers: signedIn }, (r) => (r.resume(), resolve(r.headers))).end(),
      );
      expect(res).toMatchObject({
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${name}"`,
        'content-security-policy': "default-src 'none'; sandbox",
      });
    }
  });

  it('shows only that agent’s files, and nothing to a visitor who is not signed in', async () => {
    expect((await raw('GET', '/api/chat/alpha/files?key=agents/beta/in/tg.b.1/photo.jpg', signedIn)).status).toBe(403);
    const anon = await raw('GET', '/api/chat/alpha/files?key=agents/alpha/in/tg.a.1/photo.jpg');
    expect(anon.status).toBe(401);
    expect(anon.body).not.toContain('alpha photo');
    expect((await raw('POST', '/api/chat/alpha/files?name=x.txt', { 'content-type': 'text/plain' }, 'x')).status).toBe(401);
  });

  it('refuses a file over Telegram’s 20 MiB with the limit as a person reads it, storing and queuing nothing', async () => {
    const objects = store.objects.size;
    const lines = cp.chat.since('alpha', 0).messages.length;
    const tooBig = Buffer.alloc(20 * 1024 * 1024 + 1, 0x61);
    const res = await rawRequest(`${url}/api/chat/alpha/files?name=big.bin`, 'POST', { ...signedIn, 'content-type': 'application/octet-stream' }, tooBig);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ error: 'file larger than 20 MiB', code: 'MEDIA_TOO_LARGE' });
    expect(store.objects.size).toBe(objects);
    expect(cp.chat.since('alpha', 0).messages).toHaveLength(lines);
    expect(await cp.inbox('alpha').receive(0)).toEqual([]);
  });

  it('refuses an upload from another site’s page, an empty one and one without a name', async () => {
    const cross = await raw(
      'POST',
      '/api/chat/alpha/files?name=x.txt',
      { ...signedIn, 'content-type': 'text/plain', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      'x',
    );
    expect(cross.status).toBe(403);
    expect((await raw('POST', '/api/chat/alpha/files?name=x.txt', { ...signedIn, 'content-type': 'text/plain' }, '')).status).toBe(400);
    expect((await raw('POST', '/api/chat/alpha/files', { ...signedIn, 'content-type': 'text/plain' }, 'x')).status).toBe(400);
  });

  it('shows a file the agent sends as a chat line linking to its own out/ key', async () => {
    await store.put('agents/alpha/out/r9/chart.png', Buffer.from('png'), 'image/png');
    await cp.chat.sendFile(
      { channel: 'local', chatId: 'alpha' },
      { kind: 'photo', fileName: 'chart.png', mimeType: 'image/png', bytes: Buffer.from('png'), caption: 'the chart', key: 'agents/alpha/out/r9/chart.png' },
    );
    expect(cp.chat.since('alpha', 0).messages.at(-1)).toMatchObject({
      role: 'agent',
      text: 'the chart',
      file: { key: 'agents/alpha/out/r9/chart.png', name: 'chart.png', size: 3 },
    });
  });
});
