// Builds the whole CDK app from a parsed fleet config: the control-plane stack, one stack
// per agent, and the cdk-nag AwsSolutions checks over all of them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Tags, Validations, type App } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { CpuArchitecture } from '../shared/config/architecture.ts';
import { agentStackName, CONTROL_PLANE_COST_TAG, controlPlaneStackName, COST_TAGS } from '../shared/config/names.ts';
import { browserSizeProblem } from '../shared/config/browser-size.ts';
import { imageVariantProblem, runtimeImageBuildArgs, type RuntimeImageVariant } from '../shared/config/image-variant.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import { DEFAULT_RUNTIME_KIND, kindPlacementProblem } from '../shared/config/runtime-kinds.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { durationMs, toScheduleExpression, type JobSchedule } from '../shared/cron/expression.ts';
import { ClawfleetError, ConfigError, type ConfigIssue } from '../shared/errors.ts';
import { AgentStack } from './agent-stack.ts';
import { REPO_ROOT, type FleetAppOptions } from './app-options.ts';
import { CONTROL_FUNCTIONS, type ControlFunctionSpec } from './constructs/control-functions.ts';
import { ControlPlaneStack } from './control-plane-stack.ts';
import { planFleetSkills } from './fleet-skills-plan.ts';
import { MAX_EGRESS_PORTS, runtimeEgressPorts } from './runtime-egress.ts';
import { fleetSubnetPlan } from './fleet-subnets.ts';

export interface FleetStacks {
  controlPlane: ControlPlaneStack;
  agents: Map<string, AgentStack>;
}

export interface BuildFleetExtras {
  /**
   * The file `config` was parsed from (copied into the function bundles). Defaults to
   * options.configPath; pass `null` for an in-memory config where bundling is skipped.
   */
  configFile?: string | null;
  /** Override the control-plane function list (tests). */
  functions?: readonly ControlFunctionSpec[];
  /** Run cdk-nag's AwsSolutions checks at synth (default true). */
  nag?: boolean;
}

/** The runtime image's build context: the repository, minus all the runtime does not need. */
const RUNTIME_IMAGE_CONTEXT = [
  '*',
  '!runtime-image',
  '!shared',
  '!package.json',
  '!package-lock.json',
  '!tsconfig.json',
  'runtime-image/dist',
  '**/node_modules',
];
const RUNTIME_DOCKERFILE = 'runtime-image/Dockerfile';

// Build arguments per stage: shared with local mode's container launcher (local/runtime-images.ts).
export { runtimeImageBuildArgs };

