// Removing an agent from the deployed fleet (`clawfleet agents remove|prune --aws`): stop its
// service, archive its workspace with the one-off task its stack has (infra/constructs/
// workspace-archive.ts), delete the schedules it made itself, delete its stack, then its
// records. The archive runs before the stack goes, since the task, its role and access points
// are in the stack; the records go last, once nothing (its outbox mapping) can write them.
import {
  agentArchivePath,
  agentArchiveTaskFamily,
  agentDlqName,
  agentQueueName,
  agentSecretName,
  agentServiceName,
  agentStackName,
  agentWorkspacePath,
  outboxDlqName,
  scheduleGroupName,
} from '../../shared/config/names.ts';
import { agentRemovalPorts } from '../../shared/adapters/aws/cli-agent-removal-ports.ts';
import { AgentRecordsCallFailed } from '../../shared/adapters/aws/dynamo-agent-records.ts';
import type { RemovalQueues, RemovalRecords, RemovalSchedules, RemovalStacks } from '../../shared/deploy/agent-removal-ports.ts';
import { madeForAgent } from '../../shared/deploy/teardown.ts';
import type { AwsSettings } from '../aws-env.ts';
import { awsErrorText } from '../aws-errors.ts';
import { CliError, EXIT } from '../command.ts';
import { AgentTasks, type AgentTasksOptions } from './aws-agent-tasks.ts';
import { StepFailed, type RemovalPlan, type RemovalStep } from './removal.ts';

export type { TaskEnd } from './aws-agent-tasks.ts';

export interface AwsRemovalOptions extends Partial<Omit<AgentTasksOptions, 'waitForTask'>> {
  /** The fleet and where it was reached, for the plan's heading: `fleet "demo" on AWS account 123456789012, us-east-1`. */
  where?: string;
  stackTimeoutMs?: number;
  waitForTask?: AgentTasksOptions['waitForTask'];
}

/** Stack states in which CloudFormation is still at work: a removal waits for the operator rather than race it. */
const BUSY = /_IN_PROGRESS$/;

export class AwsAgentRemoval {
  private readonly stacks: RemovalStacks;
  private readonly tasks: AgentTasks;
  private readonly queues: RemovalQueues;
  private readonly schedules: RemovalSchedules;
  private readonly records: RemovalRecords;
  private readonly stackTimeoutMs: number;
  private readonly pollMs: number;
  private readonly where: string;

  constructor(
    private readonly fleet: string,
    private readonly aws: AwsSettings,
    opts: AwsRemovalOptions = {},
  ) {
    const ports = agentRemovalPorts(aws, fleet);
    this.stacks = ports.stacks;
    this.where = opts.where ?? `fleet "${fleet}" on AWS ${aws.region}`;
    this.pollMs = opts.pollMs ?? 3_000;
    this.stackTimeoutMs = opts.stackTimeoutMs ?? 30 * 60_000;
    this.tasks = new AgentTasks(ports.compute, ports.logs, fleet, {
      pollMs: this.pollMs,
      serviceTimeoutMs: opts.serviceTimeoutMs ?? 3 * 60_000,
      archiveTimeoutMs: opts.archiveTimeoutMs ?? 15 * 60_000,
      waitForTask: opts.waitForTask,
    });
    this.queues = ports.queues;
    this.schedules = ports.schedules;
    this.records = ports.records;
  }

  // ── Finding what an agent left ────────────────────────────────────────────────

  /** The agent's stack, or undefined once it is gone. */
  async stack(agentId: string): Promise<{ name: string; status: string; ours: boolean; description: string } | undefined> {
    const name = agentStackName(this.fleet, agentId);
    const s = await this.call(`describe stack ${name}`, () => this.stacks.get(name));
    if (!s) return undefined;
    const ours = madeForAgent(this.fleet, agentId, { description: s.description, outputs: s.outputs });
    return { name, status: s.status, ours, description: s.description };
  }

