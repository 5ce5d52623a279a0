// The one-off workspace task as the tests run it: ECS on the emulator only records a RunTask,
// so the task's container is played by the runtime bundle's workspace-sync entry run with
// node, from a copy of the bundle outside the repository (no node_modules above it: the
// bundle must carry the S3 client itself), against the emulator's S3, on a folder standing
// for the agent's directory on EFS, with the environment the task definition and RunTask's
// overrides would give it.
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { freshBundle } from '../../bin/bundles.js';
import type { TaskState, WorkspaceTaskRun, WorkspaceTaskRunner } from '../../shared/workspace/task-runner.ts';
import type { AwsTestEnv } from './aws.ts';
import { tempDir } from './temp-dirs.ts';

/** The bundle's workspace-sync entry, copied where no node_modules can help it. */
export function isolatedSyncEntry(): string {
  // Built (or found fresh) by the project's global setup, test/support/build-bundles.ts.
  const main = freshBundle('runtime');
  if (!main) throw new Error('the runtime bundle does not match the sources; run `npm run build`');
  const app = join(tempDir('cf-sync-app-'), 'dist');
  cpSync(dirname(main), app, { recursive: true });
  return join(app, 'workspace-sync.mjs');
}

export interface SyncProcess {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: string | null }>;
  output: () => string;
}

/** Runs the entry once with `env` (plus the emulator's endpoint and this file's account). */
export function runSyncEntry(entry: string, aws: AwsTestEnv, env: Record<string, string>): SyncProcess {
  const child = spawn(process.execPath, ['--enable-source-maps', entry], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      AWS_ENDPOINT_URL: aws.endpoint,
      AWS_REGION: aws.region,
      AWS_ACCESS_KEY_ID: aws.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: aws.credentials.secretAccessKey,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited, output: () => out };
}

/** The task runner of `workspace push|pull --aws`, each run a process of the entry on the agent's "EFS" folder. */
export class ProcessWorkspaceRunner implements WorkspaceTaskRunner {
  readonly runs = new Map<string, SyncProcess & { run: WorkspaceTaskRun }>();
  /** Called with each run's process as it starts (a test may kill it halfway). */
  onStart: ((p: SyncProcess, run: WorkspaceTaskRun) => void | Promise<void>) | undefined;
  /** Called before a run starts (a test may change what is staged). */
  beforeStart: ((run: WorkspaceTaskRun) => Promise<void>) | undefined;

  constructor(
    private readonly entry: string,
    private readonly aws: AwsTestEnv,
    private readonly bucket: string,
    private readonly efs: (agentId: string) => string,
  ) {}

  async start(agentId: string, run: WorkspaceTaskRun): Promise<string> {
    await this.beforeStart?.(run);
    const p = runSyncEntry(this.entry, this.aws, {
      CLAWFLEET_AGENT_ID: agentId,
      CLAWFLEET_WORKSPACE: this.efs(agentId),
      CLAWFLEET_STAGING_BUCKET: this.bucket,
      CLAWFLEET_STAGING_PREFIX: `${agentId}/`,
      CLAWFLEET_SYNC_ACTION: run.action,
      CLAWFLEET_SYNC_TRANSFER: run.transfer,
      CLAWFLEET_SYNC_FORCE: run.force ? '1' : '0',
    });
    const id = `task-${run.transfer}`;
    this.runs.set(id, { ...p, run });
    await this.onStart?.(p, run);
    return id;
  }

  async state(taskId: string): Promise<TaskState> {
    const p = this.runs.get(taskId);
    if (!p) return { done: true, exitCode: undefined, reason: 'no such task' };
    const ended = await Promise.race([p.exited, new Promise<undefined>((r) => setTimeout(r, 50))]);
    if (!ended) return { done: false, status: 'RUNNING' };
    return { done: true, exitCode: ended.code ?? undefined, reason: ended.signal ? `killed by ${ended.signal}` : 'Essential container in task exited' };
  }

  async stop(taskId: string): Promise<void> {
    this.runs.get(taskId)?.child.kill('SIGTERM');
  }
}

/**
 * The task as ECS would run it from the deployed app: RunTask of the agent's workspace task
 * definition goes to the emulator's ECS (which records it, with its overrides, and runs
 * nothing), then the container is played: the entry named by the task definition's command,
 * with the task definition's environment and RunTask's overrides, on `efs` standing for
 * the mounted /workspace.
 */
export class DeployedWorkspaceRunner implements WorkspaceTaskRunner {
  readonly started: { arn: string; environment: Record<string, string>; command: string[]; taskRoleArn: string | undefined; overrides: unknown }[] = [];
  private readonly processes = new Map<string, SyncProcess>();

  constructor(
    private readonly ecsTasks: WorkspaceTaskRunner,
    private readonly describe: (
      arn: string,
    ) => Promise<{ environment: Record<string, string>; command: string[]; taskRoleArn: string | undefined; overrides: unknown }>,
    private readonly entry: string,
    private readonly aws: AwsTestEnv,
    private readonly efs: string,
  ) {}

  async start(agentId: string, run: WorkspaceTaskRun): Promise<string> {
    const arn = await this.ecsTasks.start(agentId, run);
    const task = await this.describe(arn);
    this.started.push({ arn, ...task });
    if (task.command.at(-1) !== '/app/dist/workspace-sync.mjs') throw new Error(`the task runs ${task.command.join(' ')}, not the workspace-sync entry`);
    this.processes.set(arn, runSyncEntry(this.entry, this.aws, { ...task.environment, CLAWFLEET_WORKSPACE: this.efs }));
    return arn;
  }

  async state(taskId: string): Promise<TaskState> {
    const p = this.processes.get(taskId)!;
    const ended = await Promise.race([p.exited, new Promise<undefined>((r) => setTimeout(r, 50))]);
    if (!ended) return { done: false, status: 'RUNNING' };
    return { done: true, exitCode: ended.code ?? undefined, reason: ended.signal ? `killed by ${ended.signal}` : 'Essential container in task exited' };
  }

  async stop(taskId: string, reason: string): Promise<void> {
    this.processes.get(taskId)?.child.kill('SIGTERM');
    await this.ecsTasks.stop(taskId, reason);
  }
}
