// One agent's workspace archive: a one-off Fargate task that `clawfleet agents remove` runs
// before it deletes the agent's stack. It mounts the agent's own workspace access point and an
// archive access point of its own (/archive/<id>), copies the workspace into a dated directory
// there and empties it (infra/workspace-archive-script.ts), so an agent added later under the
// same id starts empty while nothing is lost. Its role may mount and write through those two
// access points and nothing else: no other agent's workspace or archive, no root, no secret,
// no queue. Nothing in the fleet may run it or pass its role; only an operator does.
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { agentArchivePath, agentArchiveTaskFamily } from '../../shared/config/names.ts';
import type { CpuArchitecture } from '../../shared/config/architecture.ts';
import { ARCHIVE_MOUNTS, ARCHIVE_SCRIPT } from '../workspace-archive-script.ts';
import type { AgentRuntime } from './agent-runtime.ts';
import { agentTaskDefinition, RUNTIME_UID, runtimeUserAccessPoint } from './agent-task-definition.ts';

export interface WorkspaceArchiveProps {
  fleet: string;
  agentId: string;
  runtime: AgentRuntime;
  fileSystem: efs.IFileSystem;
  /** The fleet's runtime image, which has node (an agent's own runtime.image may not). */
  image: ecs.ContainerImage;
  architecture: CpuArchitecture;
}

export class WorkspaceArchive extends Construct {
  readonly accessPoint: efs.AccessPoint;
  readonly taskRole: iam.Role;
  readonly taskDefinition: ecs.FargateTaskDefinition;

  constructor(scope: Construct, id: string, props: WorkspaceArchiveProps) {
    super(scope, id);
    const { fleet, agentId, runtime } = props;

    // Deleting the stack deletes this access point, never the directory: the archive stays.
    this.accessPoint = runtimeUserAccessPoint(this, 'AccessPoint', { fileSystem: props.fileSystem, path: agentArchivePath(agentId), permissions: '700' });

    // The role of both of this agent's one-off tasks, this archive and the workspace sync
    // (agent-workspace-task.ts adds its staging prefix): never the runtime's, which an agent's
    // own code holds. One role for the two keeps the fleet at two roles per agent.
    this.taskRole = new iam.Role(this, 'TaskRole', {
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'),
      description: `clawfleet ${fleet}: the one-off tasks of agent ${agentId}, archive and workspace sync (its workspace and archive access points, its staging prefix)`,
    });
    this.taskRole.addToPolicy(
      new iam.PolicyStatement({
        sid: 'OwnWorkspaceAndArchive',
        actions: ['elasticfilesystem:ClientMount', 'elasticfilesystem:ClientWrite'],
        resources: [props.fileSystem.fileSystemArn],
        conditions: { StringEquals: { 'elasticfilesystem:AccessPointArn': [runtime.accessPoint.accessPointArn, this.accessPoint.accessPointArn] } },
      }),
    );

    this.taskDefinition = agentTaskDefinition(this, 'Task', {
      family: agentArchiveTaskFamily(fleet, agentId),
      cpu: 256,
      memoryLimitMiB: 512,
      taskRole: this.taskRole,
      // The runtime's: it pulls the same image and writes to the same log group.
      executionRole: runtime.executionRole,
      architecture: props.architecture,
      fileSystem: props.fileSystem,
      volumes: { workspace: runtime.accessPoint, archive: this.accessPoint },
    });
    const linuxParameters = new ecs.LinuxParameters(this, 'Linux');
    linuxParameters.dropCapabilities(ecs.Capability.ALL);
    const container = this.taskDefinition.addContainer('Archive', {
      image: props.image,
      essential: true,
      // The image's node user; the access points make every file operation theirs anyway.
      user: `${RUNTIME_UID}:${RUNTIME_UID}`,
      readonlyRootFilesystem: true,
      linuxParameters,
      entryPoint: ['node', '-e', ARCHIVE_SCRIPT],
      command: [],
      logging: ecs.LogDrivers.awsLogs({ logGroup: runtime.logGroup, streamPrefix: 'archive' }),
    });
    container.addMountPoints(
      { containerPath: ARCHIVE_MOUNTS.workspace, sourceVolume: 'workspace', readOnly: false },
      { containerPath: ARCHIVE_MOUNTS.archive, sourceVolume: 'archive', readOnly: false },
    );
  }
}
