// `cdk synth` and runtime kinds: an openclaw agent gets the image's openclaw stage (built with
// the pinned release as its build arguments), its own task size and a health-check start
// period long enough for its gateway, while the native agents keep theirs; a task too small
// for its kind, an unknown kind and an openclaw agent with tools.browser are refused with
// the reason. The image cannot be built here (no Docker): the Dockerfile's openclaw stage is
// checked against what infra and the runtime expect of it instead.
import { readFileSync } from 'node:fs';
import type { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { OPENCLAW_VERSION, openclawInstallManifest } from '../../shared/config/openclaw-release.ts';
import { RUNTIME_KIND_NEEDS } from '../../shared/config/runtime-kinds.ts';
import { runtimeHealthCheck } from '../../infra/runtime-health-check.ts';
import { ConfigError } from '../../shared/errors.ts';
import { EXAMPLE_CONFIG, synthFleet, type SynthedFleet } from './synth-fleet.ts';

const withFran = (runtime: Record<string, unknown>, edit: (fran: any) => void = () => {}) => {
  const config = structuredClone(EXAMPLE_CONFIG) as any;
  config.agents.list[1].runtime = runtime;
  edit(config.agents.list[1]);
  return config;
};

const issuesOf = (run: () => unknown): { path: string; message: string }[] => {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues;
    throw err;
  }
  return [];
};

/** The Docker images `cdk deploy` would build for an agent's stack: stage and build arguments. */
const images = (built: SynthedFleet, id: string) => {
  const manifest = built.assembly.artifacts.find((a) => a.id === `demo-agent-${id}.assets`) as AssetManifestArtifact;
  return Object.values(manifest.contents.dockerImages ?? {}).map((image) => ({
    target: image.source.dockerBuildTarget,
    buildArgs: image.source.dockerBuildArgs,
    file: image.source.dockerFile,
  }));
};

const runtimeContainer = (built: SynthedFleet, id: string) => {
  const task = Object.values(built.template(`demo-agent-${id}`).findResources('AWS::ECS::TaskDefinition')).find(
    (t) => t.Properties.ContainerDefinitions[0].Name === 'Runtime',
  )!;
  return { task: task.Properties, container: task.Properties.ContainerDefinitions[0] };
};

/** The Dockerfile's stages by name, continuation lines joined. */
function dockerfileStages(): Map<string, string[]> {
  const text = readFileSync(new URL('../../runtime-image/Dockerfile', import.meta.url), 'utf8').replace(/\\\n\s*/g, ' ');
  const stages = new Map<string, string[]>();
  let current: string[] = [];
  for (const line of text.split('\n')) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.set(from[1] ?? 'default', (current = [line]));
    else if (line.trim() && !line.startsWith('#')) current.push(line);
  }
  return stages;
}

