// An agent with a browser on AWS: synth refuses a task too small for Chromium (saying the
// size and why), and builds that agent's image from the Dockerfile's "browser" stage while
// the others keep the plain runtime stage.
import type { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG, synthFleet } from './synth-fleet.ts';

function withBrowser(runtime?: { cpus: number; memoryMb: number }) {
  const config = structuredClone(EXAMPLE_CONFIG) as any;
  const fran = config.agents.list.find((a: { id: string }) => a.id === 'fran');
  fran.tools = { browser: { enabled: true } };
  if (runtime) fran.runtime = runtime;
  return config;
}

describe('an agent with tools.browser', () => {
  it('is refused on a task smaller than Chromium needs, with the size and why', () => {
    expect(() => synthFleet(withBrowser(), {}, { nag: false })).toThrow(
      /agents\.list\[1\]\.runtime: tools\.browser needs a task of at least 1 vCPU and 2048 MB \(got 0\.25 vCPU, 512 MB\): headless Chromium takes/,
    );
  });

  it("gets the image's browser stage; the other agents keep the runtime stage", () => {
    const built = synthFleet(withBrowser({ cpus: 1, memoryMb: 2048 }), { runtimeImage: undefined }, { nag: false });
    const targets = (id: string) => {
      const manifest = built.assembly.artifacts.find((a) => a.id === `demo-agent-${id}.assets`) as AssetManifestArtifact;
      return Object.values(manifest.contents.dockerImages ?? {}).map((image) => image.source.dockerBuildTarget);
    };
    // Its runtime runs the browser stage; its one-off tasks (archive, workspace sync) the plain
    // runtime stage every agent's tasks share.
    expect(targets('fran').sort()).toEqual(['browser', 'runtime']);
    expect(targets('jerry')).toEqual(['runtime']);
  });
});
