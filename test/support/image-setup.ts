/**
 * Vitest globalSetup of the image project (`npm run test:image`): a Docker engine
 * (container-engine.ts: DOCKER_HOST's, or Debian's started here as root), the stand-in base
 * (stand-in-base.ts), and every stage of the runtime image built as `cdk deploy` builds it
 * (image-assets.ts), before any test file starts. The engine's layer cache lives in
 * `.cache/container-engine/`, so a second run rebuilds only what changed.
 *
 * Tests read `inject('images')` (tag and build time per stage), and `inject('imageSkip')`:
 * a reason when this machine has no engine (not root, no DOCKER_HOST), in which case nothing
 * is started and every image test is skipped saying so. DOCKER_HOST is exported to the test
 * workers, so `docker` there reaches the same engine.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { engineUnavailable, startEngine } from './container-engine.ts';
import { docker } from './docker-cli.ts';
import { writeFigures } from './figures.ts';
import { buildImageAsset, synthImageAssets, type BuiltImage } from './image-assets.ts';
import { IMAGE_STAGES, type ImageStage } from './image-fleet.ts';
import { ensureStandInBase } from './stand-in-base.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Why the image tests cannot run here ('' when they can). */
    imageSkip: string;
    /** Each stage of runtime-image/Dockerfile, built. */
    images: Record<ImageStage, BuiltImage>;
    /** The base the stages were built on (the stand-in for node:24-bookworm-slim). */
    imageBase: string;
  }
}

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

function say(line: string): void {
  process.stderr.write(`[image] ${line}\n`);
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const skip = engineUnavailable();
  if (skip) {
    say(`skipping the image tests: ${skip}`);
    project.provide('imageSkip', skip);
    return async () => {};
  }
  const engine = await startEngine();
  process.env.DOCKER_HOST = engine.host;
  try {
    // Tasks a killed run left in our own engine (task-runner.ts labels them): gone before new ones start.
    if (engine.source === 'own') {
      // And local fleets' runtime containers (--containers, test/image/local-containers.test.ts), whatever state directory they had.
      const left = [
        ...(await docker(['ps', '-aq', '--filter', 'label=clawfleet.test=image'])).split('\n'),
        ...(await docker(['ps', '-aq', '--filter', 'label=io.clawfleet.state'])).split('\n'),
      ].filter(Boolean);
      if (left.length > 0) await docker(['container', 'rm', '-f', '--volumes', ...left]);
    }
    const base = await ensureStandInBase();
    const { assets, remove } = synthImageAssets();
    const images = {} as Record<ImageStage, BuiltImage>;
    try {
      mkdirSync(ARTIFACTS, { recursive: true });
      for (const stage of IMAGE_STAGES) {
        const log: string[] = [];
        say(`building the ${stage} stage …`);
        try {
          images[stage] = await buildImageAsset(assets.get(stage)!, `clawfleet-test/runtime:${stage}`, base, { log: (l) => log.push(l) });
        } finally {
          writeFileSync(join(ARTIFACTS, `image-build-${stage}.log`), `${log.join('\n')}\n`);
        }
        say(`built the ${stage} stage in ${images[stage].seconds.toFixed(1)} s`);
      }
    } finally {
      remove();
    }
    writeFigures('image-build', { base, stages: Object.fromEntries(Object.entries(images).map(([s, i]) => [s, { seconds: Number(i.seconds.toFixed(1)) }])) });
    project.provide('imageSkip', '');
    project.provide('imageBase', base);
    project.provide('images', images);
  } catch (err) {
    await engine.stop();
    throw err;
  }
  return engine.stop;
}
