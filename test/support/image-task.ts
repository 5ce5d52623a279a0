// One agent of the deployed image fleet, run as ECS would run its tasks: its task definition
// read back from the emulator, its workspace a directory standing in for the EFS access point
// it mounts, each task started from the image stage built for it (task-runner.ts) and handed
// back once its runtime is ready.
import { rmSync } from 'node:fs';
import { tempDir } from './temp-dirs.ts';
import type { AwsTestEnv } from './aws.ts';
import type { TaskDefinition } from './ecs-task-definition.ts';
import type { DeployedFleet } from './image-deploy.ts';
import { runTask, type TaskRun, type TaskRunOptions, workspaceFor } from './task-runner.ts';

export interface AgentTasks {
  agentId: string;
  taskDefinition: TaskDefinition;
  /** The workspace's host directory (the access point's root), the same for every task. */
  workspace: string;
  /** Starts a task and waits for its runtime's `ready` line; `startMs` is how long that took. */
  start(extra?: Pick<TaskRunOptions, 'env' | 'pidsLimit'> & { readyTimeoutMs?: number }): Promise<TaskRun & { startMs: number }>;
  remove(): void;
}

export async function agentTasks(aws: AwsTestEnv, fleet: DeployedFleet, agentId: string, image: string, loopbackPorts: number[]): Promise<AgentTasks> {
  const taskDefinition = await fleet.taskDefinition(agentId);
  const volume = taskDefinition.volumes.find((v) => v.name === 'workspace');
  const accessPointId = volume?.efsVolumeConfiguration.authorizationConfig?.accessPointId;
  if (!accessPointId) throw new Error(`${agentId}'s task definition mounts no workspace through an access point`);
  const efsRoot = tempDir('cf-efs-');
  const workspace = workspaceFor(efsRoot, await fleet.accessPoint(accessPointId));
  let started = 0;
  return {
    agentId,
    taskDefinition,
    workspace,
    async start(extra = {}) {
      const t0 = performance.now();
      const task = await runTask({
        name: `cf-${fleet.config.fleet}-${agentId}-${aws.accountId}-${++started}`,
        taskDefinition,
        image,
        volumes: { workspace },
        loopbackPorts: [Number(new URL(aws.endpoint).port), ...loopbackPorts],
        credentials: { accessKeyId: aws.accountId, secretAccessKey: aws.credentials.secretAccessKey },
        region: aws.region,
        // Not ECS's: where "AWS" is, here.
        env: { AWS_ENDPOINT_URL: aws.endpoint, ...extra.env },
        ...(extra.pidsLimit ? { pidsLimit: extra.pidsLimit } : {}),
      });
      try {
        await task.waitFor((l) => l.msg === 'ready', extra.readyTimeoutMs ?? 120_000);
      } catch (err) {
        await task.remove();
        throw err;
      }
      return Object.assign(task, { startMs: Math.round(performance.now() - t0) });
    },
    remove: () => rmSync(efsRoot, { recursive: true, force: true }),
  };
}