  /**
   * Agents of this fleet found deployed or recorded: stacks named `<fleet>-agent-*`, registry
   * items, schedules agents made. A stack of that name that clawfleet did not make for an
   * agent comes back marked `foreign`: nothing may remove it.
   */
  async found(): Promise<{ id: string; where: string; foreign?: boolean }[]> {
    const out: { id: string; where: string; foreign?: boolean }[] = [];
    const prefix = `${this.fleet}-agent-`;
    for (const name of await this.call('list the stacks', () => this.stacks.names(prefix))) {
      const id = name.slice(prefix.length);
      const stack = /^[a-z][a-z0-9-]{0,23}$/.test(id) ? await this.stack(id) : undefined;
      out.push({ id, where: `stack ${name}`, ...(stack?.ours ? {} : { foreign: true }) });
    }
    for (const id of await this.recordsCall(() => this.records.registeredAgents())) out.push({ id, where: 'registry' });
    for (const name of await this.scheduleNames(() => this.schedules.names('agent-'))) {
      const agentId = await this.schedules.agentOf(name);
      if (agentId) out.push({ id: agentId, where: `schedule ${name}` });
    }
    return out;
  }

  /** What removing `agentId` will do, step by step, with what the operator must know first. */
  async plan(agentId: string): Promise<RemovalPlan> {
    const stack = await this.stack(agentId);
    if (stack && !stack.ours) {
      throw new CliError(
        EXIT.failed,
        `stack ${stack.name} was not made by clawfleet for agent ${agentId} (neither its description "${stack.description}" nor its outputs say so): left alone`,
      );
    }
    if (stack && BUSY.test(stack.status) && stack.status !== 'DELETE_IN_PROGRESS') {
      throw new CliError(EXIT.failed, `stack ${stack.name} is ${stack.status}: wait until CloudFormation has finished, then run this again`);
    }
    const notes: string[] = [];
    const [inbox, dlq, outboxDlq] = await Promise.all([agentQueueName, agentDlqName, outboxDlqName].map((n) => this.depth(n(this.fleet, agentId))));
    if (inbox) notes.push(`${inbox} message(s) still waiting in ${agentQueueName(this.fleet, agentId)} are deleted with its stack`);
    if ((dlq ?? 0) + (outboxDlq ?? 0)) notes.push(`${(dlq ?? 0) + (outboxDlq ?? 0)} message(s) parked in its DLQs are deleted with its stack`);
    if (stack) {
      notes.push(
        `its secret ${agentSecretName(this.fleet, agentId)} is deleted with its stack at once, without a recovery window: keep its values elsewhere if the agent may come back`,
      );
    } else {
      notes.push(
        `no stack ${agentStackName(this.fleet, agentId)}: its service and workspace archive task are gone, so its workspace (${agentWorkspacePath(agentId)}) stays where it is, not archived (docs/operations.md says how to move it)`,
      );
    }

    const steps: RemovalStep[] = [];
    if (stack) {
      steps.push({
        name: 'stop',
        plan: `desired count 0 for service ${agentServiceName(agentId)}, and wait until its task has stopped`,
        run: async () => (await this.markAsleep(agentId), this.tasks.stop(agentId)),
      });
      steps.push({
        name: 'archive',
        plan: `run task ${agentArchiveTaskFamily(this.fleet, agentId)}: copy ${agentWorkspacePath(agentId)} to ${agentArchivePath(agentId)}/<date>/ on the fleet's file system, then empty it`,
        run: () => this.tasks.archive(agentId),
      });
    }
    steps.push({
      name: 'schedules',
      plan: `delete the schedules it made itself (agent-${agentId}-*) in ${scheduleGroupName(this.fleet)}`,
      run: () => this.deleteOwnSchedules(agentId),
    });
    if (stack)
      steps.push({
        name: 'stack',
        plan: `delete stack ${stack.name} (queues, secret, service, roles, access points, log group, config schedules) and wait`,
        run: () => this.deleteStack(agentId),
      });
    steps.push({
      name: 'records',
      plan: `delete its registry, metrics, session and origin records in ${this.fleet}-registry, -sessions and -origins`,
      run: () => this.deleteRecords(agentId),
    });
    return { agentId, where: this.where, notes, steps };
  }

