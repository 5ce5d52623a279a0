// The fleet's network and shared compute: a VPC with public subnets only (runtimes reach
// SQS, Secrets Manager, Telegram and model APIs through an internet gateway, so there is
// no NAT gateway to pay for), the ECS cluster, the runtimes' security group (out only, to
// the ports the config needs: runtime-egress.ts), and the encrypted EFS file system that
// holds every agent's workspace behind its access point, reachable from that group alone.
import { RemovalPolicy } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as efs from 'aws-cdk-lib/aws-efs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { clusterName } from '../../shared/config/names.ts';
import { acknowledge } from '../nag.ts';
import type { EgressPort } from '../runtime-egress.ts';
import { AVAILABILITY_ZONES, VPC_CIDR, type SubnetPlan } from '../fleet-subnets.ts';

const NFS = ec2.Port.tcp(2049);

export interface FleetNetworkProps {
  fleet: string;
  emulator: boolean;
  logRetention: logs.RetentionDays;
  /** What the runtimes connect out to, besides NFS (runtime-egress.ts). */
  egressPorts: readonly EgressPort[];
  /** The subnet groups, sized for the fleet (fleet-subnets.ts). */
  subnets: SubnetPlan;
}

export class FleetNetwork extends Construct {
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  /** Egress only: nothing connects to a runtime. */
  readonly runtimeSecurityGroup: ec2.SecurityGroup;
  readonly fileSystem: efs.FileSystem;

  constructor(scope: Construct, id: string, props: FleetNetworkProps) {
    super(scope, id);
    this.vpc = new ec2.Vpc(this, 'Vpc', {
      ipAddresses: ec2.IpAddresses.cidr(VPC_CIDR),
      maxAzs: AVAILABILITY_ZONES,
      natGateways: 0,
      // The first group (two /24s) always, a second (two /20s) after it for a large fleet: adding it replaces nothing.
      subnetConfiguration: props.subnets.groups.map((g) => ({ name: g.name, subnetType: ec2.SubnetType.PUBLIC, cidrMask: g.cidrMask })),
      // The emulator cannot run the custom resource that strips the default group's rules.
      restrictDefaultSecurityGroup: !props.emulator,
    });
    if (!props.emulator) {
      // Rejected traffic only: the record a security review needs, at a fraction of the volume.
      const flowLogs = new logs.LogGroup(this, 'FlowLogs', { retention: props.logRetention, removalPolicy: RemovalPolicy.DESTROY });
      this.vpc.addFlowLog('FlowLog', { destination: ec2.FlowLogDestination.toCloudWatchLogs(flowLogs), trafficType: ec2.FlowLogTrafficType.REJECT });
    } else {
      acknowledge(
        this.vpc,
        'VPC7',
        'Emulator deploys only: the emulator has no AWS::EC2::FlowLog and no traffic to log; every AWS deploy gets the REJECT flow log.',
      );
    }

    this.runtimeSecurityGroup = new ec2.SecurityGroup(this, 'RuntimeSecurityGroup', {
      vpc: this.vpc,
      description: `Agent runtimes: out to TCP ${props.egressPorts.map((p) => p.port).join(', ')} and NFS; no inbound`,
      allowAllOutbound: false,
    });
    // Inline rules (a CIDR peer): the emulator has no separate egress resource either.
    for (const { port, why } of props.egressPorts) this.runtimeSecurityGroup.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(port), why.slice(0, 255));
    // To the workspaces' mount targets, which are in this VPC (a CIDR, not the file system's
    // group: that group names this one, and two groups naming each other inline are a cycle).
    this.runtimeSecurityGroup.addEgressRule(ec2.Peer.ipv4(VPC_CIDR), NFS, 'NFS to the workspaces file system');

    this.fileSystem = new efs.FileSystem(this, 'Workspaces', {
      vpc: this.vpc,
      // One mount target per zone, in the first group's subnets (a zone takes only one): every subnet of the zone reaches it.
      vpcSubnets: { subnetGroupName: 'public' },
      encrypted: true,
      performanceMode: efs.PerformanceMode.GENERAL_PURPOSE,
      throughputMode: efs.ThroughputMode.ELASTIC,
      lifecyclePolicy: efs.LifecyclePolicy.AFTER_30_DAYS,
      // Transcripts and memory outlive a teardown unless the user deletes them (docs/deploy.md).
      removalPolicy: RemovalPolicy.RETAIN,
      // AWS Backup's daily backups of the whole file system, kept 35 days in the vault EFS
      // makes for them (aws/efs/automatic-backup-vault), which outlives the stack. A file
      // system made through the API has them off unless asked for (EFS User Guide, "Backing
      // up EFS file systems"); restoring one agent's directory: docs/operations.md.
      enableAutomaticBackups: true,
      // Not what the name says: it only stops CDK from adding its own statement, which lets
      // ClientWrite and ClientRootAccess to ANY principal that mounts through a mount target.
      // Anonymous (non-IAM) clients are still refused: once a file-system policy is in
      // effect, EFS's default allow-all policy is not, and this policy allows nobody. Each
      // task role's own grant (ClientMount and ClientWrite through its own access point,
      // agent-runtime.ts) is then the only way in; ClientRootAccess is granted to nobody.
      allowAnonymousAccess: true,
    });
    // NFS from the runtimes' security group alone (their one-off archive and workspace tasks
    // run in it too); who may mount what is decided by IAM on each mount. By the group's id,
    // so the rule is inline, not a separate ingress resource.
    this.fileSystem.connections.allowFrom(
      ec2.Peer.securityGroupId(this.runtimeSecurityGroup.securityGroupId),
      NFS,
      'NFS from agent runtimes and their one-off tasks',
    );
    // Clients must use TLS; who may mount and write which directory is decided by each task
    // role's access-point condition (IAM authorization on the mount). An allow in either the
    // identity or this policy grants an action (EFS User Guide, "Using IAM to control access
    // to file systems"), so this policy allows nothing.
    this.fileSystem.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'DenyInsecureTransport',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['*'],
        conditions: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );

    this.cluster = new ecs.Cluster(this, 'Cluster', {
      clusterName: clusterName(props.fleet),
      vpc: this.vpc,
      containerInsightsV2: ecs.ContainerInsights.DISABLED,
    });
    // Fargate and Fargate Spot, set on the cluster itself rather than through the separate
    // association resource CDK would add (which the emulator lacks; AWS takes either).
    (this.cluster.node.defaultChild as ecs.CfnCluster).capacityProviders = ['FARGATE', 'FARGATE_SPOT'];
    acknowledge(
      this.cluster,
      'ECS4',
      'Container Insights bills ~11 custom metrics per service (~$3/agent/month), more than a hibernating agent costs; ' +
        'runtime restarts are alarmed from each runtime log group by a metric filter instead.',
    );
  }
}
