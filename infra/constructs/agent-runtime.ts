// One agent's runtime on Fargate: its task role (its own secret, its own queues, its own
// Bedrock models, its own workspace — nothing else), the fleet's execution role, its workspace
// (an EFS access point with IAM authorization), its log group, the task definition sized
// from its runtime profile with the image's health check (the capabilities the runtime
// does not need dropped), the service (its desired count left to λ compute, circuit
// breaker), and alarms.
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { runtimeArchitecture } from '../../shared/config/architecture.ts';
import {
  agentLogGroupName,
  agentServiceName,
  agentStackName,
  agentWorkspacePath,
  sharedParameterNames,
  tableNames,
  taskExecutionRoleName,
} from '../../shared/config/names.ts';
import { resolveAgent, runtimeConfigFor } from '../../shared/config/resolve.ts';
import { capsOf } from '../../shared/budget/budget.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import { runtimeEnvironment } from '../../shared/runtime-env.ts';
import { bedrockModelArns, bedrockModelIds } from '../bedrock-models.ts';
import { acknowledge } from '../nag.ts';
import { HEALTH_FILE, runtimeHealthCheck } from '../runtime-health-check.ts';
import { operatorAlarm } from './operator-alarms.ts';
import { agentTaskDefinition, runtimeUserAccessPoint } from './agent-task-definition.ts';
import type { AgentFleetSkills } from './agent-fleet-skills.ts';
import type { AgentQueues } from './agent-queues.ts';
import type { EmptySecret } from './empty-secret.ts';

/** Where the workspace is mounted in the container; the runtime's CLAWFLEET_WORKSPACE. */
export const WORKSPACE_PATH = '/workspace';
/**
 * Docker's default capabilities that the runtime does not need, dropped from the task
 * (Fargate allows drop, and add only SYS_PTRACE). Kept: SETUID, SETGID and SETPCAP (setpriv
 * drops a tool call to its uid and empties its bounding set), KILL (stopping a sandboxed
 * MCP server's process group), CHOWN, FOWNER and DAC_OVERRIDE (the runtime prepares each
 * call's TMPDIR, shares the workspace with the tool group, and removes what a tool uid
 * left in the sticky /tmp).
 */
const DROPPED_CAPABILITIES = [
  ecs.Capability.NET_RAW,
  ecs.Capability.MKNOD,
  ecs.Capability.SYS_CHROOT,
  ecs.Capability.AUDIT_WRITE,
  ecs.Capability.SETFCAP,
  ecs.Capability.NET_BIND_SERVICE,
  ecs.Capability.FSETID,
];

/** How long SIGTERM waits for the turn in flight; ECS waits a little longer before SIGKILL. */
const DRAIN_SECONDS = 25;

export interface AgentRuntimeProps {
  config: FleetConfig;
  agentId: string;
  queues: AgentQueues;
  secret: EmptySecret;
  cluster: ecs.ICluster;
  /** The public subnets the task runs in (it gets a public IP: no NAT gateway). */
  subnets: ec2.ISubnet[];
  securityGroup: ec2.ISecurityGroup;
  fileSystem: efs.IFileSystem;
  image: ecs.ContainerImage;
  logRetention: logs.RetentionDays;
  /** Namespace of the fleet's custom metrics (runtime starts). */
  metricNamespace: string;
  /** The fleet's skills this agent gets (#19): read by its role alone, named in its environment. */
  fleetSkills?: AgentFleetSkills | undefined;
  /** This deploy creates the service (context newAgents): it starts at desired count 0. */
  creating: boolean;
}

export class AgentRuntime extends Construct {
  readonly taskRole: iam.Role;
  readonly executionRole: iam.IRole;
  readonly logGroup: logs.LogGroup;
  readonly accessPoint: efs.AccessPoint;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly service: ecs.FargateService;

