// `clawfleet start --containers` (or local.runtimes "containers") on a machine without a
// container engine: one clear error naming what is missing — the docker command, or an engine
// that answers where DOCKER_HOST points — before any runtime starts, and the state directory
// free again for the next start. Processes stay the default. No engine needed here; the
// containers themselves are proven in the image project (test/image/local-containers.test.ts).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../cli/main.ts';
import type { LocalFleet } from '../../local/fleet.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { startFleet } from '../support/local-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';
import { captureIO } from '../unit/cli-io.ts';

const MODEL_KEY = 'sk-test-no-engine-0123456789abcdef';
let dir: string;
let fleet: LocalFleet | undefined;
const savedDockerHost = process.env.DOCKER_HOST;

function writeConfig(local?: Record<string, unknown>, runtime: Record<string, unknown> = {}) {
  writeFileSync(
    join(dir, 'clawfleet.json'),
    JSON.stringify({
      fleet: 'noengine',
      agents: { defaults: { model: 'openai/gpt-4.1-mini', runtime: { cpus: 0.25, memoryMb: 512, ...runtime } }, list: [{ id: 'solo', default: true }] },
      models: { providers: { openai: { api: 'openai-completions', apiKeySecret: 'OPENAI_API_KEY' } } },
      ...(local ? { local } : {}),
    }),
  );
}

beforeAll(() => {
  dir = tempDir('cf-no-engine-');
  writeConfig();
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify({ 'clawfleet/noengine/agents/solo': { OPENAI_API_KEY: MODEL_KEY } }));
});

afterAll(async () => {
  if (savedDockerHost === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = savedDockerHost;
  await fleet?.stop();
});

/** The start's error, which must be the engine's: code, words, and no secret in it. */
async function startError(options: Parameters<typeof startFleet>[0]): Promise<ClawfleetError> {
  const err = await startFleet(options).then(
    (f) => {
      fleet = f;
      throw new Error('the fleet started without a container engine');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ClawfleetError);
  expect((err as ClawfleetError).code).toBe('CONTAINER_ENGINE_UNAVAILABLE');
  expect((err as Error).message).not.toContain(MODEL_KEY);
  return err as ClawfleetError;
}

describe('--containers without a container engine', () => {
  it('names the missing docker command, and leaves the state directory free', async () => {
    const err = await startError({ dir, runtimes: 'containers', docker: join(dir, 'no-such-docker'), running: 'all' });
    expect(err.message).toMatch(/^--containers \(local\.runtimes "containers"\) needs the docker command, which is not on PATH: install Docker/);
    expect(err.message).toContain('start without --containers');
    // Nothing of the failed start holds the state directory: a start with processes runs.
    fleet = await startFleet({ dir, running: 'all' });
    expect(fleet.supervisor.state('solo')).toBe('running');
    await fleet.stop();
    fleet = undefined;
  });

  it('names where no engine answers (DOCKER_HOST), with the client there', async () => {
    const socket = join(dir, 'nothing-listens.sock');
    process.env.DOCKER_HOST = `unix://${socket}`;
    try {
      const err = await startError({ dir, runtimes: 'containers', running: 'all' });
      expect(err.message).toContain(`needs a Docker engine, and none answers at DOCKER_HOST=unix://${socket}`);
      expect(err.message).toContain('start the engine, or start without --containers');
    } finally {
      if (savedDockerHost === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = savedDockerHost;
    }
  });

  it('is what the config key local.runtimes "containers" asks for too', async () => {
    writeConfig({ runtimes: 'containers' });
    try {
      await startError({ dir, docker: join(dir, 'no-such-docker'), running: 'all' });
    } finally {
      writeConfig();
    }
  });

  it('refuses an agent on an image of its own (runtime.image) before asking for an engine, naming it', async () => {
    writeConfig({ runtimes: 'containers' }, { image: 'registry.example/own:1' });
    try {
      const err = await startFleet({ dir, docker: join(dir, 'no-such-docker'), running: 'all' }).then(
        () => undefined,
        (e: unknown) => e as ClawfleetError,
      );
      expect(err?.code).toBe('RUNTIME_KIND_UNSUPPORTED');
      expect(err?.message).toContain('solo: runtime.image ("registry.example/own:1") is not supported with --containers yet');
    } finally {
      writeConfig();
    }
  });

  it('refuses a local.runtimes that is neither, naming both', async () => {
    writeConfig({ runtimes: 'vms' });
    try {
      await expect(startFleet({ dir, running: 'all' })).rejects.toThrow(/local\.runtimes[\s\S]*"processes"[\s\S]*"containers"/);
    } finally {
      writeConfig();
    }
  });

  it('is what `clawfleet start --containers` asks for: exit 1 with the same words', async () => {
    const socket = join(dir, 'nothing-listens.sock');
    process.env.DOCKER_HOST = `unix://${socket}`;
    try {
      const io = captureIO({ cwd: dir });
      const code = await runCli(['start', '--containers', '--port', '0', '--state', 'state', '--secrets', 'secrets.json'], io);
      expect(code).toBe(1);
      expect(io.errText()).toContain(`--containers (local.runtimes "containers") needs a Docker engine, and none answers at DOCKER_HOST=unix://${socket}`);
      expect(`${io.outText()}${io.errText()}`).not.toContain(MODEL_KEY);
    } finally {
      if (savedDockerHost === undefined) delete process.env.DOCKER_HOST;
      else process.env.DOCKER_HOST = savedDockerHost;
    }
  });
});
