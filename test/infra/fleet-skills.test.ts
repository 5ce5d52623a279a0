// The fleet's skills on AWS (#19): synth packs, per agent, only the skills its allow list
// admits into a file asset that its task role alone may read and its runtime is told of; an
// agent admitting none gets neither; a link out of the folder or a name no path should hold
// refuses the synth, saying which and why.
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AssetManifestArtifact } from 'aws-cdk-lib/cx-api';
import { describe, expect, it } from 'vitest';
import { decodeFleetSkillsBundle } from '../../shared/config/fleet-skills-bundle.ts';
import { configWithAllowLists, fleetWithSkills } from './fleet-skills-fixture.ts';
import { synthFleet, type SynthedFleet } from './synth-fleet.ts';
import { tempDir } from '../support/temp-dirs.ts';

/** The parts of a synthesized resource these tests read. */
interface TemplateResource {
  Type: string;
  Properties: {
    ContainerDefinitions?: { Environment?: { Name: string; Value: unknown }[] }[];
    PolicyDocument?: { Statement: { Sid?: string }[] };
  };
}

function bundleOf(built: SynthedFleet, id: string): string[] | undefined {
  const manifest = built.assembly.artifacts.find((a) => a.id === `demo-agent-${id}.assets`) as AssetManifestArtifact;
  const files = Object.values(manifest.contents.files ?? {}).filter((f) => f.source.path?.endsWith('.gz'));
  if (files.length === 0) return undefined;
  expect(files).toHaveLength(1);
  const bytes = readFileSync(join(built.assembly.directory, files[0]!.source.path!));
  return decodeFleetSkillsBundle(bytes)
    .map((f) => `${f.path}${f.executable ? ' (x)' : ''}`)
    .sort();
}

