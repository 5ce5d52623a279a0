// Whether this machine can run the fleet's runtimes as containers: a `docker` client, and an
// engine that answers it (DOCKER_HOST's, or the default socket). Asked once before anything
// starts, so a missing engine is one clear error naming what is missing, not each runtime in a
// restart loop.
import { execFile } from 'node:child_process';
import { ClawfleetError } from '../shared/errors.ts';

const CHECK_TIMEOUT_MS = 30_000;

/** The engine's version; a ClawfleetError (CONTAINER_ENGINE_UNAVAILABLE) saying what is missing when there is none. */
export function containerEngineVersion(docker = 'docker', env: NodeJS.ProcessEnv = process.env): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(docker, ['version', '--format', '{{.Server.Version}}'], { timeout: CHECK_TIMEOUT_MS, env }, (err, stdout, stderr) => {
      const version = String(stdout).trim();
      if (!err && version) return resolve(version);
      const fail = (why: string) => reject(new ClawfleetError('CONTAINER_ENGINE_UNAVAILABLE', `--containers (local.runtimes "containers") needs ${why}`));
      if ((err as NodeJS.ErrnoException | null)?.code === 'ENOENT')
        return fail(
          `the docker command, which is not on PATH: install Docker (the engine and its client), or start without --containers to run each runtime as a process`,
        );
      const said = String(stderr).trim().split('\n').slice(-3).join(' ').slice(0, 400) || (err as Error | null)?.message || 'no server version';
      const where = env.DOCKER_HOST?.trim() ? `DOCKER_HOST=${env.DOCKER_HOST.trim()}` : 'the default socket (no DOCKER_HOST)';
      fail(`a Docker engine, and none answers at ${where} (docker version: ${said}): start the engine, or start without --containers`);
    });
  });
}
