// What the agent stacks share with the control plane, passed by weak reference: the control
// plane publishes each id in an SSM parameter (names.ts sharedParameterNames) and agent
// stacks read them as CloudFormation SSM parameters at deploy time, or compute names that
// are deterministic (the cluster, the schedules' DLQ). No CloudFormation export ties them,
// so the control plane's network, file system and scheduler role can be replaced while
// agents exist: replace, then redeploy the agent stacks (docs/deploy.md).
import { ArnFormat, Fn, Lazy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { clusterName, sharedParameterNames } from '../../shared/config/names.ts';
import { ClawfleetError } from '../../shared/errors.ts';
import { schedulesDlqName } from './cron-invoker.ts';
import { AVAILABILITY_ZONES } from '../fleet-subnets.ts';
import type { FleetNetwork } from './fleet-network.ts';

export interface SharedParametersProps {
  fleet: string;
  network: FleetNetwork;
  schedulerRole: iam.IRole;
  /** How many public subnets runtimes run in (fleet-subnets.ts, from the agent count). */
  subnets: number;
}

/** The control plane's side: one SSM parameter per shared resource. */
export class SharedParameters extends Construct {
  constructor(scope: Construct, id: string, props: SharedParametersProps) {
    super(scope, id);
    const names = sharedParameterNames(props.fleet);
    const subnets = props.network.vpc.publicSubnets;
    if (subnets.length !== props.subnets)
      throw new ClawfleetError('INFRA_INCOMPLETE', `the fleet VPC has ${subnets.length} public subnets; agent stacks expect ${props.subnets}`);
    const param = (cid: string, parameterName: string, stringValue: string, description: string) =>
      new ssm.StringParameter(this, cid, { parameterName, stringValue, description: `clawfleet ${props.fleet}: ${description}` });
    new ssm.StringListParameter(this, 'SubnetIds', {
      parameterName: names.subnetIds,
      stringListValue: subnets.map((s) => s.subnetId),
      description: `clawfleet ${props.fleet}: the public subnets agent runtimes run in`,
    });
    param(
      'RuntimeSecurityGroupId',
      names.runtimeSecurityGroupId,
      props.network.runtimeSecurityGroup.securityGroupId,
      'the security group of the agent runtimes',
    );
    param('FileSystemId', names.fileSystemId, props.network.fileSystem.fileSystemId, 'the EFS file system of the agent workspaces');
    param('SchedulerRoleArn', names.schedulerRoleArn, props.schedulerRole.roleArn, 'the role EventBridge Scheduler invokes cron-dispatch with');
  }
}

export interface SharedResources {
  cluster: ecs.ICluster;
  subnets: ec2.ISubnet[];
  securityGroup: ec2.ISecurityGroup;
  fileSystem: efs.IFileSystem;
  schedulerRoleArn: () => string;
  schedulesDeadLetterArn: string;
}

/** An agent stack's side: the shared resources, found by parameter or by name. */
export function importSharedResources(scope: Construct, id: string, fleet: string, subnetCount: number): SharedResources {
  const at = new Construct(scope, id);
  const names = sharedParameterNames(fleet);
  const value = (name: string) => ssm.StringParameter.valueForStringParameter(at, name);
  const subnetList = ssm.StringListParameter.valueForTypedListParameter(at, names.subnetIds);
  const subnets = Array.from({ length: subnetCount }, (_, i) => ec2.Subnet.fromSubnetId(at, `Subnet${i}`, Fn.select(i, subnetList)));
  // An imported cluster needs a VPC object, but the service is given its subnets and
  // security group, so nothing renders the VPC's id, and the agent stacks do not know it.
  // Should code ever render it, the synth fails here instead of guessing one.
  const vpcId = Lazy.string({
    produce: () => {
      throw new ClawfleetError(
        'INFRA_INCOMPLETE',
        "the agent stacks do not know the fleet VPC's id (they are given its subnets); publish it as a shared parameter first",
      );
    },
  });
  const availabilityZones = Array.from({ length: AVAILABILITY_ZONES }, (_, i) => Fn.select(i, Fn.getAzs()));
  const vpc = ec2.Vpc.fromVpcAttributes(at, 'Vpc', { vpcId, availabilityZones });
  let schedulerRoleArn: string | undefined;
  const securityGroup = ec2.SecurityGroup.fromSecurityGroupId(at, 'RuntimeSecurityGroup', value(names.runtimeSecurityGroupId), {
    allowAllOutbound: true,
    mutable: false,
  });
  return {
    cluster: ecs.Cluster.fromClusterAttributes(at, 'Cluster', { clusterName: clusterName(fleet), vpc, securityGroups: [] }),
    subnets,
    securityGroup,
    // The import wants a security group; only the file system's id and ARN are used here
    // (the access point, the volume, the task role's grant), never its connections.
    fileSystem: efs.FileSystem.fromFileSystemAttributes(at, 'Workspaces', { fileSystemId: value(names.fileSystemId), securityGroup }),
    // Read only by a stack that has schedules (an unused template parameter is a warning).
    schedulerRoleArn: () => (schedulerRoleArn ??= value(names.schedulerRoleArn)),
    schedulesDeadLetterArn: Stack.of(scope).formatArn({ service: 'sqs', resource: schedulesDlqName(fleet), arnFormat: ArnFormat.NO_RESOURCE_NAME }),
  };
}
