// What each of an agent's Fargate tasks (its runtime, its workspace sync, its archive) is built
// on: a Linux task definition on the agent's CPU architecture whose volumes are EFS access
// points mounted over TLS with IAM authorization, and access points that act as the runtime user.
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { CpuArchitecture } from '../../shared/config/architecture.ts';

/**
 * Who the workspace's files belong to on EFS (node images' uid/gid 1000). Every file
 * operation through the access point — the runtime's (root in its container) and each tool
 * uid's alike — is performed as this uid and gid: the access point overrides the caller's
 * identity. So the tool uids the runtime drops to for exec can read and write the
 * workspace whatever the local modes say, and root in the container is never root on the
 * file system (ClientRootAccess is not granted either).
 */
export const RUNTIME_UID = '1000';

const CPU_ARCHITECTURES: Record<CpuArchitecture, ecs.CpuArchitecture> = { arm64: ecs.CpuArchitecture.ARM64, x86_64: ecs.CpuArchitecture.X86_64 };

/** A directory of the agent's on the fleet's file system, every operation through it done as the runtime user. */
export function runtimeUserAccessPoint(
  scope: Construct,
  id: string,
  props: { fileSystem: efs.IFileSystem; path: string; permissions: string },
): efs.AccessPoint {
  return new efs.AccessPoint(scope, id, {
    fileSystem: props.fileSystem,
    path: props.path,
    createAcl: { ownerUid: RUNTIME_UID, ownerGid: RUNTIME_UID, permissions: props.permissions },
    posixUser: { uid: RUNTIME_UID, gid: RUNTIME_UID },
  });
}

export interface AgentTaskDefinitionProps {
  family: string;
  cpu: number;
  memoryLimitMiB: number;
  taskRole: iam.IRole;
  executionRole: iam.IRole;
  architecture: CpuArchitecture;
  fileSystem: efs.IFileSystem;
  /** Volume name → the access point it mounts. */
  volumes: Record<string, efs.IAccessPoint>;
}

/** The task definition, with one volume per access point: mounted only over TLS and only as the task role allows. */
export function agentTaskDefinition(scope: Construct, id: string, props: AgentTaskDefinitionProps): ecs.FargateTaskDefinition {
  return new ecs.FargateTaskDefinition(scope, id, {
    family: props.family,
    cpu: props.cpu,
    memoryLimitMiB: props.memoryLimitMiB,
    taskRole: props.taskRole,
    executionRole: props.executionRole,
    runtimePlatform: { cpuArchitecture: CPU_ARCHITECTURES[props.architecture], operatingSystemFamily: ecs.OperatingSystemFamily.LINUX },
    volumes: Object.entries(props.volumes).map(([name, accessPoint]) => ({
      name,
      efsVolumeConfiguration: {
        fileSystemId: props.fileSystem.fileSystemId,
        transitEncryption: 'ENABLED',
        authorizationConfig: { accessPointId: accessPoint.accessPointId, iam: 'ENABLED' },
      },
    })),
  });
}
