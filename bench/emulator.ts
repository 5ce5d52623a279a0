// The emulator for benchmarks: the one at AWS_ENDPOINT_URL, or MiniStack from the test
// harness's venv started on a free port (run `npm test` once to install it).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
}

export async function emulator(): Promise<{ endpoint: string; proc?: ChildProcess }> {
  if (process.env.AWS_ENDPOINT_URL) return { endpoint: process.env.AWS_ENDPOINT_URL };
  return startMinistack(mkdtempSync(join(tmpdir(), 'cf-bench-emu-')));
}

/**
 * MiniStack from the harness's venv on a free port, in a process group of its own (kill
 * `-proc.pid` to stop it), its state in `tmp` and `env` added (AUTH, …); resolves once it
 * answers its health check.
 */
export async function startMinistack(tmp: string, env: Record<string, string> = {}): Promise<{ endpoint: string; proc: ChildProcess }> {
  const python = join(root, '.cache/ministack-venv/bin/python');
  if (!existsSync(python)) throw new Error('MiniStack is not installed: run `npm test` once, or set AWS_ENDPOINT_URL');
  const port = await freePort();
  const proc = spawn(python, ['-m', 'ministack'], {
    env: {
      PATH: process.env.PATH,
      GATEWAY_PORT: String(port),
      BIND_HOST: '127.0.0.1',
      MINISTACK_HOST: '127.0.0.1',
      ...env,
      PERSIST_STATE: '0',
      S3_PERSIST: '0',
      TMPDIR: tmp,
      STATE_DIR: tmp,
      S3_DATA_DIR: tmp,
    },
    stdio: 'ignore',
    detached: true,
  });
  const endpoint = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${endpoint}/_ministack/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { endpoint, proc };
    await new Promise((r) => setTimeout(r, 100));
  }
  // Not left running behind the error: it was started detached, in a group of its own.
  process.kill(-proc.pid!, 'SIGTERM');
  throw new Error(`MiniStack did not answer ${endpoint}/_ministack/health within 30 s`);
}