describe('synth and runtime kinds', () => {
  const built = synthFleet(withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }), { runtimeImage: undefined }, { nag: false });

  it('builds an openclaw agent’s runtime from the openclaw stage with the pinned release; the native agents’ stays the runtime stage without build arguments', () => {
    const pinned = { OPENCLAW_VERSION, OPENCLAW_PACKAGE_JSON: JSON.stringify(openclawInstallManifest()) };
    expect(OPENCLAW_VERSION).toMatch(/^\d{4}\.\d+\.\d+$/);
    // Its one-off tasks (archive, workspace sync) run the plain runtime stage every agent shares.
    expect(images(built, 'fran').sort((a, b) => String(a.target).localeCompare(String(b.target)))).toEqual([
      { target: 'openclaw', buildArgs: pinned, file: 'runtime-image/Dockerfile' },
      { target: 'runtime', buildArgs: undefined, file: 'runtime-image/Dockerfile' },
    ]);
    for (const id of ['jerry', 'grif', 'ray']) expect(images(built, id).map((i) => [i.target, i.buildArgs])).toEqual([['runtime', undefined]]);
  });

  it('sizes the openclaw agent’s task as configured and gives its health check the kind’s start period; native agents keep theirs', () => {
    const fran = runtimeContainer(built, 'fran');
    expect(fran.task).toMatchObject({ Cpu: '1024', Memory: '2048' });
    expect(fran.container.HealthCheck.StartPeriod).toBe(RUNTIME_KIND_NEEDS.openclaw.healthStartSeconds);
    // At least three times the 29.7 s start-to-ready measured for the gateway (docs/benchmarks.md).
    expect(RUNTIME_KIND_NEEDS.openclaw.healthStartSeconds).toBeGreaterThanOrEqual(90);
    const grif = runtimeContainer(built, 'grif');
    expect(grif.task).toMatchObject({ Cpu: '256', Memory: '512' });
    expect(grif.container.HealthCheck.StartPeriod).toBe(20);
    // The rest of the check is the same command and timing for both kinds.
    const { StartPeriod: _a, ...franRest } = fran.container.HealthCheck;
    const { StartPeriod: _b, ...grifRest } = grif.container.HealthCheck;
    expect(franRest).toEqual(grifRest);
    // The gateway's token is made at each start, never set in the task's environment.
    const names = fran.container.Environment.map((e: { Name: string }) => e.Name);
    expect(names.filter((n: string) => /TOKEN|OPENCLAW/.test(n))).toEqual([]);
  });

  it('refuses a task below what the kind needs, and an unknown kind', () => {
    expect(() => synthFleet(withFran({ kind: 'openclaw' }), {}, { nag: false })).toThrow(
      /agents.list\[1\].runtime: runtime.kind "openclaw" needs at least 1 vCPU and 2048 MB \(got 0.25 vCPU, 512 MB\)/,
    );
    expect(() => synthFleet(withFran({ kind: 'hermes' }), {}, { nag: false })).toThrow(/agents.list\[1\].runtime.kind: must be one of the runtime kinds/);
  });

  it('refuses an openclaw agent with tools.browser: the native runtime’s browser tool, which the kind does not run (nor has the image Chromium)', () => {
    const found = issuesOf(() =>
      synthFleet(
        withFran({ kind: 'openclaw', cpus: 1, memoryMb: 2048 }, (fran) => (fran.tools = { browser: { enabled: true } })),
        {},
        { nag: false },
      ),
    );
    expect(found).toEqual([
      {
        path: 'agents.list[1].tools.browser',
        message: expect.stringMatching(
          /^is the native runtime's browser tool, which runtime.kind "openclaw" does not run \(and the openclaw image carries no Chromium\)/,
        ),
      },
    ]);
  });
});

