// Every stage of runtime-image/Dockerfile, built by the image project's setup as `cdk deploy`
// builds it (test/support/image-setup.ts), held to what the Dockerfile and infra promise:
// built on the base it names, the runtime stage within its size budget, no set-id file left,
// the task definition's health check, tini as PID 1, a missing environment refused in one
// clear line, and what the browser and openclaw stages add where the runtime looks for it.
import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { runtimeHealthCheck } from '../../infra/runtime-health-check.ts';
import { OPENCLAW_VERSION } from '../../shared/config/openclaw-release.ts';
import { docker, dockerRun } from '../support/docker-cli.ts';
import { writeFigures } from '../support/figures.ts';
import { IMAGE_STAGES, type ImageStage } from '../support/image-fleet.ts';

const SKIP = inject('imageSkip');
const images = inject('images');
const base = inject('imageBase');
/** issue #28: the runtime stage may add this much to its base, at most. */
const RUNTIME_BUDGET_BYTES = 30 * 1000 * 1000;

interface Inspected {
  Size: number;
  Config: {
    User: string;
    Entrypoint: string[];
    Cmd: string[];
    Env: string[];
    Healthcheck?: { Test: string[]; Interval: number; Timeout: number; StartPeriod: number; Retries: number };
  };
  RootFS: { Layers: string[] };
}
const inspect = async (ref: string): Promise<Inspected> => JSON.parse(await docker(['image', 'inspect', '--format', '{{json .}}', ref])) as Inspected;
/** Runs `sh -c script` in a throwaway container of `stage` as root, with nothing else; returns its output. */
const inside = (stage: ImageStage, script: string) =>
  docker(['run', '--rm', '--entrypoint', '/bin/sh', images[stage].tag, '-c', script], { timeoutMs: 120_000 });
const seconds = (ns: number | undefined) => (ns ?? 0) / 1e9;

describe.skipIf(SKIP)(SKIP ? `the runtime image's stages — SKIPPED: ${SKIP}` : "the runtime image's stages, built as cdk deploy builds them", () => {
  it('builds every stage on the base it is given, the runtime stage adding at most 30 MB to it', async () => {
    const baseImage = await inspect(base);
    const figures: Record<string, unknown> = { base: { tag: base, bytes: baseImage.Size } };
    for (const stage of IMAGE_STAGES) {
      const image = await inspect(images[stage].tag);
      // The stage's file system starts with the base's layers, unchanged.
      expect(image.RootFS.Layers.slice(0, baseImage.RootFS.Layers.length)).toEqual(baseImage.RootFS.Layers);
      const history = (await docker(['history', '--no-trunc', '--format', '{{.Size}}\t{{.CreatedBy}}', images[stage].tag])).split('\n');
      figures[stage] = {
        bytes: image.Size,
        aboveBase: image.Size - baseImage.Size,
        buildSeconds: Number(images[stage].seconds.toFixed(1)),
        layers: history.filter((l) => !l.startsWith('0B')).map((l) => l.slice(0, 160)),
      };
    }
    writeFigures('image-sizes', figures);
    const runtimeAbove = (await inspect(images.runtime.tag)).Size - baseImage.Size;
    expect(runtimeAbove, `the runtime stage adds ${(runtimeAbove / 1e6).toFixed(1)} MB to its base`).toBeLessThanOrEqual(RUNTIME_BUDGET_BYTES);
  });

  it('leaves no set-uid or set-gid file in any stage for a tool uid to climb back with', async () => {
    for (const stage of IMAGE_STAGES) {
      expect(await inside(stage, 'find / -xdev -type f -perm /6000'), stage).toBe('');
      // The sweep is not vacuous: the base has set-uid files (su, mount, passwd …) for it to clear.
    }
    expect(await docker(['run', '--rm', base, 'sh', '-c', 'find / -xdev -type f -perm /4000 | wc -l'])).not.toBe('0');
  });

  it("carries the task definition's health check, runs tini as PID 1 and the runtime as its child", async () => {
    for (const stage of IMAGE_STAGES) {
      const { Config } = await inspect(images[stage].tag);
      const expected = runtimeHealthCheck(stage === 'openclaw' ? { kind: 'openclaw' } : {});
      expect(Config.Healthcheck?.Test, stage).toEqual(expected.command);
      expect(seconds(Config.Healthcheck?.Interval), stage).toBe(expected.interval?.toSeconds());
      expect(seconds(Config.Healthcheck?.Timeout), stage).toBe(expected.timeout?.toSeconds());
      expect(seconds(Config.Healthcheck?.StartPeriod), stage).toBe(expected.startPeriod?.toSeconds());
      expect(Config.Healthcheck?.Retries, stage).toBe(expected.retries);
      // The entry becomes tini without ECS's credentials settings (runtime-image/src/launch.ts).
      expect(Config.Entrypoint, stage).toEqual(['node', '/app/dist/launch.mjs', '/usr/bin/tini', '--']);
      expect(Config.User, stage).toBe('root');
    }
    // PID 1 is tini, and what the CMD starts is its child.
    const ps = await docker(['run', '--rm', images.runtime.tag, 'sh', '-c', 'cat /proc/1/comm; cat /proc/$$/status | grep PPid']);
    expect(ps.split('\n')).toEqual(['tini', 'PPid:\t1']);
  });

  it('refuses to start without its environment, naming what is missing in one line and no stack trace', async () => {
    const run = await dockerRun(['run', '--rm', images.runtime.tag], { timeoutMs: 120_000 });
    expect(run.code).toBe(1);
    const lines = `${run.stdout}${run.stderr}`.trim().split('\n');
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0]!) as { level: string; msg: string; error: string };
    expect(line).toMatchObject({ level: 'error', msg: 'runtime failed to start' });
    expect(line.error).toContain('CLAWFLEET_AGENT_ID');
    expect(line.error).toContain('CLAWFLEET_RUNTIME_CONFIG');
    expect(line.error).not.toMatch(/\n\s+at /);
  });

  it('gives the browser stage Chromium where the runtime looks for it and the playwright-core the lock file pins', async () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { version: string }> };
    const out = await inside('browser', '/usr/bin/chromium --version; node -p "require(\'/app/node_modules/playwright-core/package.json\').version"');
    const [chromium, playwright] = out.split('\n');
    expect(chromium).toMatch(/^Chromium \d+\./);
    expect(playwright).toBe(lock.packages['node_modules/playwright-core']!.version);
  });

  it('gives the openclaw stage the pinned OpenClaw on a Node it runs on, and its own user in the workspace group', async () => {
    const out = await inside(
      'openclaw',
      'node -p "require(\'/opt/openclaw/node_modules/openclaw/package.json\').version"; node -p process.versions.node; id clawfleet-openclaw; stat -c %a /var/lib/clawfleet',
    );
    const [version, node, id, stateMode] = out.split('\n');
    expect(version).toBe(OPENCLAW_VERSION);
    const [major, minor] = node!.split('.').map(Number);
    expect(major! > 24 || (major === 24 && minor! >= 16)).toBe(true);
    expect(id).toBe('uid=20100(clawfleet-openclaw) gid=20000(clawfleet-tools) groups=20000(clawfleet-tools)');
    expect(stateMode).toBe('711');
  });
});