  constructor(scope: Construct, id: string, props: AgentRuntimeProps) {
    super(scope, id);
    const { config, agentId, queues, secret } = props;
    const fleet = config.fleet;
    const agent = resolveAgent(config, agentId);
    const { cpus, memoryMb } = agent.runtime;
    // parseConfig guarantees both (cross-checks); this guards a config that skipped it.
    if (cpus === undefined || memoryMb === undefined) throw new Error(`agent "${agentId}" has no runtime size; parse the config with parseConfig`);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      logGroupName: agentLogGroupName(fleet, agentId),
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    // Every client of this access point acts as the runtime user, whatever the image says.
    this.accessPoint = runtimeUserAccessPoint(this, 'Workspace', { fileSystem: props.fileSystem, path: agentWorkspacePath(agentId), permissions: '750' });

    this.taskRole = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: `clawfleet ${fleet}: the runtime of agent ${agentId} (its own secret, queues, models and workspace only)`,
    });
    const stack = Stack.of(this);
    const statements = [
      new iam.PolicyStatement({ sid: 'OwnSecret', actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }),
      new iam.PolicyStatement({
        sid: 'OwnInbox',
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
        resources: [queues.inbox.queueArn],
      }),
      new iam.PolicyStatement({ sid: 'OwnOutboxAndDeadLetters', actions: ['sqs:SendMessage'], resources: [queues.outbox.queueArn, queues.inboxDlq.queueArn] }),
      new iam.PolicyStatement({
        sid: 'OwnWorkspace',
        actions: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
        resources: [props.fileSystem.fileSystemArn],
        conditions: { StringEquals: { 'elasticfilesystem:AccessPointArn': this.accessPoint.accessPointArn } },
      }),
    ];
    const modelArns = bedrockModelIds(config, agentId).flatMap((m) =>
      bedrockModelArns(m, { partition: stack.partition, region: stack.region, account: stack.account }),
    );
    if (modelArns.length > 0) {
      statements.push(
        new iam.PolicyStatement({ sid: 'OwnModels', actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'], resources: modelArns }),
      );
    }
    // media (#16): its own attachments (in/, written by the control plane) and its own files to send (out/), nothing else of the bucket.
    const mediaBucket = ssm.StringParameter.valueForStringParameter(this, sharedParameterNames(fleet).mediaBucket);
    const mediaArn = stack.formatArn({ service: 's3', region: '', account: '', resource: mediaBucket });
    statements.push(
      new iam.PolicyStatement({
        sid: 'OwnMediaRead',
        actions: ['s3:GetObject'],
        resources: [`${mediaArn}/${fleet}/agents/${agentId}/in/*`, `${mediaArn}/${fleet}/agents/${agentId}/out/*`],
      }),
      new iam.PolicyStatement({ sid: 'OwnMediaWrite', actions: ['s3:PutObject'], resources: [`${mediaArn}/${fleet}/agents/${agentId}/out/*`] }),
    );
    // Budgets (#31): a metered agent holds and settles its model calls in its own ledger items
    // of the spend table (`<agent>#<month>`): the leading key must start with its id and "#",
    // so no other agent's ledger and none of the control plane's counts (`count:…`, `usage:…`).
    const metered = capsOf(agent.budget) !== undefined;
    const spendTable = tableNames(fleet).spend;
    if (metered) {
      statements.push(
        new iam.PolicyStatement({
          sid: 'OwnSpendLedger',
          actions: ['dynamodb:GetItem', 'dynamodb:PutItem'],
          resources: [stack.formatArn({ service: 'dynamodb', resource: 'table', resourceName: spendTable })],
          // Null: a request must name its leading key (ForAllValues alone holds for a request with none).
          conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${agentId}#*`] }, Null: { 'dynamodb:LeadingKeys': 'false' } },
        }),
      );
    }
    for (const s of statements) this.taskRole.addToPolicy(s);
    props.fleetSkills?.grantRead(this.taskRole);
    const mediaParam = (stack.resolve(mediaBucket) as { Ref: string }).Ref;
    for (const dir of ['in', 'out']) {
      acknowledge(
        this.taskRole,
        'IAM5',
        `The agent’s own ${dir}/ prefix of the media bucket: its own attachments and files, no other agent’s.`,
        `Resource::arn:<AWS::Partition>:s3:::<${mediaParam}>/${fleet}/agents/${agentId}/${dir}/*`,
      );
    }
    for (const arn of modelArns.filter((a) => a.includes(':bedrock:*:'))) {
      acknowledge(
        this.taskRole,
        'IAM5',
        'A cross-region inference profile routes to its model in any of its regions; the wildcard is the region of this one named foundation model.',
        `Resource::${arn.replace(stack.partition, '<AWS::Partition>')}`,
      );
    }

    // The fleet's one execution role (task-execution-role.ts, in the control plane): it pulls
    // the image and ships the logs; the task never holds it. Immutable here, so an image
    // asset's grants are not attempted on it: the control plane granted them.
    this.executionRole = iam.Role.fromRoleName(this, 'ExecutionRole', taskExecutionRoleName(fleet), { mutable: false });

    this.taskDefinition = agentTaskDefinition(this, 'Task', {
      family: agentStackName(fleet, agentId),
      cpu: cpus * 1024,
      memoryLimitMiB: memoryMb,
      taskRole: this.taskRole,
      executionRole: this.executionRole,
      // Graviton unless the agent says otherwise; the image asset is built for the same platform.
      architecture: runtimeArchitecture(agent.runtime),
      fileSystem: props.fileSystem,
      volumes: { workspace: this.accessPoint },
    });
    const linuxParameters = new ecs.LinuxParameters(this, 'Linux');
    linuxParameters.dropCapabilities(...DROPPED_CAPABILITIES);
    const container = this.taskDefinition.addContainer('Runtime', {
      image: props.image,
      essential: true,
      // Our image runs the runtime as root in its own container, only to run each exec call
      // (and each sandboxed MCP server) under a tool uid of its own (runtime-image/Dockerfile,
      // docs/runtime.md). A `runtime.image` of the operator's own runs as its image says:
      // without root and a tool uid pool, its runtime keeps exec off and says so.
      ...(agent.runtime.image === undefined ? { user: '0' } : {}),
      linuxParameters,
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'runtime' }),
      stopTimeout: Duration.seconds(DRAIN_SECONDS + 5),
      // The image's HEALTHCHECK, which ECS ignores: a hung runtime gets replaced. Its start
      // period is the kind's in its mode (a managed OpenClaw gateway takes ~30 s to start;
      // native, and openclaw's external mode, well under 1 s).
      healthCheck: runtimeHealthCheck(agent.runtime),
      // Names and this agent's own config slice only; secret values are read at start-up
      // from Secrets Manager by the runtime itself, never put into the task definition.
      environment: runtimeEnvironment(
        agentId,
        runtimeConfigFor(config, agentId),
        { kind: 'aws', inboxUrl: queues.inbox.queueUrl, outboxUrl: queues.outbox.queueUrl, dlqUrl: queues.inboxDlq.queueUrl, secretId: secret.secretName },
        {
          CLAWFLEET_WORKSPACE: WORKSPACE_PATH,
          CLAWFLEET_MEDIA_BUCKET: mediaBucket,
          ...(metered ? { CLAWFLEET_SPEND_TABLE: spendTable } : {}),
          ...(props.fleetSkills ? { CLAWFLEET_FLEET_SKILLS_OBJECT: props.fleetSkills.objectUrl } : {}),
          CLAWFLEET_DRAIN_SECONDS: String(DRAIN_SECONDS),
          // Set here too, so an image of its own (runtime.image) keeps the health check working.
          CLAWFLEET_HEALTH_FILE: HEALTH_FILE,
          // Its queue's redrive count: the last receive tells the user instead of retrying.
          CLAWFLEET_MAX_RECEIVE_COUNT: String(queues.maxReceiveCount),
        },
      ),
    });
    container.addMountPoints({ containerPath: WORKSPACE_PATH, sourceVolume: 'workspace', readOnly: false });
    acknowledge(
      this.taskDefinition,
      'ECS2',
      "The environment holds queue URLs, a secret name and the agent's own config slice, no secret values; the runtime reads its secret itself.",
    );

    this.service = new ecs.FargateService(this, 'Service', {
      serviceName: agentServiceName(agentId),
      cluster: props.cluster,
      taskDefinition: this.taskDefinition,
      // λ compute alone sets the desired count (wake, hibernate, restart, hold for a workspace
      // transfer); a deploy must never. CloudFormation's AWS::ECS::Service DesiredCount: "For
      // new services, if a desired count is not specified, a default value of 1 is used. ...
      // For existing services, if a desired count is not specified, it is omitted from the
      // operation" (CloudFormation User Guide, AWS::ECS::Service), while a count in the
      // template is sent with every update of the service (a new task definition included),
      // stopping an awake agent mid-turn or starting a held one. So the template names 0 only
      // when the deploy creates the service (context newAgents) and nothing after; an
      // always-on agent is started by the next health tick (state asleep → wake), within a
      // minute. A service created without it starts at 1 and hibernates after its idle timeout.
      ...(props.creating ? { desiredCount: 0 } : {}),
      assignPublicIp: true,
      vpcSubnets: { subnets: props.subnets },
      securityGroups: [props.securityGroup],
      capacityProviderStrategies: [{ capacityProvider: agent.runtime.spot ? 'FARGATE_SPOT' : 'FARGATE', weight: 1 }],
      circuitBreaker: { rollback: true },
      // Each task carries its agent's cost tags (the task definition's) and ECS's own.
      enableECSManagedTags: true,
      propagateTags: ecs.PropagatedTagSource.TASK_DEFINITION,
      // One runtime per agent at a time: two would share a workspace. A deploy stops the
      // old task (it drains its turn) before starting the new one; the queue holds the work.
      minHealthyPercent: 0,
      maxHealthyPercent: 100,
    });

    this.addAlarms(props);
  }

  private addAlarms(props: AgentRuntimeProps): void {
    const { agentId, queues } = props;
    const fleet = props.config.fleet;
    const dlqAlarm = (id: string, queue: AgentQueues['inboxDlq'], what: string) => {
      // A dead letter stays until someone acts on it: told when the queue is empty again too.
      operatorAlarm(this, id, {
        fleet,
        alarmName: `${agentStackName(fleet, agentId)}-${what}-dlq`,
        alarmDescription: `Messages in ${queue.queueName}: see their "reason" attribute`,
        metric: queue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }),
        threshold: 1,
        resolved: true,
      });
    };
    dlqAlarm('InboxDlqAlarm', queues.inboxDlq, 'inbox');
    dlqAlarm('OutboxDlqAlarm', queues.outboxDlq, 'outbox');

    // Every start logs {"msg":"ready"}; several in a short time is a crash loop (the
    // deployment circuit breaker only watches deployments, not a running service).
    const starts = new logs.MetricFilter(this, 'StartsMetric', {
      logGroup: this.logGroup,
      filterPattern: logs.FilterPattern.stringValue('$.msg', '=', 'ready'),
      metricNamespace: props.metricNamespace,
      metricName: 'RuntimeStarts',
      dimensions: { Agent: '$.agentId' },
      metricValue: '1',
    });
    operatorAlarm(this, 'RestartsAlarm', {
      fleet,
      alarmName: `${agentStackName(fleet, agentId)}-restarts`,
      alarmDescription: `The runtime of ${agentId} started 3 or more times in 15 minutes: it is crashing (see ${this.logGroup.logGroupName})`,
      metric: starts.metric({ dimensionsMap: { Agent: agentId }, period: Duration.minutes(15), statistic: 'Sum' }),
      threshold: 3,
      resolved: true,
    });
  }
}