describe('external mode on AWS', () => {
  const external = { mode: 'external', url: 'wss://gateway.example.com', tokenSecret: 'OPENCLAW_GATEWAY_TOKEN' };
  // The native runtime's size: refused before this change (the managed mode's 1 vCPU / 2 GB applied, and synth refused external mode outright).
  const built = synthFleet(withFran({ kind: 'openclaw', cpus: 0.25, memoryMb: 512, openclaw: external }), { runtimeImage: undefined }, { nag: false });

  it('synthesizes: the runtime stage (no OpenClaw in the task), the native size and start period, no token or key in the environment', () => {
    expect(images(built, 'fran').map((i) => [i.target, i.buildArgs])).toEqual([['runtime', undefined]]);
    const fran = runtimeContainer(built, 'fran');
    expect(fran.task).toMatchObject({ Cpu: '256', Memory: '512' });
    expect(fran.container.HealthCheck.StartPeriod).toBe(RUNTIME_KIND_NEEDS.openclaw.modes!.external!.healthStartSeconds);
    expect(fran.container.HealthCheck.StartPeriod).toBe(RUNTIME_KIND_NEEDS.native.healthStartSeconds);
    const names = fran.container.Environment.map((e: { Name: string }) => e.Name);
    expect(names.filter((n: string) => /TOKEN|OPENCLAW|DEVICE/.test(n))).toEqual([]);
  });

  it('lets the task role read its own secret only', () => {
    const policies = Object.values(built.template('demo-agent-fran').findResources('AWS::IAM::Policy'));
    const secretResources = policies
      .flatMap((p) => p.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
      .filter((st) => [st.Action].flat().some((a) => a.startsWith('secretsmanager:')))
      .map((st) => JSON.stringify(st.Resource));
    expect(secretResources.length).toBeGreaterThan(0);
    for (const r of secretResources) expect(r).not.toMatch(/jerry|grif|ray|\*"?\]?$/);
  });

  it('keeps the managed mode’s size: the external mode’s smaller needs are its own', () => {
    expect(() => synthFleet(withFran({ kind: 'openclaw', cpus: 0.5, memoryMb: 1024, openclaw: { mode: 'managed' } }), {}, { nag: false })).toThrow(
      /runtime.kind "openclaw" needs at least 1 vCPU and 2048 MB \(got 0.5 vCPU, 1024 MB\)/,
    );
  });
});

describe('the Dockerfile’s openclaw stage (not built here: checked against what infra and the runtime expect)', () => {
  const stages = dockerfileStages();
  const openclaw = stages.get('openclaw') ?? [];

  it('builds on the runtime stage (its bundle, its tool uids, tini) and takes the pin as build arguments, with no default of its own', () => {
    expect(openclaw[0]).toMatch(/^FROM runtime AS openclaw$/);
    expect(openclaw).toEqual(expect.arrayContaining(['ARG OPENCLAW_VERSION', 'ARG OPENCLAW_PACKAGE_JSON']));
    const run = openclaw.find((l) => l.startsWith('RUN '))!;
    // Installed with npm from the package.json infra passes, checked against the version after, set-id bits swept last.
    expect(run).toContain('printf \'%s\' "$OPENCLAW_PACKAGE_JSON" > package.json');
    expect(run).toMatch(/npm install\b/);
    expect(run).toContain('v!==process.env.OPENCLAW_VERSION');
    expect(run.trim().endsWith('find / -xdev -type f -perm /6000 -exec chmod a-s {} +')).toBe(true);
    // No second place the version is written down.
    expect(openclaw.join('\n')).not.toContain(OPENCLAW_VERSION);
  });

  it('names the Node and the OpenClaw entry the openclaw kind starts, where npm installs it', () => {
    const env = openclaw.find((l) => l.startsWith('ENV ') && l.includes('CLAWFLEET_OPENCLAW_CLI'))!;
    expect(env).toContain('CLAWFLEET_OPENCLAW_NODE=/usr/local/bin/node');
    expect(env).toContain('CLAWFLEET_OPENCLAW_CLI=/opt/openclaw/node_modules/openclaw/openclaw.mjs');
    expect(openclaw).toContain('WORKDIR /opt/openclaw');
  });

  it('carries the kind’s health check, as the task definition does', () => {
    for (const [stage, kind] of [
      ['runtime', 'native'],
      ['openclaw', 'openclaw'],
    ] as const) {
      const line = stages.get(stage)!.find((l) => l.startsWith('HEALTHCHECK '))!;
      const m = /^HEALTHCHECK\s+((?:--[a-z-]+=\S+\s+)*)CMD\s+(\[.*\])\s*$/.exec(line)!;
      const opts = Object.fromEntries([...m[1]!.matchAll(/--([a-z-]+)=(\d+)s?/g)].map(([, k, v]) => [k, Number(v)]));
      const check = runtimeHealthCheck({ kind });
      expect({
        command: ['CMD', ...JSON.parse(m[2]!)],
        interval: opts.interval,
        timeout: opts.timeout,
        start: opts['start-period'],
        retries: opts.retries,
      }).toEqual({
        command: check.command,
        interval: check.interval!.toSeconds(),
        timeout: check.timeout!.toSeconds(),
        start: check.startPeriod!.toSeconds(),
        retries: check.retries,
      });
    }
  });
});
