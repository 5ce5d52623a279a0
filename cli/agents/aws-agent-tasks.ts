// An agent's ECS side, for `clawfleet agents remove --aws`: its service stopped and its task
// waited out (a task told to stop drains its turn into the workspace first), then the one-off
// archive task its stack has (infra/constructs/workspace-archive.ts) run where the runtime runs
// and waited for. It refuses to archive while the runtime runs: a deployed control plane that
// still lists the agent could wake it, and two writers would share the workspace.
import { agentArchivePath, agentArchiveTaskFamily, agentLogGroupName, agentServiceName, clusterName } from '../../shared/config/names.ts';
import type { AgentNetwork, RemovalCompute, RemovalLogs } from '../../shared/deploy/agent-removal-ports.ts';
import { awsErrorText } from '../aws-errors.ts';
import { StepFailed, type StepResult } from '../steps.ts';

/** How a one-off task ended. */
export interface TaskEnd {
  exitCode: number | undefined;
  reason: string | undefined;
}

export interface AgentTasksOptions {
  pollMs: number;
  serviceTimeoutMs: number;
  archiveTimeoutMs: number;
  /**
   * Waits until the archive task has stopped. The default polls ECS; the emulator runs no
   * containers (its tasks never stop), so its test passes its own (docs/testing.md).
   */
  waitForTask?: ((taskArn: string) => Promise<TaskEnd>) | undefined;
}

