// The fleet's CloudFormation stacks as the CLI handles them: their state and outputs (what
// `clawfleet deploy` reads), and for `clawfleet destroy` the resources their templates keep on
// purpose (DeletionPolicy Retain) with their physical ids, the secrets in them and whether the
// stack deletes them, termination protection, and the delete itself — always by name (an
// emulator ignores a DeleteStack by id).
import {
  CloudFormationClient,
  DeleteStackCommand,
  DescribeStackEventsCommand,
  DescribeStacksCommand,
  GetTemplateCommand,
  ListStackResourcesCommand,
  ListStacksCommand,
  UpdateTerminationProtectionCommand,
  type StackResourceSummary,
} from '@aws-sdk/client-cloudformation';
import type { AwsClientConfig } from './clients.ts';

export interface StackState {
  name: string;
  status: string;
  description: string;
  terminationProtection: boolean;
  outputs: Record<string, string>;
}

/** The deletion policies that keep a resource (CloudFormation User Guide, DeletionPolicy attribute). */
const KEEPS = new Set(['Retain', 'RetainExceptOnCreate']);

export const cloudFormationClient = (config: AwsClientConfig = {}) => new CloudFormationClient({ ...config, maxAttempts: 3 });

export class CloudFormationStacks {
  constructor(private readonly cfn: CloudFormationClient) {}

  /** The stack, or undefined when there is none (or only a deleted one). */
  async get(name: string): Promise<StackState | undefined> {
    try {
      const s = (await this.cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0];
      if (!s || s.StackStatus === 'DELETE_COMPLETE') return undefined;
      return {
        name,
        status: s.StackStatus ?? 'UNKNOWN',
        description: s.Description ?? '',
        terminationProtection: s.EnableTerminationProtection === true,
        outputs: Object.fromEntries((s.Outputs ?? []).filter((o) => o.OutputKey && o.OutputValue).map((o) => [o.OutputKey!, o.OutputValue!])),
      };
    } catch (err) {
      if (/does not exist/.test((err as Error).message)) return undefined;
      throw err;
    }
  }

  /** Names of the stacks not deleted whose name starts with `prefix`. */
  async names(prefix: string): Promise<string[]> {
    const names: string[] = [];
    let NextToken: string | undefined;
    do {
      const page = await this.cfn.send(new ListStacksCommand({ NextToken }));
      for (const s of page.StackSummaries ?? []) if (s.StackStatus !== 'DELETE_COMPLETE' && s.StackName?.startsWith(prefix)) names.push(s.StackName);
      NextToken = page.NextToken;
    } while (NextToken);
    return [...new Set(names)].sort();
  }

  /** The resources of the deployed template, by logical id: type, deletion policy and physical id. */
  async resources(name: string): Promise<{ logicalId: string; type: string; keptOnDelete: boolean; physicalId: string | undefined }[]> {
    const { TemplateBody } = await this.cfn.send(new GetTemplateCommand({ StackName: name }));
    const template = (typeof TemplateBody === 'string' ? JSON.parse(TemplateBody) : (TemplateBody ?? {})) as {
      Resources?: Record<string, { Type?: string; DeletionPolicy?: string }>;
    };
    const physical = new Map<string, string>();
    let NextToken: string | undefined;
    do {
      const page = await this.cfn.send(new ListStackResourcesCommand({ StackName: name, NextToken }));
      for (const r of page.StackResourceSummaries ?? ([] as StackResourceSummary[]))
        if (r.LogicalResourceId && r.PhysicalResourceId) physical.set(r.LogicalResourceId, r.PhysicalResourceId);
      NextToken = page.NextToken;
    } while (NextToken);
    return Object.entries(template.Resources ?? {}).map(([logicalId, r]) => ({
      logicalId,
      type: r.Type ?? 'unknown',
      keptOnDelete: KEEPS.has(r.DeletionPolicy ?? ''),
      physicalId: physical.get(logicalId),
    }));
  }

  async setTerminationProtection(name: string, on: boolean): Promise<void> {
    await this.cfn.send(new UpdateTerminationProtectionCommand({ StackName: name, EnableTerminationProtection: on }));
  }

  /** Asks CloudFormation to delete the stack; `stack()` says when it is gone. */
  async delete(name: string): Promise<void> {
    await this.cfn.send(new DeleteStackCommand({ StackName: name }));
  }

  /** Why a delete failed: each resource CloudFormation could not delete, with its reason. */
  async failedResources(name: string): Promise<string> {
    try {
      const { StackEvents = [] } = await this.cfn.send(new DescribeStackEventsCommand({ StackName: name }));
      const failed = StackEvents.filter((e) => e.ResourceStatus === 'DELETE_FAILED' && e.LogicalResourceId !== name);
      return (
        failed.map((e) => `${e.LogicalResourceId} (${e.ResourceType}): ${e.ResourceStatusReason ?? 'no reason given'}`).join('; ') || 'no failed resource named'
      );
    } catch {
      return 'its events could not be read';
    }
  }
}
