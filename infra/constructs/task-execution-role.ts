// The fleet's one execution role for agent tasks (the runtimes, their archive and workspace
// tasks): what ECS uses to pull the runtime image and ship each task's logs. It is never a
// task's own credentials (those come from the task role; a container cannot obtain the
// execution role's), so one role serves every agent without widening any agent's reach, and
// the fleet makes N fewer roles (docs/deploy.md, "A thousand agents"). Agent stacks find it
// by its name (names.ts taskExecutionRoleName).
import { ArnFormat, DefaultStackSynthesizer, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { agentLogGroupName, taskExecutionRoleName } from '../../shared/config/names.ts';
import { acknowledge } from '../nag.ts';

export class TaskExecutionRole extends Construct {
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: { fleet: string }) {
    super(scope, id);
    const stack = Stack.of(this);
    const { fleet } = props;
    this.role = new iam.Role(this, 'Role', {
      roleName: taskExecutionRoleName(fleet),
      assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com', { conditions: { StringEquals: { 'aws:SourceAccount': stack.account } } }),
      description: `clawfleet ${fleet}: pulls the runtime image and ships the logs of every agent task (never a task's own credentials)`,
    });
    // The runtime image is a CDK asset in the bootstrap's container repository.
    const synthesizer = stack.synthesizer instanceof DefaultStackSynthesizer ? stack.synthesizer : undefined;
    const qualifier = synthesizer?.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
    const repository = stack.formatArn({
      service: 'ecr',
      resource: 'repository',
      resourceName: `cdk-${qualifier}-container-assets-${stack.account}-${stack.region}`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'PullRuntimeImage',
        actions: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
        resources: [repository],
      }),
    );
    this.role.addToPolicy(new iam.PolicyStatement({ sid: 'RegistryLogin', actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }));
    // Every agent's log group, present and future (one per agent stack, by its deterministic name).
    const agentLogs = stack.formatArn({
      service: 'logs',
      resource: 'log-group',
      resourceName: `${agentLogGroupName(fleet, '*')}:log-stream:*`,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.role.addToPolicy(new iam.PolicyStatement({ sid: 'AgentLogs', actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [agentLogs] }));
    acknowledge(
      this.role,
      'IAM5',
      'ecr:GetAuthorizationToken takes no resource (an ECR login is account-wide); image pulls are limited to the CDK asset repository.',
      'Resource::*',
    );
    acknowledge(
      this.role,
      'IAM5',
      `The log streams of this fleet's agents' log groups (${agentLogGroupName(fleet, '*')}), each made by its agent's stack; ECS writes a task's logs with this role, the task itself never holds it.`,
      `Resource::arn:<AWS::Partition>:logs:<AWS::Region>:<AWS::AccountId>:log-group:${agentLogGroupName(fleet, '*')}:log-stream:*`,
    );
  }
}