  // ── The steps ───────────────────────────────────────────────────────────────────

  private async deleteOwnSchedules(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const mine = await this.scheduleNames(() => this.schedules.ownedBy(agentId));
    for (const name of mine) {
      try {
        await this.schedules.delete(name);
      } catch (err) {
        throw new StepFailed(awsErrorText(`cannot delete schedule ${name}`, err), 'run this again');
      }
    }
    return mine.length ? { status: 'done', detail: `deleted ${mine.join(', ')}` } : { status: 'skipped', detail: 'it made none' };
  }

  private async deleteStack(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const name = agentStackName(this.fleet, agentId);
    if (!(await this.stack(agentId))) return { status: 'skipped', detail: `${name} is gone already` };
    // By name: a stack id is another thing to CloudFormation (and the emulator ignores it).
    await this.call(`delete stack ${name}`, () => this.stacks.delete(name));
    const deadline = Date.now() + this.stackTimeoutMs;
    for (;;) {
      const s = await this.stack(agentId);
      if (!s) return { status: 'done', detail: `${name} deleted` };
      if (s.status === 'DELETE_FAILED') {
        throw new StepFailed(
          `stack ${name} is DELETE_FAILED: ${await this.stacks.failedResources(name)}`,
          'fix or delete those resources by hand, then run this again (CloudFormation retries the delete)',
        );
      }
      if (Date.now() > deadline)
        throw new StepFailed(
          `stack ${name} still ${s.status} after ${this.stackTimeoutMs / 60_000} min`,
          'watch it in the CloudFormation console; run this again once it is gone',
        );
      await sleep(this.pollMs);
    }
  }

  private async deleteRecords(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const n = await this.recordsCall(() => this.records.delete(agentId));
    return n.registry + n.sessions + n.origins
      ? { status: 'done', detail: `deleted ${n.registry} registry, ${n.sessions} session and ${n.origins} origin record(s)` }
      : { status: 'skipped', detail: 'none left' };
  }

  // ── Helpers ─────────────────────────────────────────────────────────────────────

  private async call<T>(what: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot ${what}`, err, this.aws));
    }
  }

  /** Messages in the queue, waiting or in flight; undefined when it cannot be read (gone, or not allowed). */
  private async depth(queueName: string): Promise<number | undefined> {
    try {
      const counts = await this.queues.counts(queueName);
      return counts && counts.visible + counts.inFlight;
    } catch {
      return undefined;
    }
  }

  /** Asleep in the registry before its service stops; an agent without an item (or a table) has nothing to mark. */
  private async markAsleep(agentId: string): Promise<void> {
    try {
      await this.records.markAsleep(agentId, Date.now());
    } catch (err) {
      throw new StepFailed(awsErrorText('cannot mark the agent asleep in the registry', err), 'run this again');
    }
  }

  /** A failed scan stops the command; a failed delete stops the step, to be run again. */
  private async recordsCall<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      if (!(err instanceof AgentRecordsCallFailed)) throw err;
      if (err.action === 'scan') throw new CliError(EXIT.failed, awsErrorText(err.message, err.cause));
      if (err.action === 'throttled') throw new StepFailed(err.message, 'run this again in a minute');
      throw new StepFailed(awsErrorText(err.message, err.cause), 'run this again');
    }
  }

  private async scheduleNames(f: () => Promise<string[]>): Promise<string[]> {
    try {
      return await f();
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot list the schedules of ${scheduleGroupName(this.fleet)}`, err));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
