// The Docker Engine API on the local engine's unix socket (DOCKER_HOST=unix://…), for what the
// CLI cannot say: a container created from a full create body (an exec-form health check,
// ulimits, init), as ECS's agent creates it.
import { request } from 'node:http';

function socketPath(): string {
  const host = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  if (!host.startsWith('unix://'))
    throw new Error(`the task runner needs a local engine on a unix socket (it enters the task's network namespace by pid); DOCKER_HOST is ${host}`);
  return host.slice('unix://'.length);
}

/** One API call; a status of 400 or more throws with the engine's message. */
export function engineApi<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      {
        socketPath: socketPath(),
        method,
        path,
        headers: payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {},
        timeout: 120_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 500) >= 400) {
            reject(new Error(`${method} ${path}: HTTP ${res.statusCode} ${text.trim()}`));
            return;
          }
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch {
            resolve(text as T);
          }
        });
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 120 s`)));
    req.end(payload);
  });
}

export interface ContainerState {
  Status: string;
  Running: boolean;
  Pid: number;
  ExitCode: number;
  OOMKilled: boolean;
  Health?: { Status: string; FailingStreak: number; Log: { ExitCode: number; Output: string; Start: string; End: string }[] };
}

export const inspectContainer = (id: string) =>
  engineApi<{ Id: string; State: ContainerState; HostConfig: Record<string, unknown> }>('GET', `/containers/${id}/json`);
