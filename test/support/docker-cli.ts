// The docker CLI against the image tests' engine (DOCKER_HOST, which the image project's
// setup exports): a command's output, or an error that carries the tail of what it said.
import { execFile, spawn } from 'node:child_process';

export interface DockerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `docker …`, whatever its exit code; `input` goes to its stdin. */
export function dockerRun(
  args: string[],
  options: { timeoutMs?: number; input?: string | Buffer; env?: NodeJS.ProcessEnv; bin?: string } = {},
): Promise<DockerRun> {
  return new Promise((done) => {
    const child = execFile(
      options.bin ?? 'docker',
      args,
      { timeout: options.timeoutMs ?? 120_000, maxBuffer: 256 * 1024 * 1024, env: { ...process.env, ...options.env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code as number) : null) : 0;
        done({ code, stdout: String(stdout), stderr: String(stderr) + (err && code === null ? `\n${err.message}` : '') });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs `docker …` and returns its trimmed stdout; a non-zero exit throws with what it said. */
export async function docker(args: string[], options: { timeoutMs?: number; input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const r = await dockerRun(args, options);
  if (r.code !== 0) {
    const said = `${r.stderr}\n${r.stdout}`.trim().split('\n').slice(-30).join('\n');
    throw new Error(`docker ${args.slice(0, 3).join(' ')} … exited ${r.code}:\n${said}`);
  }
  return r.stdout.trim();
}

/** A docker client that builds with BuildKit, and what it needs in its environment for that. */
export interface BuildClient {
  bin: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A client that builds with BuildKit, which the Dockerfile needs (its own
 * `runtime-image/Dockerfile.dockerignore` keeps the context small; the legacy builder reads
 * only the context's .dockerignore): `docker` with the buildx plugin, as a current Docker
 * installs it; else a client from before Docker 23 (Debian's docker.io), whose own builder is
 * BuildKit with DOCKER_BUILDKIT=1. A current client without buildx cannot.
 */
export async function buildClient(): Promise<BuildClient> {
  const tried: string[] = [];
  for (const bin of ['docker', '/usr/bin/docker']) {
    const buildx = await dockerRun(['buildx', 'version'], { bin, timeoutMs: 30_000 });
    if (buildx.code === 0) return { bin, env: {} };
    const version = (await dockerRun(['version', '--format', '{{.Client.Version}}'], { bin, timeoutMs: 30_000 })).stdout.trim();
    if (/^(1\d|2[0-2])\./.test(version)) return { bin, env: { DOCKER_BUILDKIT: '1' } };
    tried.push(`${bin}: ${version || 'missing'}, no buildx`);
  }
  throw new Error(`no docker client here builds with BuildKit (${tried.join('; ')}): install the buildx plugin, or Debian's docker.io`);
}

/**
 * Runs `docker …` streaming its output to `onLine` (a build's steps), resolving with its
 * exit code and the last lines it printed.
 */
export function dockerStream(
  args: string[],
  onLine: (line: string) => void,
  client: BuildClient = { bin: 'docker', env: {} },
): Promise<{ code: number | null; tail: string }> {
  return new Promise((done) => {
    const child = spawn(client.bin, args, { env: { ...process.env, ...client.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const last: string[] = [];
    let partial = '';
    const take = (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        last.push(line);
        if (last.length > 60) last.shift();
        onLine(line);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err) => done({ code: null, tail: err.message }));
    child.on('close', (code) => {
      if (partial) last.push(partial);
      done({ code, tail: last.join('\n') });
    });
  });
}

/** Whether an image (a tag or an id) is in the engine. */
export async function hasImage(ref: string): Promise<boolean> {
  return (await dockerRun(['image', 'inspect', '--format', '{{.Id}}', ref], { timeoutMs: 30_000 })).code === 0;
}
