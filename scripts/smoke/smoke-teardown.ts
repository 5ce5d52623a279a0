// Taking down everything a smoke run made (plan.ts teardownList says what, in this order):
// each item is tried even when one before it failed, and whatever could not be deleted is
// printed with the command that deletes it by hand, so a run never leaves a bill unnamed.
import {
  CloudFormationClient,
  DeleteStackCommand,
  DescribeStacksCommand,
  ListStackResourcesCommand,
  UpdateTerminationProtectionCommand,
} from '@aws-sdk/client-cloudformation';
import { DeleteTableCommand, DynamoDBClient, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { BackupClient, DeleteRecoveryPointCommand, ListRecoveryPointsByResourceCommand } from '@aws-sdk/client-backup';
import { CloudWatchLogsClient, DeleteLogGroupCommand, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { DeleteFileSystemCommand, DescribeMountTargetsCommand, EFSClient } from '@aws-sdk/client-efs';
import type { AwsSettings } from '../../cli/aws-env.ts';
import { RETAINED_TABLES } from '../../infra/retained-resources.ts';
import { agentStackName, controlPlaneStackName, tableNames } from '../../shared/config/names.ts';
import { SMOKE_AGENT, teardownList, type TeardownItem } from './smoke-plan.ts';

export interface TeardownStep extends TeardownItem {
  /** Does it; resolves with what was done, rejects with why not. */
  run(): Promise<string>;
}

/** Runs every step, each whatever the one before did; true when all were done. */
export async function runTeardown(steps: TeardownStep[], out: (line: string) => void): Promise<boolean> {
  const left: TeardownStep[] = [];
  for (const step of steps) {
    try {
      out(`  ✓ ${step.what}: ${await step.run()}`);
    } catch (err) {
      left.push(step);
      out(`  ✗ ${step.what}: ${(err as Error).message}`);
    }
  }
  if (left.length) {
    out('NOT deleted — delete these by hand, or they keep costing:');
    for (const s of left) out(`  ${s.byHand}`);
  }
  return left.length === 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The AWS steps for `fleet`, in teardownList's order; `fileSystemId` is read before the stacks go (it is in their outputs and parameters). */
export function awsTeardown(
  fleet: string,
  aws: AwsSettings,
  fileSystemId: () => string | undefined,
  opts = { pollMs: 10_000, timeoutMs: 30 * 60_000 },
): TeardownStep[] {
  const cfn = new CloudFormationClient(aws);
  const efs = new EFSClient(aws);
  const [agentItem, cpItem, tablesItem, fsItem, backupItem, logsItem] = teardownList(fleet) as [
    TeardownItem,
    TeardownItem,
    TeardownItem,
    TeardownItem,
    TeardownItem,
    TeardownItem,
  ];
  const deleteStack = async (name: string, how: { protectedFromTermination?: boolean } = {}): Promise<string> => {
    const status = async () => {
      try {
        return (await cfn.send(new DescribeStacksCommand({ StackName: name }))).Stacks?.[0]?.StackStatus;
      } catch (err) {
        if (/does not exist/.test((err as Error).message)) return undefined;
        throw err;
      }
    };
    if ((await status()) === undefined) return 'not there';
    if (how.protectedFromTermination) await cfn.send(new UpdateTerminationProtectionCommand({ StackName: name, EnableTerminationProtection: false }));
    await cfn.send(new DeleteStackCommand({ StackName: name }));
    const deadline = Date.now() + opts.timeoutMs;
    for (;;) {
      const s = await status();
      if (s === undefined || s === 'DELETE_COMPLETE') return 'deleted';
      if (s === 'DELETE_FAILED') throw new Error('DELETE_FAILED (see its events in the CloudFormation console)');
      if (Date.now() > deadline) throw new Error(`still ${s} after ${opts.timeoutMs / 60_000} min`);
      await sleep(opts.pollMs);
    }
  };
  return [
    { ...agentItem, run: () => deleteStack(agentStackName(fleet, SMOKE_AGENT)) },
    { ...cpItem, run: () => deleteStack(controlPlaneStackName(fleet), { protectedFromTermination: true }) },
    {
      ...tablesItem,
      async run() {
        const dynamo = new DynamoDBClient(aws);
        const done: string[] = [];
        for (const role of RETAINED_TABLES) {
          const TableName = tableNames(fleet)[role];
          try {
            await dynamo.send(new UpdateTableCommand({ TableName, DeletionProtectionEnabled: false }));
            await dynamo.send(new DeleteTableCommand({ TableName }));
            done.push(`${TableName} deleted`);
          } catch (err) {
            if ((err as Error).name !== 'ResourceNotFoundException') throw err;
            done.push(`${TableName} not there`);
          }
        }
        return done.join(', ');
      },
    },
    {
      ...fsItem,
      byHand: fileSystemId() ? `aws efs delete-file-system --file-system-id ${fileSystemId()}` : fsItem.byHand,
      async run() {
        const id = fileSystemId();
        if (!id) throw new Error('its id was never read (the control plane did not deploy?): look for a file system tagged with the fleet');
        // Its mount targets went with the control plane's stack; EFS takes a moment to let them go.
        const deadline = Date.now() + 10 * 60_000;
        for (;;) {
          let targets;
          try {
            targets = (await efs.send(new DescribeMountTargetsCommand({ FileSystemId: id }))).MountTargets ?? [];
          } catch (err) {
            if ((err as Error).name === 'FileSystemNotFound') return `${id} not there`;
            throw err;
          }
          if (targets.length === 0) break;
          if (Date.now() > deadline) throw new Error(`${id} still has ${targets.length} mount target(s)`);
          await sleep(opts.pollMs);
        }
        await efs.send(new DeleteFileSystemCommand({ FileSystemId: id }));
        return `${id} deleted`;
      },
    },
    {
      ...backupItem,
      async run() {
        const id = fileSystemId();
        if (!id) return 'no file system, so none';
        const backup = new BackupClient(aws);
        const arn = `arn:aws:elasticfilesystem:${aws.region}:${await accountOf(aws)}:file-system/${id}`;
        const points = (await backup.send(new ListRecoveryPointsByResourceCommand({ ResourceArn: arn }))).RecoveryPoints ?? [];
        for (const p of points)
          await backup.send(new DeleteRecoveryPointCommand({ BackupVaultName: p.BackupVaultName!, RecoveryPointArn: p.RecoveryPointArn! }));
        return points.length ? `${points.length} deleted` : 'none was made';
      },
    },
    {
      ...logsItem,
      async run() {
        const logs = new CloudWatchLogsClient(aws);
        const deleted: string[] = [];
        for (const prefix of [`/clawfleet/${fleet}/`, `/aws/lambda/${fleet}-`]) {
          const groups = (await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: prefix }))).logGroups ?? [];
          for (const g of groups) {
            await logs.send(new DeleteLogGroupCommand({ logGroupName: g.logGroupName! }));
            deleted.push(g.logGroupName!);
          }
        }
        return deleted.length ? `deleted ${deleted.join(', ')}` : 'none left';
      },
    },
  ];
}

/** The file system the fleet's control plane made, by its stack's resources. */
export async function fileSystemOf(fleet: string, aws: AwsSettings): Promise<string | undefined> {
  const cfn = new CloudFormationClient(aws);
  let NextToken: string | undefined;
  do {
    const page = await cfn.send(new ListStackResourcesCommand({ StackName: controlPlaneStackName(fleet), NextToken }));
    const fs = page.StackResourceSummaries?.find((r) => r.ResourceType === 'AWS::EFS::FileSystem');
    if (fs?.PhysicalResourceId) return fs.PhysicalResourceId;
    NextToken = page.NextToken;
  } while (NextToken);
  return undefined;
}

async function accountOf(aws: AwsSettings): Promise<string> {
  const { STSClient, GetCallerIdentityCommand } = await import('@aws-sdk/client-sts');
  return (await new STSClient(aws).send(new GetCallerIdentityCommand({}))).Account!;
}
