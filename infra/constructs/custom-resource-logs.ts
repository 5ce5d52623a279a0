// Log groups with a retention for the functions CDK adds behind custom resources (the VPC's
// default-security-group cleanup): left alone, Lambda makes `/aws/lambda/<name>` itself on
// the first run and keeps it forever. Each such function is pointed (LoggingConfig) at a log
// group of the stack's own, kept as long as the fleet's other logs and deleted with the stack.
import { CfnResource, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** Gives every custom-resource provider function of `stack` a log group of its own; returns them. */
export function customResourceLogGroups(stack: Stack, retention: logs.RetentionDays, groupName: (provider: string) => string): logs.LogGroup[] {
  const groups: logs.LogGroup[] = [];
  for (const child of stack.node.children) {
    // CDK's providers sit at the stack's root as `Custom::<Name>CustomResourceProvider`, each with its function as `Handler`.
    if (!child.node.id.startsWith('Custom::')) continue;
    const handler = child.node.tryFindChild('Handler');
    if (!(handler instanceof CfnResource) || handler.cfnResourceType !== 'AWS::Lambda::Function') continue;
    const name = child.node.id.replace(/^Custom::/, '').replace(/CustomResourceProvider$/, '');
    const group = new logs.LogGroup(child as Construct, 'Logs', { logGroupName: groupName(name), retention, removalPolicy: RemovalPolicy.DESTROY });
    handler.addPropertyOverride('LoggingConfig', { LogGroup: group.logGroupName });
    handler.addResourceDependency(group.node.defaultChild as CfnResource);
    groups.push(group);
  }
  return groups;
}
