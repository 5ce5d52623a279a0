// What CDK leaves out of the functions it adds behind custom resources (the VPC's
// default-security-group cleanup). Left alone, Lambda makes `/aws/lambda/<name>` itself on the
// first run and keeps it forever: each such function is pointed (LoggingConfig) at a log group
// of the stack's own, kept as long as the fleet's other logs and deleted with the stack. And
// its role and function are plain CfnResources, which Tags.of does not reach: they get the
// stack's cost tags here.
import { CfnResource, RemovalPolicy, type Stack } from 'aws-cdk-lib';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface ProviderSettings {
  retention: logs.RetentionDays;
  /** The log group of the provider named `provider` (e.g. VpcRestrictDefaultSG). */
  logGroupName: (provider: string) => string;
  tags: Readonly<Record<string, string>>;
}

/** Applies the settings to every custom-resource provider of `stack`; returns the log groups made. */
export function settleCustomResourceProviders(stack: Stack, settings: ProviderSettings): logs.LogGroup[] {
  const groups: logs.LogGroup[] = [];
  const tags = Object.entries(settings.tags).map(([Key, Value]) => ({ Key, Value }));
  for (const child of stack.node.children) {
    // CDK's providers sit at the stack's root as `Custom::<Name>CustomResourceProvider`, each with its function as `Handler`.
    if (!child.node.id.startsWith('Custom::')) continue;
    const handler = child.node.tryFindChild('Handler');
    if (!(handler instanceof CfnResource) || handler.cfnResourceType !== 'AWS::Lambda::Function') continue;
    const name = child.node.id.replace(/^Custom::/, '').replace(/CustomResourceProvider$/, '');
    const group = new logs.LogGroup(child as Construct, 'Logs', {
      logGroupName: settings.logGroupName(name),
      retention: settings.retention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    handler.addPropertyOverride('LoggingConfig', { LogGroup: group.logGroupName });
    handler.addResourceDependency(group.node.defaultChild as CfnResource);
    handler.addPropertyOverride('Tags', tags);
    const role = child.node.tryFindChild('Role');
    if (role instanceof CfnResource && role.cfnResourceType === 'AWS::IAM::Role') role.addPropertyOverride('Tags', tags);
    groups.push(group);
  }
  return groups;
}
