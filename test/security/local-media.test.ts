// The local runtime channel's media route (#16) is the local stand-in for a task role's S3
// grants: a runtime reads only its own in/ and out/ files and writes only its own out/ files,
// whatever key it names; without its token nothing is read. Driven through the runtime's own
// client (HttpRuntimeMedia) and raw requests.
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalControlPlane } from '../../local/control-plane.ts';
import { createLocalServer, type LocalServer } from '../../local/server.ts';
import { StorageWatch } from '../../local/storage-watch.ts';
import { HttpRuntimeMedia } from '../../shared/adapters/local/http-runtime-media.ts';
import { InMemoryMediaStore } from '../../shared/adapters/memory/in-memory-media-store.ts';
import { InMemorySecretStore } from '../../shared/adapters/memory/in-memory-state.ts';
import { openStateDatabase } from '../../shared/adapters/sqlite/sqlite-database.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { memoryLogger } from '../../shared/log.ts';
import { systemClock } from '../../shared/ports.ts';

const TOKENS: Record<string, string> = { alpha: 'a'.repeat(48), beta: 'b'.repeat(48) };
const store = new InMemoryMediaStore();
let server: LocalServer;
let url: string;

beforeAll(async () => {
  const config = parseConfig({
    fleet: 'surface',
    agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512 } }, list: [{ id: 'alpha', default: true }, { id: 'beta' }] },
    models: { providers: { openai: { api: 'openai-completions' } } },
  });
  const log = memoryLogger();
  const cp = new LocalControlPlane(config, openStateDatabase(':memory:'), new InMemorySecretStore(), systemClock, log, { media: store });
  server = createLocalServer({
    cp,
    log,
    storage: new StorageWatch(log, systemClock),
    adminToken: 'c'.repeat(64),
    dashboardToken: 'd'.repeat(64),
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

const raw = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });

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

  it('answers nothing without a runtime token', async () => {
    const res = await raw('GET', '/runtime/media?key=agents/alpha/in/tg.a.1/photo.jpg');
    expect(res.status).toBe(401);
    expect(res.body).not.toContain('alpha photo');
    expect((await raw('GET', '/runtime/media?key=agents/alpha/in/tg.a.1/photo.jpg', { authorization: 'Bearer nope' })).status).toBe(401);
  });
});
