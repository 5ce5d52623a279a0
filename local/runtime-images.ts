// The runtime image each agent's container runs (`clawfleet start --containers`): the stage of
// runtime-image/Dockerfile that AWS runs for it (shared/config/image-variant.ts), built here as
// infra builds it — same target, same build arguments — and tagged clawfleet-runtime:<stage>.
// The engine's layer cache makes a start after the first rebuild only what changed. Tests hand
// in stages they built already.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { runtimeImageBuildArgs, type RuntimeImageVariant } from '../shared/config/image-variant.ts';
import { ClawfleetError } from '../shared/errors.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const DOCKERFILE = 'runtime-image/Dockerfile';

export interface RuntimeImage {
  tag: string;
  /** The image's CMD, which the container runs with its secrets pipe moved (container-spec.ts). */
  command: string[];
}

function dockerOutput(docker: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(docker, args, { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`docker ${args[0]} ${args[1] ?? ''}: ${String(stderr).trim() || err.message}`)) : resolve(String(stdout).trim()),
    );
  });
}

/** Builds one stage; its output goes to `say` line by line, and a failed build throws with its last lines. */
function build(docker: string, variant: RuntimeImageVariant, tag: string, say: (line: string) => void): Promise<void> {
  const args = [
    'build',
    '--target',
    variant,
    ...Object.entries(runtimeImageBuildArgs(variant) ?? {}).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    '--file',
    DOCKERFILE,
    '--tag',
    tag,
    '--progress',
    'plain',
    '.',
  ];
  return new Promise((resolve, reject) => {
    // BuildKit: the Dockerfile's own .dockerignore keeps the context small (a client before Docker 23 needs asking).
    const child = spawn(docker, args, { cwd: REPO, env: { ...process.env, DOCKER_BUILDKIT: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const last: string[] = [];
    const take = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
        last.push(line);
        if (last.length > 20) last.shift();
        say(line);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.once('error', (err) => reject(err));
    child.once('exit', (code) =>
      code === 0
        ? resolve()
        : reject(
            new ClawfleetError('RUNTIME_IMAGE_MISSING', `docker build of the runtime image's ${variant} stage failed (exit ${code}):\n${last.join('\n')}`),
          ),
    );
  });
}

/**
 * Each stage in `variants`, ready to run: `given` ones as they are (tests), the others built.
 * An image that is not there, or has no command, is an error naming it.
 */
export async function runtimeImages(
  variants: Iterable<RuntimeImageVariant>,
  opts: { docker: string; given?: Partial<Record<RuntimeImageVariant, string>>; say: (line: string) => void },
): Promise<Map<RuntimeImageVariant, RuntimeImage>> {
  const images = new Map<RuntimeImageVariant, RuntimeImage>();
  for (const variant of new Set(variants)) {
    let tag = opts.given?.[variant];
    if (!tag) {
      tag = `clawfleet-runtime:${variant}`;
      opts.say(`building the runtime image's ${variant} stage (${DOCKERFILE}; the first build takes minutes, later ones reuse its layers) …`);
      const started = performance.now();
      await build(opts.docker, variant, tag, () => {});
      opts.say(`built ${tag} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    let command: unknown;
    try {
      command = JSON.parse(await dockerOutput(opts.docker, ['image', 'inspect', '--format', '{{json .Config.Cmd}}', tag]));
    } catch (err) {
      throw new ClawfleetError('RUNTIME_IMAGE_MISSING', `the runtime image ${tag} (${variant} stage) is not in the engine: ${(err as Error).message}`);
    }
    if (!Array.isArray(command) || command.length === 0 || !command.every((c) => typeof c === 'string'))
      throw new ClawfleetError('RUNTIME_IMAGE_MISSING', `the runtime image ${tag} has no command (CMD) to run`);
    images.set(variant, { tag, command });
  }
  return images;
}
