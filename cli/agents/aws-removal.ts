// Removing an agent from the deployed fleet (`clawfleet agents remove|prune --aws`): stop its
// service, archive its workspace with the one-off task its stack has (infra/constructs/
// workspace-archive.ts), delete the schedules it made itself, delete its stack, then its
// records. The archive runs before the stack goes, since the task, its role and access points
// are in the stack; the records go last, once nothing (its outbox mapping) can write them.
import { DeleteStackCommand, DescribeStackEventsCommand, DescribeStacksCommand, ListStacksCommand, type StackStatus, CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient, FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DescribeServicesCommand, DescribeTasksCommand, ECSClient, ListTasksCommand, RunTaskCommand, UpdateServiceCommand, type NetworkConfiguration } from '@aws-sdk/client-ecs';
import { DeleteScheduleCommand, GetScheduleCommand, ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand, DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  agentArchivePath,
  agentArchiveTaskFamily,
  agentDlqName,
  agentLogGroupName,
  agentQueueName,
  agentSecretName,
  agentServiceName,
  agentStackName,
  agentWorkspacePath,
  clusterName,
  outboxDlqName,
  scheduleGroupName,
  tableNames,
} from '../../shared/config/names.ts';
import { awsErrorText, type AwsSettings } from '../aws-env.ts';
import { CliError, EXIT } from '../command.ts';
import { StepFailed, type RemovalPlan, type RemovalStep } from './removal.ts';

/** How a one-off task ended. */
export interface TaskEnd {
  exitCode: number | undefined;
  reason: string | undefined;
}

export interface AwsRemovalOptions {
  pollMs?: number;
  serviceTimeoutMs?: number;
  archiveTimeoutMs?: number;
  stackTimeoutMs?: number;
  /**
   * Waits until the archive task has stopped. The default polls ECS; the emulator runs no
   * containers (its tasks never stop), so its test passes its own (docs/testing.md).
   */
  waitForTask?(taskArn: string): Promise<TaskEnd>;
}

const STARTED_BY = 'clawfleet-agents-remove';
/** Stack states in which CloudFormation is still at work: a removal waits for the operator rather than race it. */
const BUSY = /_IN_PROGRESS$/;

export class AwsAgentRemoval {
  private readonly cfn: CloudFormationClient;
  private readonly ecs: ECSClient;
  private readonly sqs: SQSClient;
  private readonly scheduler: SchedulerClient;
  private readonly db: DynamoDBDocumentClient;
  private readonly logs: CloudWatchLogsClient;
  private readonly opts: Required<Omit<AwsRemovalOptions, 'waitForTask'>> & Pick<AwsRemovalOptions, 'waitForTask'>;

  constructor(
    private readonly fleet: string,
    private readonly aws: AwsSettings,
    opts: AwsRemovalOptions = {},
  ) {
    this.cfn = new CloudFormationClient(aws);
    this.ecs = new ECSClient(aws);
    this.sqs = new SQSClient(aws);
    this.scheduler = new SchedulerClient(aws);
    this.db = DynamoDBDocumentClient.from(new DynamoDBClient(aws));
    this.logs = new CloudWatchLogsClient(aws);
    this.opts = { pollMs: 3_000, serviceTimeoutMs: 3 * 60_000, archiveTimeoutMs: 15 * 60_000, stackTimeoutMs: 30 * 60_000, ...opts };
  }

  // ── Finding what an agent left ────────────────────────────────────────────────

