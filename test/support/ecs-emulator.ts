// A MiniStack of one test file's own that runs ECS tasks as containers: the pinned MiniStack
// with the `docker` Python package beside it (its own venv, .cache/ministack-ecs-venv), told
// the image tests' engine (DOCKER_HOST). The tests' shared emulator stays without it, so no
// other file's service ever starts a container behind its back. Its emulated task credentials
// carry no 12-digit key, so MiniStack puts their calls in MINISTACK_ACCOUNT_ID: the account
// this file deploys into. And the ECS gap it works around (docs/testing.md, "ECS on the
// emulator"): a task in awsvpc mode gets AWS_CONTAINER_CREDENTIALS_FULL_URI on
// host.docker.internal, which the AWS SDK refuses (only https, loopback, or ECS's and EKS's
// link-local hosts), while one in host mode gets it on 127.0.0.1 — so each service is moved to a
// revision of its deployed task definition that differs in networkMode, and in the region
// variables Fargate's agent adds to a container's environment and MiniStack does not.
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeServicesCommand, ECSClient, UpdateServiceCommand } from '@aws-sdk/client-ecs';
import { agentServiceName, agentStackName, clusterName } from '../../shared/config/names.ts';
import { randomAccountId, type AwsTestEnv } from './aws.ts';
import { ensureVenv, startMiniStack, type Running } from './global-setup.ts';
import { ecsJson, type DeployedFleet } from './image-deploy.ts';

const CACHE = join(resolve(fileURLToPath(new URL('../../', import.meta.url))), '.cache');
/** Pinned: MiniStack imports it to run ECS tasks (docker.from_env, DOCKER_HOST). */
const DOCKER_PY = 'docker==7.1.0';

export interface EcsEmulator {
  aws: AwsTestEnv;
  stop(): Promise<void>;
}

/** Installs (once) and starts the ECS-running MiniStack on the engine at `dockerHost`. */
export async function startEcsEmulator(dockerHost: string): Promise<EcsEmulator> {
  const python = await ensureVenv(CACHE, { name: 'ministack-ecs-venv', extras: [DOCKER_PY] });
  const accountId = randomAccountId();
  const running: Running = await startMiniStack(
    python,
    { DOCKER_HOST: dockerHost, MINISTACK_ACCOUNT_ID: accountId, AWS_REGION: 'us-east-1' },
    join(CACHE, 'ministack-ecs.log'),
  );
  return {
    aws: { endpoint: running.endpoint, region: 'us-east-1', credentials: { accessKeyId: accountId, secretAccessKey: 'test' }, accountId },
    stop: running.stop,
  };
}

/**
 * Registers a revision of `agentId`'s deployed task definition, as the emulator answers it,
 * with networkMode "host" and AWS_REGION / AWS_DEFAULT_REGION (as Fargate sets them) and
 * nothing else changed, and points its service at it (the desired
 * count stays λ compute's). Returns the new revision's ARN.
 */
export async function useHostNetwork(aws: AwsTestEnv, fleet: DeployedFleet, agentId: string): Promise<string> {
  const { taskDefinition } = (await ecsJson(aws, 'DescribeTaskDefinition', { taskDefinition: agentStackName(fleet.config.fleet, agentId) })) as {
    taskDefinition: Record<string, unknown>;
  };
  const {
    taskDefinitionArn: _arn,
    revision: _revision,
    status: _status,
    requiresAttributes: _requires,
    compatibilities: _compat,
    registeredAt: _at,
    registeredBy: _by,
    deregisteredAt: _gone,
    ...definition
  } = taskDefinition;
  if (definition.networkMode !== 'awsvpc') throw new Error(`the deployed task definition's networkMode is ${String(definition.networkMode)}, not awsvpc`);
  // Fargate's agent puts the task's region in every container's environment; MiniStack does not.
  const containers = (definition.containerDefinitions as Record<string, unknown>[]).map((c) => {
    const env = (c.environment ?? c.Environment ?? []) as Record<string, string>[];
    const [name, value] = env[0] && 'Name' in env[0] ? ['Name', 'Value'] : ['name', 'value'];
    const added = ['AWS_REGION', 'AWS_DEFAULT_REGION'].map((n) => ({ [name]: n, [value]: aws.region }));
    return { ...c, [c.Environment ? 'Environment' : 'environment']: [...env, ...added] };
  });
  const registered = (await ecsJson(aws, 'RegisterTaskDefinition', { ...definition, containerDefinitions: containers, networkMode: 'host' })) as {
    taskDefinition: { taskDefinitionArn: string };
  };
  const arn = registered.taskDefinition.taskDefinitionArn;
  const ecs = new ECSClient(aws);
  try {
    const cluster = clusterName(fleet.config.fleet);
    const service = agentServiceName(agentId);
    await ecs.send(new UpdateServiceCommand({ cluster, service, taskDefinition: arn }));
    const { services = [] } = await ecs.send(new DescribeServicesCommand({ cluster, services: [service] }));
    if (services[0]?.taskDefinition !== arn) throw new Error(`service ${service} still runs ${services[0]?.taskDefinition}, not ${arn}`);
  } finally {
    ecs.destroy();
  }
  return arn;
}
