// Removing an agent from the deployed fleet (`clawfleet agents remove|prune --aws`): stop its
// service, archive its workspace with the one-off task its stack has (infra/constructs/
// workspace-archive.ts), delete the schedules it made itself, delete its stack, then its
// records. The archive runs before the stack goes, since the task, its role and access points
// are in the stack; the records go last, once nothing (its outbox mapping) can write them.
import {
  DeleteStackCommand,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  ListStacksCommand,
  type StackStatus,
  CloudFormationClient,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECSClient } from '@aws-sdk/client-ecs';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
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
import { madeForAgent } from '../../shared/deploy/teardown.ts';
import type { AwsSettings } from '../aws-env.ts';
import { awsErrorText } from '../aws-errors.ts';
import { CliError, EXIT } from '../command.ts';
import { AgentRecords } from './aws-agent-records.ts';
import { AgentTasks, type AgentTasksOptions } from './aws-agent-tasks.ts';
import { AgentSchedules } from './aws-agent-schedules.ts';
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
  private readonly cfn: CloudFormationClient;
  private readonly tasks: AgentTasks;
  private readonly sqs: SQSClient;
  private readonly schedules: AgentSchedules;
  private readonly records: AgentRecords;
  private readonly stackTimeoutMs: number;
  private readonly pollMs: number;
  private readonly where: string;

  constructor(
    private readonly fleet: string,
    private readonly aws: AwsSettings,
    opts: AwsRemovalOptions = {},
  ) {
    this.cfn = new CloudFormationClient(aws);
    this.where = opts.where ?? `fleet "${fleet}" on AWS ${aws.region}`;
    this.pollMs = opts.pollMs ?? 3_000;
    this.stackTimeoutMs = opts.stackTimeoutMs ?? 30 * 60_000;
    this.tasks = new AgentTasks(new ECSClient(aws), new CloudWatchLogsClient(aws), fleet, {
      pollMs: this.pollMs,
      serviceTimeoutMs: opts.serviceTimeoutMs ?? 3 * 60_000,
      archiveTimeoutMs: opts.archiveTimeoutMs ?? 15 * 60_000,
      waitForTask: opts.waitForTask,
    });
    this.sqs = new SQSClient(aws);
    this.schedules = new AgentSchedules(new SchedulerClient(aws), fleet);
    this.records = new AgentRecords(DynamoDBDocumentClient.from(new DynamoDBClient(aws)), fleet);
  }

  // ── Finding what an agent left ────────────────────────────────────────────────

  /** The agent's stack, or undefined once it is gone. */
  async stack(agentId: string): Promise<{ name: string; status: StackStatus | string; ours: boolean; description: string } | undefined> {
    const name = agentStackName(this.fleet, agentId);
    try {
      const s = (await this.cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
      if (!s || s.StackStatus === 'DELETE_COMPLETE') return undefined;
      const outputs = Object.fromEntries((s.Outputs ?? []).map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
      const ours = madeForAgent(this.fleet, agentId, { description: s.Description ?? '', outputs });
      return { name, status: s.StackStatus ?? 'UNKNOWN', ours, description: s.Description ?? '' };
    } catch (err) {
      if (/does not exist/.test((err as Error).message)) return undefined;
      throw new CliError(EXIT.failed, awsErrorText(`cannot describe stack ${name}`, err, this.aws));
    }
  }

  /**
   * Agents of this fleet found deployed or recorded: stacks named `<fleet>-agent-*`, registry
   * items, schedules agents made. A stack of that name that clawfleet did not make for an
   * agent comes back marked `foreign`: nothing may remove it.
   */
  async found(): Promise<{ id: string; where: string; foreign?: boolean }[]> {
    const out: { id: string; where: string; foreign?: boolean }[] = [];
    const prefix = `${this.fleet}-agent-`;
    let NextToken: string | undefined;
    do {
      const page = await this.call('list the stacks', () => this.cfn.send(new ListStacksCommand({ NextToken })));
      for (const s of page.StackSummaries ?? []) {
        if (s.StackStatus === 'DELETE_COMPLETE' || !s.StackName?.startsWith(prefix)) continue;
        const id = s.StackName.slice(prefix.length);
        const stack = /^[a-z][a-z0-9-]{0,23}$/.test(id) ? await this.stack(id) : undefined;
        out.push({ id, where: `stack ${s.StackName}`, ...(stack?.ours ? {} : { foreign: true }) });
      }
      NextToken = page.NextToken;
    } while (NextToken);
    for (const id of await this.records.registeredAgents()) out.push({ id, where: 'registry' });
    for (const name of await this.schedules.names('agent-')) {
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
        run: async () => (await this.records.markAsleep(agentId), this.tasks.stop(agentId)),
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
    const mine = await this.schedules.ownedBy(agentId);
    await this.schedules.delete(mine);
    return mine.length ? { status: 'done', detail: `deleted ${mine.join(', ')}` } : { status: 'skipped', detail: 'it made none' };
  }

  private async deleteStack(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const name = agentStackName(this.fleet, agentId);
    if (!(await this.stack(agentId))) return { status: 'skipped', detail: `${name} is gone already` };
    // By name: a stack id is another thing to CloudFormation (and the emulator ignores it).
    await this.call(`delete stack ${name}`, () => this.cfn.send(new DeleteStackCommand({ StackName: name })));
    const deadline = Date.now() + this.stackTimeoutMs;
    for (;;) {
      const s = await this.stack(agentId);
      if (!s) return { status: 'done', detail: `${name} deleted` };
      if (s.status === 'DELETE_FAILED') {
        throw new StepFailed(
          `stack ${name} is DELETE_FAILED: ${await this.failedResources(name)}`,
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
    const n = await this.records.delete(agentId);
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

  private async depth(queueName: string): Promise<number | undefined> {
    try {
      const { QueueUrl } = await this.sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
      const { Attributes } = await this.sqs.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
      );
      return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    } catch {
      return undefined;
    }
  }

  private async failedResources(stackName: string): Promise<string> {
    try {
      const { StackEvents = [] } = await this.cfn.send(new DescribeStackEventsCommand({ StackName: stackName }));
      const failed = StackEvents.filter((e) => e.ResourceStatus === 'DELETE_FAILED' && e.LogicalResourceId !== stackName);
      return (
        failed.map((e) => `${e.LogicalResourceId} (${e.ResourceType}): ${e.ResourceStatusReason ?? 'no reason given'}`).join('; ') || 'no failed resource named'
      );
    } catch {
      return 'its events could not be read';
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
