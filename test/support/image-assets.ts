// The runtime image as `cdk deploy` builds it: the Docker image assets the synthesized app
// declares (build context staged by CDK, Dockerfile, target stage, build arguments,
// platform), each built with the command cdk-assets runs — so a drift between infra's asset
// and the Dockerfile fails here. Two additions, both this machine's: the stand-in base as
// NODE_BASE (no Docker Hub), and `--network host` (the engine runs with --iptables=false, so
// a build container on the bridge reaches no registry).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseConfig } from '../../shared/config/load.ts';
import { synthFleet } from '../infra/synth-fleet.ts';
import { buildClient, docker, dockerStream } from './docker-cli.ts';
import { IMAGE_STAGES, imageFleetConfig, type ImageStage } from './image-fleet.ts';

export interface ImageAsset {
  stage: ImageStage;
  /** The staged build context in the cloud assembly. */
  directory: string;
  dockerFile: string;
  buildArgs: Record<string, string>;
  platform: string | undefined;
}

const DockerImageSource = z.object({
  directory: z.string(),
  dockerFile: z.string().optional(),
  dockerBuildTarget: z.string().optional(),
  dockerBuildArgs: z.record(z.string(), z.string()).optional(),
  platform: z.string().optional(),
});
const AssetManifest = z.object({ dockerImages: z.record(z.string(), z.object({ source: DockerImageSource })).optional() });

/**
 * Synthesizes the image fleet with image assets (no `runtimeImage`), returns one asset per
 * stage and a function that removes the assembly. Every stage the app declares must be one
 * of IMAGE_STAGES, and each must be declared.
 */
export function synthImageAssets(): { assets: Map<ImageStage, ImageAsset>; remove(): void } {
  const synth = synthFleet(parseConfig(imageFleetConfig()), { runtimeImage: undefined }, { nag: false });
  const dir = synth.assembly.directory;
  const assets = new Map<ImageStage, ImageAsset>();
  for (const artifact of synth.assembly.artifacts) {
    const file = (artifact as { file?: string }).file;
    if (!file?.endsWith('.assets.json')) continue;
    const manifest = AssetManifest.parse(JSON.parse(readFileSync(file, 'utf8')));
    for (const { source } of Object.values(manifest.dockerImages ?? {})) {
      const stage = source.dockerBuildTarget as ImageStage;
      if (!IMAGE_STAGES.includes(stage))
        throw new Error(`the app declares an image asset for target ${source.dockerBuildTarget}, which the image tests do not build`);
      assets.set(stage, {
        stage,
        directory: join(dir, source.directory),
        dockerFile: source.dockerFile ?? 'Dockerfile',
        buildArgs: source.dockerBuildArgs ?? {},
        platform: source.platform,
      });
    }
  }
  const missing = IMAGE_STAGES.filter((s) => !assets.has(s));
  if (missing.length > 0) throw new Error(`the image fleet's app declares no image asset for ${missing.join(', ')}`);
  return { assets, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface BuiltImage {
  tag: string;
  id: string;
  seconds: number;
}

/** Builds one asset as cdk-assets would, tagged `tag`; `noCache` for a cold build's figure. */
export async function buildImageAsset(
  asset: ImageAsset,
  tag: string,
  base: string,
  options: { noCache?: boolean; log?: (line: string) => void } = {},
): Promise<BuiltImage> {
  const client = await buildClient();
  const args = [
    'build',
    '--tag',
    tag,
    ...Object.entries({ ...asset.buildArgs, NODE_BASE: base }).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
    '--target',
    asset.stage,
    // cdk-assets runs the build in the staged context, where dockerFile is relative to it.
    '--file',
    join(asset.directory, asset.dockerFile),
    ...(asset.platform ? ['--platform', asset.platform] : []),
    '--network',
    'host',
    '--progress',
    'plain',
    ...(options.noCache ? ['--no-cache'] : []),
    asset.directory,
  ];
  const started = performance.now();
  const { code, tail } = await dockerStream(args, options.log ?? (() => {}), client);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`docker build of the ${asset.stage} stage failed (exit ${code}):\n${tail}`);
  const id = await docker(['image', 'inspect', '--format', '{{.Id}}', tag]);
  return { tag, id, seconds };
}