describe("the fleet's skills, deployed", () => {
  const dir = fleetWithSkills();
  const built = synthFleet(configWithAllowLists(), { config: join(dir, 'clawfleet.json') }, { nag: true });

  it('keep each bundle in the cloud assembly, not in a temp dir of its own that nothing removes', () => {
    expect(readdirSync(join(built.assembly.directory, 'clawfleet-fleet-skills')).filter((f) => f.endsWith('.json.gz'))).toHaveLength(3);
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith('clawfleet-fleet-skills-'))).toEqual([]);
  });

  it('ship each agent the skills its allow list admits, and only those', () => {
    expect(bundleOf(built, 'jerry')).toEqual(['secret-tool/SKILL.md', 'weather/SKILL.md', 'weather/scripts/get.sh (x)']);
    // Admitted by the name its SKILL.md gives, whatever its folder is called.
    expect(bundleOf(built, 'fran')).toEqual(['note-taking/SKILL.md']);
    // No allow list: every skill.
    expect(bundleOf(built, 'ray')).toEqual(['note-taking/SKILL.md', 'secret-tool/SKILL.md', 'weather/SKILL.md', 'weather/scripts/get.sh (x)']);
    // An empty allow list: nothing shipped, nothing granted, nothing in its environment.
    expect(bundleOf(built, 'grif')).toBeUndefined();
    expect(built.stacks.agents.get('grif')!.fleetSkills).toBeUndefined();
  });

  it("name the object in the runtime's environment and let the task role read that one object", () => {
    for (const id of ['jerry', 'fran', 'ray', 'grif']) {
      const stack = built.stacks.agents.get(id)!;
      const template = built.templates.get(`demo-agent-${id}`)!;
      const resources = Object.values(template.Resources as Record<string, TemplateResource>);
      const env = resources
        .filter((r) => r.Type === 'AWS::ECS::TaskDefinition')
        .flatMap((r) => (r.Properties.ContainerDefinitions ?? []).flatMap((c) => c.Environment ?? []))
        .filter((e) => e.Name === 'CLAWFLEET_FLEET_SKILLS_OBJECT');
      const statements = resources
        .filter((r) => r.Type === 'AWS::IAM::Policy')
        .flatMap((r) => r.Properties.PolicyDocument?.Statement ?? [])
        .filter((s) => s.Sid === 'OwnFleetSkills');
      if (!stack.fleetSkills) {
        expect([env, statements]).toEqual([[], []]);
        continue;
      }
      const key = stack.fleetSkills.asset.assetHash;
      // Only the runtime's task definition, not the one-off tasks'.
      expect(env).toHaveLength(1);
      expect(JSON.stringify(env[0]!.Value)).toContain(`/${key}.gz`);
      expect(JSON.stringify(env[0]!.Value)).toMatch(
        /^\{"Fn::Join":\["",\["s3:\/\/",\{"Fn::Sub":"cdk-hnb659fds-assets-\$\{AWS::AccountId\}-\$\{AWS::Region\}"\}/,
      );
      expect(statements).toEqual([
        {
          Sid: 'OwnFleetSkills',
          Effect: 'Allow',
          Action: 's3:GetObject',
          Resource: expect.objectContaining({ 'Fn::Join': ['', expect.arrayContaining([`/${key}.gz`])] }),
        },
      ]);
    }
  });
});

describe("the fleet's skills and an openclaw agent", () => {
  it('ship it nothing: it loads skills as OpenClaw does, filtered by the same allow list in its gateway’s config', () => {
    const config = configWithAllowLists();
    const ray = config.agents.list.find((a) => a.id === 'ray')!;
    ray.runtime = { kind: 'openclaw', cpus: 1, memoryMb: 2048 };
    const built = synthFleet(config, { config: join(fleetWithSkills(), 'clawfleet.json') }, { nag: false });
    expect(built.stacks.agents.get('ray')!.fleetSkills).toBeUndefined();
    expect(bundleOf(built, 'ray')).toBeUndefined();
    expect(bundleOf(built, 'jerry')).toEqual(['secret-tool/SKILL.md', 'weather/SKILL.md', 'weather/scripts/get.sh (x)']);
  });
});

describe("a fleet's skills that cannot be shipped as they are", () => {
  it('refuse the synth: a link out of the folder, at the top or inside a skill, and a file or skill folder name with a control character', () => {
    const dir = fleetWithSkills();
    const outside = tempDir('cf-fleet-skills-outside-');
    writeFileSync(join(outside, 'id_rsa'), 'PRIVATE');
    mkdirSync(join(outside, 'stolen'));
    symlinkSync(join(outside, 'stolen'), join(dir, 'skills', 'linked-skill'));
    symlinkSync(join(outside, 'id_rsa'), join(dir, 'skills', 'weather', 'key'));
    symlinkSync('../../../..', join(dir, 'skills', 'weather', 'scripts', 'up'));
    writeFileSync(join(dir, 'skills', 'weather', 'bad\nname'), 'x');
    mkdirSync(join(dir, 'skills', 'odd\u0007skill'));
    writeFileSync(join(dir, 'skills', 'odd\u0007skill', 'SKILL.md'), '---\nname: odd\ndescription: a bell in its folder name\n---\n');
    let message = '';
    try {
      synthFleet(configWithAllowLists(), { config: join(dir, 'clawfleet.json') }, { nag: false });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/skills\/linked-skill: is a symbolic link out of the skills folder/);
    expect(message).toMatch(/skills\/weather\/key: is a symbolic link out of the skills folder/);
    expect(message).toMatch(/skills\/weather\/scripts\/up: is a symbolic link out of the skills folder/);
    expect(message).toMatch(/"bad\\nname" holds a control character/);
    expect(message).toMatch(/"odd\\u0007skill" holds a control character: rename that skill's folder/);
  });

  it('leave out a link that stays inside the folder, as local mode does', () => {
    const dir = fleetWithSkills();
    symlinkSync('get.sh', join(dir, 'skills', 'weather', 'scripts', 'fetch.sh'));
    const built = synthFleet(configWithAllowLists(), { config: join(dir, 'clawfleet.json') }, { nag: false });
    expect(bundleOf(built, 'jerry')).toEqual(['secret-tool/SKILL.md', 'weather/SKILL.md', 'weather/scripts/get.sh (x)']);
  });
});