const STARTED_BY = 'clawfleet-agents-remove';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class AgentTasks {
  constructor(
    private readonly compute: RemovalCompute,
    private readonly logs: RemovalLogs,
    private readonly fleet: string,
    private readonly opts: AgentTasksOptions,
  ) {}

  async stop(agentId: string): Promise<StepResult> {
    const cluster = clusterName(this.fleet);
    const service = agentServiceName(agentId);
    try {
      await this.compute.stopService(agentId);
    } catch (err) {
      if (/ServiceNotFound|ServiceNotActive|ClusterNotFound/.test((err as Error).name))
        return { status: 'skipped', detail: `no service ${service} in ${cluster}` };
      throw new StepFailed(
        awsErrorText(`cannot set ${service}'s desired count to 0`, err),
        'check your credentials may ecs:UpdateService, then run this again',
      );
    }
    const deadline = Date.now() + this.opts.serviceTimeoutMs;
    for (;;) {
      const running = await this.serviceTasks(agentId);
      if (running === 0) return { status: 'done', detail: `${service} at 0, no task running` };
      if (Date.now() > deadline) {
        throw new StepFailed(
          `${service} still has ${running} task(s) after ${this.opts.serviceTimeoutMs / 60_000} min`,
          `see aws ecs describe-services --cluster ${cluster} --services ${service}; run this again once it has stopped`,
        );
      }
      await sleep(this.opts.pollMs);
    }
  }

  async archive(agentId: string): Promise<StepResult> {
    const family = agentArchiveTaskFamily(this.fleet, agentId);
    await this.expectStopped(agentId, 'before the archive');
    const network = await this.serviceNetwork(agentId);
    let taskArn: string | undefined;
    try {
      taskArn = await this.compute.startArchive(agentId, network, STARTED_BY);
    } catch (err) {
      throw new StepFailed(
        awsErrorText(`cannot run task ${family}`, err),
        'check your credentials may ecs:RunTask and iam:PassRole its roles; nothing was changed, run this again',
      );
    }
    if (!taskArn) throw new StepFailed(`RunTask ${family} started no task`, 'run this again');
    const taskId = taskArn.split('/').pop()!;
    const logStream = `archive/Archive/${taskId}`;
    const end = await (this.opts.waitForTask ?? ((arn) => this.waitForTask(arn)))(taskArn);
    if (end.exitCode !== 0) {
      throw new StepFailed(
        `archive task ${taskId} ended ${end.exitCode === undefined ? 'without an exit code' : `with exit code ${end.exitCode}`}${end.reason ? ` (${end.reason})` : ''}`,
        `its log: ${agentLogGroupName(this.fleet, agentId)} stream ${logStream}. The workspace is emptied only after a complete copy; fix the cause and run this again`,
      );
    }
    await this.expectStopped(agentId, 'while the archive ran');
    const said = await this.archiveLine(agentId, logStream);
    return {
      status: 'done',
      detail:
        said ??
        `task ${taskId} copied the workspace to ${agentArchivePath(agentId)}/<date>/ and emptied it (log: ${agentLogGroupName(this.fleet, agentId)} ${logStream})`,
    };
  }

  /**
   * Tasks of the agent's service not yet stopped. A task told to stop is listed as desired
   * STOPPED at once but runs on while it drains its turn (up to its stop timeout), still
   * writing the workspace: it counts until its last status is STOPPED.
   */
  private async serviceTasks(agentId: string): Promise<number> {
    try {
      return await this.compute.alive(agentId);
    } catch (err) {
      if (/ServiceNotFound|ClusterNotFound/.test((err as Error).name)) return 0;
      throw new StepFailed(awsErrorText(`cannot list the tasks of ${agentServiceName(agentId)}`, err), 'run this again');
    }
  }

  /** The runtime must not run while its workspace is copied: were it woken (a deployed control plane that still lists it), stop. */
  private async expectStopped(agentId: string, when: string): Promise<void> {
    const desired = (await this.compute.service(agentId))?.desiredCount ?? 0;
    const running = await this.serviceTasks(agentId);
    if (desired > 0 || running > 0) {
      throw new StepFailed(
        `${agentServiceName(agentId)} was started again ${when} (desired ${desired}, ${running} task(s))`,
        `the deployed control plane still lists ${agentId}: deploy it without the agent (npx cdk deploy ${this.fleet}-control-plane), then run this again`,
      );
    }
  }

  /** The archive task runs where the runtime runs: the service's subnets and security group, with a public IP. */
  private async serviceNetwork(agentId: string): Promise<AgentNetwork> {
    const network = (await this.compute.service(agentId))?.network;
    if (!network)
      throw new StepFailed(
        `${agentServiceName(agentId)} has no network settings to run the archive task with`,
        'deploy the agent stack again (npx cdk deploy --all), then run this again',
      );
    return network;
  }

  private async waitForTask(taskArn: string): Promise<TaskEnd> {
    const deadline = Date.now() + this.opts.archiveTimeoutMs;
    for (;;) {
      const task = await this.compute.task(taskArn);
      if (task?.status === 'STOPPED') return { exitCode: task.exitCode, reason: task.reason };
      if (Date.now() > deadline) {
        throw new StepFailed(
          `archive task ${taskArn.split('/').pop()} still ${task?.status ?? 'unknown'} after ${this.opts.archiveTimeoutMs / 60_000} min`,
          'run this again once it has stopped (a second archive copies what is left, harmlessly)',
        );
      }
      await sleep(this.opts.pollMs);
    }
  }

  /** The archive script's last line ("workspace archived", where to, how much), from its log; undefined if it cannot be read. */
  private async archiveLine(agentId: string, logStream: string): Promise<string | undefined> {
    try {
      const said = await this.logs.matching(agentLogGroupName(this.fleet, agentId), logStream, '"workspace archived"');
      const line = JSON.parse(said.at(-1) ?? '') as { to?: string; files?: number; bytes?: number; skipped?: string[] };
      if (!line.to) return undefined;
      return `copied ${line.files} file(s), ${line.bytes} bytes, to ${line.to.replace(/^\/archive/, agentArchivePath(agentId))} on the fleet's file system, and emptied the workspace${line.skipped?.length ? ` (left out, not regular files: ${line.skipped.join(', ')})` : ''}`;
    } catch {
      return undefined;
    }
  }
}