export function buildFleet(app: App, config: FleetConfig, options: FleetAppOptions, extras: BuildFleetExtras = {}): FleetStacks {
  const functions = extras.functions ?? CONTROL_FUNCTIONS;
  const fleetSkills = planFleetSkills(config, options.configPath);
  checkDeployable(config, options, fleetSkills.issues);
  const fleet = config.fleet;

  const controlPlane = new ControlPlaneStack(app, controlPlaneStackName(fleet), {
    stackName: controlPlaneStackName(fleet),
    description: `clawfleet ${fleet}: control plane (tables, functions, cluster, network)`,
    // Deleting it by mistake would take every function and the network with it: a delete is
    // refused until an operator turns this off (`clawfleet destroy` does, after its plan).
    terminationProtection: true,
    config,
    options,
    configFile: extras.configFile === null ? undefined : (extras.configFile ?? options.configPath),
    functions,
  });

  const defaultImage = runtimeImages(options);
  const agents = new Map<string, AgentStack>();
  for (const agent of config.agents.list) {
    const name = agentStackName(fleet, agent.id);
    agents.set(
      agent.id,
      new AgentStack(app, name, {
        stackName: name,
        description: `clawfleet ${fleet}: agent ${agent.id} (queues, secret, runtime, workspace, logs)`,
        config,
        agentId: agent.id,
        options,
        controlPlane,
        defaultImage,
        imageFromRegistry: (image) => ecs.ContainerImage.fromRegistry(image),
        fleetSkills: fleetSkills.agents.get(agent.id)?.bundle,
        creating: options.newAgents === 'all' || options.newAgents.has(agent.id),
      }),
    );
  }

  // Cost per agent: every taggable resource, and the tasks ECS runs (agent-runtime.ts propagates them).
  Tags.of(controlPlane).add(COST_TAGS.fleet, fleet);
  Tags.of(controlPlane).add(COST_TAGS.agent, CONTROL_PLANE_COST_TAG);
  for (const [id, stack] of agents) {
    Tags.of(stack).add(COST_TAGS.fleet, fleet);
    Tags.of(stack).add(COST_TAGS.agent, id);
  }

  if (extras.nag ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { controlPlane, agents };
}

/** The Docker platform an image is built for, per task architecture. */
const IMAGE_PLATFORMS: Record<CpuArchitecture, Platform> = { arm64: Platform.LINUX_ARM64, x86_64: Platform.LINUX_AMD64 };

/**
 * The runtime image for each architecture agents run on: built from runtime-image/ (a
 * Docker image asset per platform, made once however many agents use it: synth only
 * hashes the context, `cdk deploy` builds and pushes it), or a registry image where Docker
 * image assets are unavailable (the emulator; a multi-architecture image serves both).
 */
function runtimeImages(options: FleetAppOptions): (architecture: CpuArchitecture, variant: RuntimeImageVariant) => ecs.ContainerImage {
  if (options.runtimeImage) {
    const image = ecs.ContainerImage.fromRegistry(options.runtimeImage);
    return () => image;
  }
  if (!existsSync(join(REPO_ROOT, RUNTIME_DOCKERFILE))) {
    throw new ClawfleetError('RUNTIME_IMAGE_MISSING', `${RUNTIME_DOCKERFILE} not found; build it, or pass -c runtimeImage=<registry image>`);
  }
  const built = new Map<string, ecs.ContainerImage>();
  return (architecture, variant) => {
    const key = `${architecture}/${variant}`;
    let image = built.get(key);
    if (!image) {
      // Each variant is the Dockerfile stage of its name: "browser" the runtime plus Chromium,
      // "openclaw" the runtime bundle plus the pinned OpenClaw.
      const buildArgs = runtimeImageBuildArgs(variant);
      image = ecs.ContainerImage.fromAsset(REPO_ROOT, {
        file: RUNTIME_DOCKERFILE,
        exclude: RUNTIME_IMAGE_CONTEXT,
        platform: IMAGE_PLATFORMS[architecture],
        target: variant,
        ...(buildArgs ? { buildArgs } : {}),
      });
      built.set(key, image);
    }
    return image;
  };
}

/** What the schema accepts but this deployment cannot honour, all reported at once (the fleet skills' issues among them). */
function checkDeployable(config: FleetConfig, options: FleetAppOptions, skillsIssues: readonly ConfigIssue[]): void {
  const issues: ConfigIssue[] = [...skillsIssues];
  if (options.newAgents !== 'all') {
    const known = new Set(config.agents.list.map((a) => a.id));
    for (const id of options.newAgents)
      if (!known.has(id)) issues.push({ path: 'context.newAgents', message: `names "${id}", which is no agent of this fleet` });
  }
  // (An agent id ending in "-dlq", whose queues would collide with a DLQ, is refused by parseConfig.)
  config.agents.list.forEach((agent, i) => {
    const resolved = resolveAgent(config, agent.id);
    const heartbeat = resolved.heartbeat;
    if (heartbeat) expressible(issues, `agents.list[${i}].heartbeat.every`, { kind: 'every', everyMs: durationMs(heartbeat.every) });
    // A runtime kind this deployment cannot run (none today; the seam for the next kind) is
    // refused here, not left to fail in its task; so is an agent no image stage fits.
    const placement = kindPlacementProblem(resolved.runtime.kind ?? DEFAULT_RUNTIME_KIND, 'aws');
    if (placement) issues.push({ path: `agents.list[${i}].runtime.kind`, message: placement });
    const variant = resolved.runtime.image === undefined ? imageVariantProblem(resolved) : undefined;
    if (variant) issues.push({ path: `agents.list[${i}].tools.browser`, message: variant });
  });
  // A browser on a task too small for Chromium: refused here, with the size and why.
  config.agents.list.forEach((agent, i) => {
    const resolved = resolveAgent(config, agent.id);
    const problem = browserSizeProblem(resolved, resolved.runtime);
    if (problem) issues.push({ path: `agents.list[${i}].runtime`, message: problem });
  });
  const subnets = fleetSubnetPlan(config);
  if (subnets.problem) issues.push({ path: 'agents.list', message: subnets.problem });
  const egress = runtimeEgressPorts(config);
  if (egress.length > MAX_EGRESS_PORTS)
    issues.push({
      path: 'agents',
      message: `the runtimes would need ${egress.length} outbound ports (${egress.map((p) => p.port).join(', ')}); a security group takes at most ${MAX_EGRESS_PORTS} here`,
    });
  config.cron?.jobs.forEach((job, i) => {
    expressible(issues, `cron.jobs[${i}].schedule`, job.schedule.kind === 'every' ? { kind: 'every', everyMs: durationMs(job.schedule.every) } : job.schedule);
  });
  if (issues.length > 0) throw new ConfigError(issues, 'clawfleet.json (for deployment)');
}

/** A schedule EventBridge Scheduler cannot express is reported with its path, beside every other problem. */
function expressible(issues: ConfigIssue[], path: string, schedule: JobSchedule): void {
  try {
    toScheduleExpression(schedule);
  } catch (err) {
    if (!(err instanceof ClawfleetError)) throw err;
    issues.push({ path, message: err.message });
  }
}