  /** The agent's stack, or undefined once it is gone. */
  async stack(agentId: string): Promise<{ name: string; status: StackStatus | string; ours: boolean; description: string } | undefined> {
    const name = agentStackName(this.fleet, agentId);
    try {
      const s = (await this.cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
      if (!s || s.StackStatus === 'DELETE_COMPLETE') return undefined;
      // The app describes it, and outputs this agent's own secret name (which the emulator keeps where it drops the description).
      const ours = (s.Description ?? '').startsWith(`clawfleet ${this.fleet}: agent ${agentId} (`) || s.Outputs?.some((o) => o.OutputKey === 'SecretName' && o.OutputValue === agentSecretName(this.fleet, agentId)) === true;
      return { name, status: s.StackStatus ?? 'UNKNOWN', ours, description: s.Description ?? '' };
    } catch (err) {
      if (/does not exist/.test((err as Error).message)) return undefined;
      throw new CliError(EXIT.failed, awsErrorText(`cannot describe stack ${name}`, err));
    }
  }

  /** Agents of this fleet found deployed or recorded: stacks named `<fleet>-agent-*`, registry items, schedules agents made. */
  async found(): Promise<{ id: string; where: string }[]> {
    const out: { id: string; where: string }[] = [];
    const prefix = `${this.fleet}-agent-`;
    let NextToken: string | undefined;
    do {
      const page = await this.call('list the stacks', () => this.cfn.send(new ListStacksCommand({ NextToken })));
      for (const s of page.StackSummaries ?? []) {
        if (s.StackStatus === 'DELETE_COMPLETE' || !s.StackName?.startsWith(prefix)) continue;
        out.push({ id: s.StackName.slice(prefix.length), where: `stack ${s.StackName}` });
      }
      NextToken = page.NextToken;
    } while (NextToken);
    for (const item of await this.scan(tableNames(this.fleet).registry, 'begins_with(pk, :p)', { ':p': 'agent:' })) {
      out.push({ id: String(item.pk).slice('agent:'.length), where: 'registry' });
    }
    for (const name of await this.scheduleNames('agent-')) {
      const agentId = await this.scheduleAgent(name);
      if (agentId) out.push({ id: agentId, where: `schedule ${name}` });
    }
    return out;
  }

  /** What removing `agentId` will do, step by step, with what the operator must know first. */
  async plan(agentId: string): Promise<RemovalPlan> {
    const stack = await this.stack(agentId);
    if (stack && !stack.ours) {
      throw new CliError(EXIT.failed, `stack ${stack.name} was not made by clawfleet for agent ${agentId} (neither its description "${stack.description}" nor its outputs say so): left alone`);
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
      notes.push(`no stack ${agentStackName(this.fleet, agentId)}: its service and workspace archive task are gone, so its workspace (${agentWorkspacePath(agentId)}) stays where it is, not archived (docs/operations.md says how to move it)`);
    }

    const steps: RemovalStep[] = [];
    if (stack) {
      steps.push({ name: 'stop', plan: `desired count 0 for service ${agentServiceName(agentId)}, and wait until its task has stopped`, run: () => this.stop(agentId) });
      steps.push({
        name: 'archive',
        plan: `run task ${agentArchiveTaskFamily(this.fleet, agentId)}: copy ${agentWorkspacePath(agentId)} to ${agentArchivePath(agentId)}/<date>/ on the fleet's file system, then empty it`,
        run: () => this.archive(agentId),
      });
    }
    steps.push({ name: 'schedules', plan: `delete the schedules it made itself (agent-${agentId}-*) in ${scheduleGroupName(this.fleet)}`, run: () => this.deleteOwnSchedules(agentId) });
    if (stack) steps.push({ name: 'stack', plan: `delete stack ${stack.name} (queues, secret, service, roles, access points, log group, config schedules) and wait`, run: () => this.deleteStack(agentId) });
    steps.push({ name: 'records', plan: `delete its registry, metrics, session and origin records in ${this.fleet}-registry, -sessions and -origins`, run: () => this.deleteRecords(agentId) });
    return { agentId, where: `AWS ${this.aws.region}`, notes, steps };
  }

  // ── The steps ───────────────────────────────────────────────────────────────────

  private async stop(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const cluster = clusterName(this.fleet);
    const service = agentServiceName(agentId);
    // Asleep in the registry first: the health tick leaves a sleeping agent without work alone.
    await this.markAsleep(agentId);
    try {
      await this.ecs.send(new UpdateServiceCommand({ cluster, service, desiredCount: 0 }));
    } catch (err) {
      if (/ServiceNotFound|ServiceNotActive|ClusterNotFound/.test((err as Error).name)) return { status: 'skipped', detail: `no service ${service} in ${cluster}` };
      throw new StepFailed(awsErrorText(`cannot set ${service}'s desired count to 0`, err), 'check your credentials may ecs:UpdateService, then run this again');
    }
    const deadline = Date.now() + this.opts.serviceTimeoutMs;
    for (;;) {
      const running = await this.serviceTasks(agentId);
      if (running.length === 0) return { status: 'done', detail: `${service} at 0, no task running` };
      if (Date.now() > deadline) {
        throw new StepFailed(`${service} still has ${running.length} task(s) after ${this.opts.serviceTimeoutMs / 60_000} min`, `see aws ecs describe-services --cluster ${cluster} --services ${service}; run this again once it has stopped`);
      }
      await sleep(this.opts.pollMs);
    }
  }

  private async archive(agentId: string): Promise<{ status: 'done'; detail: string }> {
    const cluster = clusterName(this.fleet);
    const family = agentArchiveTaskFamily(this.fleet, agentId);
    await this.expectStopped(agentId, 'before the archive');
    const network = await this.serviceNetwork(agentId);
    let taskArn: string | undefined;
    try {
      const out = await this.ecs.send(new RunTaskCommand({ cluster, taskDefinition: family, count: 1, launchType: 'FARGATE', networkConfiguration: network, startedBy: STARTED_BY }));
      if (out.failures?.length) throw new Error(out.failures.map((f) => `${f.reason}${f.detail ? ` (${f.detail})` : ''}`).join('; '));
      taskArn = out.tasks?.[0]?.taskArn;
    } catch (err) {
      throw new StepFailed(awsErrorText(`cannot run task ${family}`, err), 'check your credentials may ecs:RunTask and iam:PassRole its roles; nothing was changed, run this again');
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
    return { status: 'done', detail: said ?? `task ${taskId} copied the workspace to ${agentArchivePath(agentId)}/<date>/ and emptied it (log: ${agentLogGroupName(this.fleet, agentId)} ${logStream})` };
  }

  private async deleteOwnSchedules(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    // `agent-fran-` also starts fran-2's names: each schedule's own trigger says whose it is.
    const mine: string[] = [];
    for (const name of await this.scheduleNames(`agent-${agentId}-`)) if ((await this.scheduleAgent(name)) === agentId) mine.push(name);
    for (const name of mine) {
      try {
        await this.scheduler.send(new DeleteScheduleCommand({ GroupName: scheduleGroupName(this.fleet), Name: name }));
      } catch (err) {
        if ((err as Error).name !== 'ResourceNotFoundException') throw new StepFailed(awsErrorText(`cannot delete schedule ${name}`, err), 'run this again');
      }
    }
    return mine.length ? { status: 'done', detail: `deleted ${mine.join(', ')}` } : { status: 'skipped', detail: 'it made none' };
  }

  private async deleteStack(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const name = agentStackName(this.fleet, agentId);
    if (!(await this.stack(agentId))) return { status: 'skipped', detail: `${name} is gone already` };
    // By name: a stack id is another thing to CloudFormation (and the emulator ignores it).
    await this.call(`delete stack ${name}`, () => this.cfn.send(new DeleteStackCommand({ StackName: name })));
    const deadline = Date.now() + this.opts.stackTimeoutMs;
    for (;;) {
      const s = await this.stack(agentId);
      if (!s) return { status: 'done', detail: `${name} deleted` };
      if (s.status === 'DELETE_FAILED') {
        throw new StepFailed(`stack ${name} is DELETE_FAILED: ${await this.failedResources(name)}`, 'fix or delete those resources by hand, then run this again (CloudFormation retries the delete)');
      }
      if (Date.now() > deadline) throw new StepFailed(`stack ${name} still ${s.status} after ${this.opts.stackTimeoutMs / 60_000} min`, 'watch it in the CloudFormation console; run this again once it is gone');
      await sleep(this.opts.pollMs);
    }
  }

  private async deleteRecords(agentId: string): Promise<{ status: 'done' | 'skipped'; detail: string }> {
    const t = tableNames(this.fleet);
    const registry = await this.scan(t.registry, 'pk = :a OR begins_with(pk, :m)', { ':a': `agent:${agentId}`, ':m': `metrics:${agentId}:` });
    const sessions = await this.scan(t.sessions, 'agentId = :id', { ':id': agentId });
    // Origins of its inbounds, and the agent-to-agent rate counters of its pairs (`relay-rate:<from>><to>:<window>`).
    const origins = await this.scan(t.origins, '#o.agentId = :id OR begins_with(pk, :from) OR contains(pk, :to)', { ':id': agentId, ':from': `relay-rate:${agentId}>`, ':to': `>${agentId}:` }, { '#o': 'origin' });
    for (const [table, items] of [[t.registry, registry], [t.sessions, sessions], [t.origins, origins]] as const) await this.deleteItems(table, items.map((i) => String(i.pk)));
    const total = registry.length + sessions.length + origins.length;
    return total
      ? { status: 'done', detail: `deleted ${registry.length} registry, ${sessions.length} session and ${origins.length} origin record(s)` }
      : { status: 'skipped', detail: 'none left' };
  }

  // ── Helpers ─────────────────────────────────────────────────────────────────────

  private async call<T>(what: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (err) {
      throw new CliError(EXIT.failed, awsErrorText(`cannot ${what}`, err));
    }
  }

  private async depth(queueName: string): Promise<number | undefined> {
    try {
      const { QueueUrl } = await this.sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
      const { Attributes } = await this.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
      return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    } catch {
      return undefined;
    }
  }

  private async markAsleep(agentId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: tableNames(this.fleet).registry,
          Key: { pk: `agent:${agentId}` },
          UpdateExpression: 'SET #state = :asleep, stateChangedAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':asleep': 'asleep', ':now': Date.now() },
        }),
      );
    } catch (err) {
      if (!/ConditionalCheckFailed|ResourceNotFound/.test((err as Error).name)) throw new StepFailed(awsErrorText('cannot mark the agent asleep in the registry', err), 'run this again');
    }
  }

  /**
   * Tasks of the agent's service not yet stopped. A task told to stop is listed as desired
   * STOPPED at once but runs on while it drains its turn (up to its stop timeout), still
   * writing the workspace: it counts until its last status is STOPPED.
   */
  private async serviceTasks(agentId: string): Promise<string[]> {
    const cluster = clusterName(this.fleet);
    try {
      const arns: string[] = [];
      for (const desiredStatus of ['RUNNING', 'STOPPED'] as const) {
        arns.push(...((await this.ecs.send(new ListTasksCommand({ cluster, serviceName: agentServiceName(agentId), desiredStatus }))).taskArns ?? []));
      }
      const live: string[] = [];
      for (let i = 0; i < arns.length; i += 100) {
        const { tasks = [] } = await this.ecs.send(new DescribeTasksCommand({ cluster, tasks: arns.slice(i, i + 100) }));
        live.push(...tasks.filter((t) => t.lastStatus !== 'STOPPED').map((t) => t.taskArn!));
      }
      return live;
    } catch (err) {
      if (/ServiceNotFound|ClusterNotFound/.test((err as Error).name)) return [];
      throw new StepFailed(awsErrorText(`cannot list the tasks of ${agentServiceName(agentId)}`, err), 'run this again');
    }
  }

  /** The runtime must not run while its workspace is copied: were it woken (a deployed control plane that still lists it), stop. */
  private async expectStopped(agentId: string, when: string): Promise<void> {
    const service = (await this.ecs.send(new DescribeServicesCommand({ cluster: clusterName(this.fleet), services: [agentServiceName(agentId)] }))).services?.[0];
    const running = await this.serviceTasks(agentId);
    if ((service?.desiredCount ?? 0) > 0 || running.length > 0) {
      throw new StepFailed(
        `${agentServiceName(agentId)} was started again ${when} (desired ${service?.desiredCount ?? 0}, ${running.length} task(s))`,
        `the deployed control plane still lists ${agentId}: deploy it without the agent (npx cdk deploy ${this.fleet}-control-plane), then run this again`,
      );
    }
  }

  /** The archive task runs where the runtime runs: the service's subnets and security group, with a public IP. */
  private async serviceNetwork(agentId: string): Promise<NetworkConfiguration> {
    const service = (await this.ecs.send(new DescribeServicesCommand({ cluster: clusterName(this.fleet), services: [agentServiceName(agentId)] }))).services?.[0];
    const vpc = service?.networkConfiguration?.awsvpcConfiguration;
    if (!vpc?.subnets?.length) throw new StepFailed(`${agentServiceName(agentId)} has no network settings to run the archive task with`, 'deploy the agent stack again (npx cdk deploy --all), then run this again');
    return { awsvpcConfiguration: { subnets: vpc.subnets, securityGroups: vpc.securityGroups, assignPublicIp: vpc.assignPublicIp ?? 'ENABLED' } };
  }

  private async waitForTask(taskArn: string): Promise<TaskEnd> {
    const deadline = Date.now() + this.opts.archiveTimeoutMs;
    for (;;) {
      const task = (await this.ecs.send(new DescribeTasksCommand({ cluster: clusterName(this.fleet), tasks: [taskArn] }))).tasks?.[0];
      if (task?.lastStatus === 'STOPPED') return { exitCode: task.containers?.[0]?.exitCode, reason: task.stoppedReason ?? task.containers?.[0]?.reason };
      if (Date.now() > deadline) {
        throw new StepFailed(`archive task ${taskArn.split('/').pop()} still ${task?.lastStatus ?? 'unknown'} after ${this.opts.archiveTimeoutMs / 60_000} min`, 'run this again once it has stopped (a second archive copies what is left, harmlessly)');
      }
      await sleep(this.opts.pollMs);
    }
  }

  /** The archive script's last line ("workspace archived", where to, how much), from its log; undefined if it cannot be read. */
  private async archiveLine(agentId: string, logStream: string): Promise<string | undefined> {
    try {
      const { events = [] } = await this.logs.send(new FilterLogEventsCommand({ logGroupName: agentLogGroupName(this.fleet, agentId), logStreamNames: [logStream], filterPattern: '"workspace archived"' }));
      const line = JSON.parse(events.at(-1)?.message ?? '') as { to?: string; files?: number; bytes?: number; skipped?: string[] };
      if (!line.to) return undefined;
      return `copied ${line.files} file(s), ${line.bytes} bytes, to ${line.to.replace(/^\/archive/, agentArchivePath(agentId))} on the fleet's file system, and emptied the workspace${line.skipped?.length ? ` (left out, not regular files: ${line.skipped.join(', ')})` : ''}`;
    } catch {
      return undefined;
    }
  }

  private async scheduleNames(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let NextToken: string | undefined;
    do {
      let page;
      try {
        page = await this.scheduler.send(new ListSchedulesCommand({ GroupName: scheduleGroupName(this.fleet), NamePrefix: prefix, NextToken }));
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return [];
        throw new CliError(EXIT.failed, awsErrorText(`cannot list the schedules of ${scheduleGroupName(this.fleet)}`, err));
      }
      // Filtered here as well: an emulator may treat NamePrefix loosely.
      names.push(...(page.Schedules ?? []).map((s) => s.Name ?? '').filter((n) => n.startsWith(prefix)));
      NextToken = page.NextToken;
    } while (NextToken);
    return names;
  }

  /** Whose a schedule is, by the trigger it passes to cron-dispatch. */
  private async scheduleAgent(name: string): Promise<string | undefined> {
    try {
      const s = await this.scheduler.send(new GetScheduleCommand({ GroupName: scheduleGroupName(this.fleet), Name: name }));
      const input = JSON.parse(s.Target?.Input ?? '{}') as { agentId?: unknown };
      return typeof input.agentId === 'string' ? input.agentId : undefined;
    } catch {
      return undefined;
    }
  }

  private async scan(table: string, filter: string, values: Record<string, unknown>, names?: Record<string, string>): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      let page;
      try {
        page = await this.db.send(new ScanCommand({ TableName: table, FilterExpression: filter, ExpressionAttributeValues: values, ExpressionAttributeNames: names, ProjectionExpression: 'pk', ExclusiveStartKey }));
      } catch (err) {
        if ((err as Error).name === 'ResourceNotFoundException') return [];
        throw new CliError(EXIT.failed, awsErrorText(`cannot scan ${table}`, err));
      }
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    return items;
  }

  private async deleteItems(table: string, keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 25) {
      let requests: Record<string, { DeleteRequest: { Key: Record<string, unknown> } }[]> | undefined = { [table]: keys.slice(i, i + 25).map((pk) => ({ DeleteRequest: { Key: { pk } } })) };
      for (let attempt = 0; requests && Object.keys(requests).length; attempt++) {
        if (attempt === 5) throw new StepFailed(`${table} kept refusing some deletes (throttled)`, 'run this again in a minute');
        try {
          const out = await this.db.send(new BatchWriteCommand({ RequestItems: requests }));
          requests = out.UnprocessedItems as typeof requests;
        } catch (err) {
          throw new StepFailed(awsErrorText(`cannot delete records from ${table}`, err), 'run this again');
        }
        if (requests && Object.keys(requests).length) await sleep(200 * 2 ** attempt);
      }
    }
  }

  private async failedResources(stackName: string): Promise<string> {
    try {
      const { StackEvents = [] } = await this.cfn.send(new DescribeStackEventsCommand({ StackName: stackName }));
      const failed = StackEvents.filter((e) => e.ResourceStatus === 'DELETE_FAILED' && e.LogicalResourceId !== stackName);
      return failed.map((e) => `${e.LogicalResourceId} (${e.ResourceType}): ${e.ResourceStatusReason ?? 'no reason given'}`).join('; ') || 'no failed resource named';
    } catch {
      return 'its events could not be read';
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
