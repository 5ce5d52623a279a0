// What the runtime benchmarks start a runtime with: the image's bundle, built as the
// Dockerfile builds it, and a stand-in for the local control plane's runtime channel that
// never has work, so a runtime stays idle after `ready`.
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** The runtime channel reduced to "nothing to do": a receive waits as long as asked and returns no message. */
export async function idleControlChannel(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = () => res.writeHead(200, { 'content-type': 'application/json' }).end(req.url === '/runtime/receive' ? '{"messages":[]}' : '{}');
      if (req.url !== '/runtime/receive') return reply();
      let waitSeconds = 1;
      try {
        waitSeconds = Number((JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { waitSeconds?: number }).waitSeconds ?? 1);
      } catch {
        // a malformed body waits the default
      }
      const timer = setTimeout(reply, waitSeconds * 1000);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Builds the image's bundle into `dir`/dist, with the workspace template at `dir`/templates where the bundle looks for it. */
export function buildRuntimeBundle(repo: string, dir: string): string {
  execFileSync(process.execPath, [join(repo, 'runtime-image/build.mjs'), join(dir, 'dist')], { stdio: ['ignore', 'ignore', 'inherit'] });
  cpSync(join(repo, 'runtime-image/templates'), join(dir, 'templates'), { recursive: true });
  return join(dir, 'dist', 'main.mjs');
}
