// One agent's stack: its queues, its secret, its runtime (task definition, service, roles,
// workspace, logs, alarms), its workspace archive task, its schedules (cron jobs and
// heartbeat from the config) and the event source mapping that feeds its outbox to the
// control plane's outbox function.
// `cdk deploy <fleet>-agent-<id>` touches only this.
import { CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type * as ecs from 'aws-cdk-lib/aws-ecs';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { runtimeArchitecture, type CpuArchitecture } from '../shared/config/architecture.ts';
import { imageVariantFor, type RuntimeImageVariant } from '../shared/config/image-variant.ts';
import { agentSecretName, functionName } from '../shared/config/names.ts';
import { resolveAgent } from '../shared/config/resolve.ts';
import type { FleetConfig } from '../shared/config/schema.ts';
import { ClawfleetError } from '../shared/errors.ts';
import { configSchedules } from '../shared/cron/config-schedules.ts';
import type { FleetAppOptions } from './app-options.ts';
import { AgentSchedules } from './constructs/agent-schedules.ts';
import { cronDispatchArn } from './constructs/control-functions.ts';
import { AgentFleetSkills } from './constructs/agent-fleet-skills.ts';
import { AgentQueues } from './constructs/agent-queues.ts';
import { AgentRuntime } from './constructs/agent-runtime.ts';
import { AgentWorkspaceTask } from './constructs/agent-workspace-task.ts';
import { EmptySecret } from './constructs/empty-secret.ts';
import { WorkspaceArchive } from './constructs/workspace-archive.ts';
import { importSharedResources } from './constructs/shared-resources.ts';
import { fleetSubnetPlan } from './fleet-subnets.ts';
import type { ControlPlaneStack } from './control-plane-stack.ts';

export interface AgentStackProps extends StackProps {
  config: FleetConfig;
  agentId: string;
  options: FleetAppOptions;
  controlPlane: ControlPlaneStack;
  /** The runtime image, for its architecture, of agents that do not name their own. */
  defaultImage: (architecture: CpuArchitecture, variant: RuntimeImageVariant) => ecs.ContainerImage;
  imageFromRegistry: (image: string) => ecs.ContainerImage;
  /** The fleet's skills this agent's allow list admits, packed (infra/fleet-skills-plan.ts); absent when none. */
  fleetSkills?: Uint8Array | undefined;
  /** This deploy creates the stack: its service starts at desired count 0 (context newAgents). */
  creating: boolean;
}

export class AgentStack extends Stack {
  readonly queues: AgentQueues;
  readonly secret: EmptySecret;
  readonly runtime: AgentRuntime;
  readonly archive: WorkspaceArchive;
  readonly workspaceTask: AgentWorkspaceTask;
  readonly schedules: AgentSchedules | undefined;
  readonly fleetSkills: AgentFleetSkills | undefined;

  constructor(scope: Construct, id: string, props: AgentStackProps) {
    super(scope, id, props);
    const { config, agentId, controlPlane } = props;
    const fleet = config.fleet;
    const agent = resolveAgent(config, agentId);
    this.addStackDependency(controlPlane);

    const outboxFunction = controlPlane.functions.functions.get('outbox');
    if (!outboxFunction) throw new ClawfleetError('INFRA_INCOMPLETE', 'the control plane has no outbox function; agents could never be heard');
    this.queues = new AgentQueues(this, 'Queues', {
      fleet,
      agentId,
      maxReceiveCount: props.options.maxReceiveCount,
      outboxConsumerTimeout: outboxFunction.timeout ?? Duration.seconds(30),
    });

    this.secret = new EmptySecret(this, 'Secret', {
      secretName: agentSecretName(fleet, agentId),
      description: `clawfleet ${fleet}: values of agent ${agentId} by name${agent.secrets?.length ? ` (${agent.secrets.join(', ')})` : ''}`,
      rotation: 'agent',
    });

    // By SSM parameter and by name, never by export: the control plane stays free to change.
    const shared = importSharedResources(this, 'Shared', fleet, fleetSubnetPlan(config).subnets);
    const architecture = runtimeArchitecture(agent.runtime);
    // The one-off tasks (archive, workspace sync) run the plain runtime image; the agent's own
    // runtime the variant its kind and tools need (OpenClaw for the openclaw kind, Chromium for a browser).
    const fleetImage = props.defaultImage(architecture, 'runtime');
    const image = agent.runtime.image ? props.imageFromRegistry(agent.runtime.image) : props.defaultImage(architecture, imageVariantFor(agent));
    this.fleetSkills = props.fleetSkills ? new AgentFleetSkills(this, 'FleetSkills', { bundle: props.fleetSkills }) : undefined;
    this.runtime = new AgentRuntime(this, 'Runtime', {
      config,
      agentId,
      queues: this.queues,
      secret: this.secret,
      cluster: shared.cluster,
      subnets: shared.subnets,
      securityGroup: shared.securityGroup,
      fileSystem: shared.fileSystem,
      image,
      logRetention: props.options.logRetentionDays as logs.RetentionDays,
      metricNamespace: `Clawfleet/${fleet}`,
      fleetSkills: this.fleetSkills,
      creating: props.creating,
    });
    // Run by `clawfleet agents remove` before the stack goes: the workspace is archived, not lost.
    this.archive = new WorkspaceArchive(this, 'Archive', {
      fleet,
      agentId,
      runtime: this.runtime,
      fileSystem: shared.fileSystem,
      image: fleetImage,
      architecture,
    });

    // `clawfleet workspace push|pull`: the one-off task with this agent's access point and the
    // role of its one-off tasks (the archive's), never the runtime's.
    this.workspaceTask = new AgentWorkspaceTask(this, 'WorkspaceTask', {
      fleet,
      agentId,
      taskRole: this.archive.taskRole,
      executionRole: this.runtime.executionRole,
      fileSystem: shared.fileSystem,
      accessPoint: this.runtime.accessPoint,
      image: fleetImage,
      architecture: runtimeArchitecture(agent.runtime),
      logGroup: this.runtime.logGroup,
    });

    // By name, not by reference: the function's deterministic name keeps the control
    // plane's template free of anything per agent.
    new lambda.CfnEventSourceMapping(this, 'OutboxToControlPlane', {
      functionName: functionName(fleet, 'outbox'),
      eventSourceArn: this.queues.outbox.queueArn,
      batchSize: 10,
      functionResponseTypes: ['ReportBatchItemFailures'],
    });

    const schedules = configSchedules(config).filter((s) => s.trigger.agentId === agentId);
    this.schedules =
      schedules.length > 0
        ? new AgentSchedules(this, 'Schedules', {
            fleet,
            schedules,
            functionArn: cronDispatchArn(this, fleet),
            roleArn: shared.schedulerRoleArn(),
            deadLetterArn: shared.schedulesDeadLetterArn,
          })
        : undefined;

    const out = (key: string, value: string, description: string) => new CfnOutput(this, key, { key, value, description });
    out('InboxUrl', this.queues.inbox.queueUrl, 'CLAWFLEET_INBOX_URL');
    out('OutboxUrl', this.queues.outbox.queueUrl, 'CLAWFLEET_OUTBOX_URL');
    out('InboxDlqUrl', this.queues.inboxDlq.queueUrl, 'CLAWFLEET_DLQ_URL');
    out('SecretName', this.secret.secretName, 'Fill with scripts/set-secret.ts');
    out('ServiceName', this.runtime.service.serviceName, 'ECS service of this agent');
    out('ArchiveTaskFamily', this.archive.taskDefinition.family, 'One-off task that archives the workspace (clawfleet agents remove)');
    out('WorkspaceTaskFamily', this.workspaceTask.taskDefinition.family, 'The one-off task of clawfleet workspace push|pull');
  }
}
