// The one-off task that moves an agent's workspace in and out of AWS (`clawfleet workspace
// push|pull`): a task definition of its own, `<fleet>-agent-<id>-workspace`, run with
// RunTask only when asked, with THAT agent's access point and the role of THAT agent's
// one-off tasks (workspace-archive.ts), not its runtime's: the agent's own code never holds
// the staging grant. It runs the runtime image's `workspace-sync` entry
// (runtime-image/src/workspace/workspace-sync.ts) as uid 1000 with no capabilities and a read-only
// root, and reads and writes only the agent's prefix of the staging bucket, which this
// construct grants to that role.
//
// Shape, for other one-off workspace tasks to reuse: `taskDefinition` (family from
// names.ts agentWorkspaceTaskFamily), container names.ts WORKSPACE_SYNC_CONTAINER, environment
// CLAWFLEET_AGENT_ID / CLAWFLEET_WORKSPACE / CLAWFLEET_STAGING_BUCKET / CLAWFLEET_STAGING_PREFIX,
// and per run (RunTask containerOverrides) CLAWFLEET_SYNC_ACTION (push|pull|check),
// CLAWFLEET_SYNC_TRANSFER (the transfer id) and CLAWFLEET_SYNC_FORCE (1 to replace what differs).
import { Stack } from 'aws-cdk-lib';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import type * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import type { CpuArchitecture } from '../../shared/config/architecture.ts';
import { agentWorkspaceTaskFamily, sharedParameterNames, stagingPrefix, WORKSPACE_SYNC_CONTAINER } from '../../shared/config/names.ts';
import { acknowledge } from '../nag.ts';
import { WORKSPACE_PATH } from './agent-runtime.ts';
import { agentTaskDefinition, RUNTIME_UID } from './agent-task-definition.ts';

/** The entry in the runtime image that the task runs. */
export const WORKSPACE_SYNC_COMMAND = ['node', '--enable-source-maps', '/app/dist/workspace-sync.mjs'];
export interface AgentWorkspaceTaskProps {
  fleet: string;
  agentId: string;
  /** The role of the agent's one-off tasks, and the fleet's execution role. */
  taskRole: iam.IRole;
  executionRole: iam.IRole;
  fileSystem: efs.IFileSystem;
  /** The agent's own access point (its runtime's). */
  accessPoint: efs.IAccessPoint;
  /** clawfleet's runtime image for the architecture: it carries the workspace-sync entry (an agent's own `runtime.image` may not). */
  image: ecs.ContainerImage;
  architecture: CpuArchitecture;
  logGroup: logs.ILogGroup;
}

export class AgentWorkspaceTask extends Construct {
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly stagingBucketName: string;

  constructor(scope: Construct, id: string, props: AgentWorkspaceTaskProps) {
    super(scope, id);
    const { fleet, agentId } = props;
    const stack = Stack.of(this);
    this.stagingBucketName = ssm.StringParameter.valueForStringParameter(this, sharedParameterNames(fleet).stagingBucket);
    const bucketArn = stack.formatArn({ service: 's3', region: '', account: '', resource: this.stagingBucketName });
    const prefix = stagingPrefix(agentId);

    // Its own prefix, and only that: objects under <id>/, and listing only with a prefix inside it.
    props.taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'OwnStagingObjects',
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
        resources: [`${bucketArn}/${prefix}*`],
      }),
    );
    props.taskRole.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'OwnStagingListing',
        actions: ['s3:ListBucket'],
        resources: [bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${prefix}*`] } },
      }),
    );
    // The template's name for the bucket parameter, as cdk-nag writes the finding.
    const bucketParam = (stack.resolve(this.stagingBucketName) as { Ref: string }).Ref;
    acknowledge(
      props.taskRole,
      'IAM5',
      'The agent’s own prefix of the workspace staging bucket (<id>/*): the objects of its own transfers, no other agent’s.',
      `Resource::arn:<AWS::Partition>:s3:::<${bucketParam}>/${prefix}*`,
    );

    this.taskDefinition = agentTaskDefinition(this, 'Task', {
      family: agentWorkspaceTaskFamily(fleet, agentId),
      cpu: 256,
      memoryLimitMiB: 512,
      taskRole: props.taskRole,
      executionRole: props.executionRole,
      architecture: props.architecture,
      fileSystem: props.fileSystem,
      volumes: { workspace: props.accessPoint },
    });
    const linuxParameters = new ecs.LinuxParameters(this, 'Linux');
    linuxParameters.dropCapabilities(ecs.Capability.ALL);
    const container = this.taskDefinition.addContainer(WORKSPACE_SYNC_CONTAINER, {
      image: props.image,
      essential: true,
      // The access point's user: every file operation is its anyway; the process runs as it too.
      user: RUNTIME_UID,
      command: WORKSPACE_SYNC_COMMAND,
      readonlyRootFilesystem: true,
      linuxParameters,
      logging: ecs.LogDrivers.awsLogs({ logGroup: props.logGroup, streamPrefix: 'workspace' }),
      environment: {
        CLAWFLEET_AGENT_ID: agentId,
        CLAWFLEET_WORKSPACE: WORKSPACE_PATH,
        CLAWFLEET_STAGING_BUCKET: this.stagingBucketName,
        CLAWFLEET_STAGING_PREFIX: prefix,
      },
    });
    container.addMountPoints({ containerPath: WORKSPACE_PATH, sourceVolume: 'workspace', readOnly: false });
    acknowledge(this.taskDefinition, 'ECS2', 'The environment holds the agent id, a bucket name and a prefix; no secret (the task reads none).');
  }
}
