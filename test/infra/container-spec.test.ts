// Local containers (`clawfleet start --containers`, local/container-spec.ts) run as the agent's
// Fargate task definition says, where that makes sense on one machine: the synthesized task
// definition of each image stage's agent, translated as the image tests translate it
// (test/support/ecs-task-definition.ts), must agree with the `docker run` arguments local mode
// makes on user, dropped and added capabilities, init, read-only root, stop timeout, cpus,
// memory (no swap) and where the workspace is mounted. A change to infra's container that
// local mode does not follow fails here.
import { describe, expect, it } from 'vitest';
import { CONTAINER_WORKSPACE, dockerRunArgs } from '../../local/container-spec.ts';
import { parseConfig } from '../../shared/config/load.ts';
import { resolveAgent } from '../../shared/config/resolve.ts';
import { agentStackName } from '../../shared/config/names.ts';
import { containerCreateBody, parseTaskDefinition } from '../support/ecs-task-definition.ts';
import { imageFleetConfig, STAGE_AGENTS } from '../support/image-fleet.ts';
import { synthFleet } from './synth-fleet.ts';

/** CloudFormation's references ({"Ref": …}, {"Fn::…": …}) as placeholders: the translation needs their shape, not their values. */
function unresolved(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unresolved);
  if (value === null || typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'))) return `<${keys[0]}>`;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unresolved(v)]));
}

/** Every value a flag takes in `args`. */
const flag = (args: string[], name: string): string[] => args.flatMap((a, i) => (a === name ? [args[i + 1]!] : []));

const config = parseConfig(imageFleetConfig());
const synth = synthFleet(config);

describe('local containers as the task definition says', () => {
  for (const [stage, agentId] of Object.entries(STAGE_AGENTS)) {
    it(`${agentId} (${stage} stage): user, capabilities, init, root, stop timeout, cpus, memory and the workspace agree`, () => {
      const template = synth.templates.get(agentStackName(config.fleet, agentId))!;
      const [raw] = Object.values(template.Resources as Record<string, { Type: string; Properties: unknown }>).filter(
        (r) => r.Type === 'AWS::ECS::TaskDefinition',
      );
      const task = parseTaskDefinition(unresolved(raw!.Properties));
      const [container] = task.containerDefinitions;
      const body = containerCreateBody(task, container!, { image: 'img', extraEnv: {}, volumes: { workspace: '/host/ws' }, networkContainer: 'pause' });
      const host = body.HostConfig as Record<string, unknown>;

      const { cpus, memoryMb } = resolveAgent(config, agentId).runtime;
      const args = dockerRunArgs({
        name: 'c',
        image: 'img',
        imageCommand: ['node', 'main.mjs'],
        cpus: cpus!,
        memoryMb: memoryMb!,
        envNames: [],
        workspace: '/host/ws',
        labels: {},
      });
      expect(flag(args, '--user')).toEqual([body.User]);
      expect(new Set(flag(args, '--cap-drop'))).toEqual(new Set(host.CapDrop as string[]));
      expect(flag(args, '--cap-add')).toEqual(host.CapAdd);
      // tini is the image's entry point; neither adds Docker's init, and neither makes the root read-only.
      expect(host.Init).toBe(false);
      expect(args).not.toContain('--init');
      expect(host.ReadonlyRootfs).toBe(false);
      expect(args).not.toContain('--read-only');
      expect(flag(args, '--stop-timeout')).toEqual([String(body.StopTimeout)]);
      expect(Number(flag(args, '--cpus')[0]) * 1e9).toBe(host.NanoCpus);
      expect(flag(args, '--memory')).toEqual([`${(host.Memory as number) / 1024 / 1024}m`]);
      expect(flag(args, '--memory-swap')).toEqual([`${(host.MemorySwap as number) / 1024 / 1024}m`]);
      expect(flag(args, '--volume')).toEqual([`/host/ws:${container!.mountPoints![0]!.containerPath}:rw`]);
      expect(container!.mountPoints!.map((m) => m.containerPath)).toEqual([CONTAINER_WORKSPACE]);
    });
  }
});
