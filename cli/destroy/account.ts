// What `clawfleet destroy` needs of the account (DestroyAccount), and its AWS composition from
// the adapters in shared/adapters/aws/ — CloudFormation stacks, Secrets Manager, the tables,
// the schedule group — with each agent's workspace pulled as `clawfleet workspace pull --aws`
// pulls it. A test gives its own (in memory, or the emulator's with the workspace task played
// by a process).
import { mkdirSync } from 'node:fs';
import type { SecretListing } from '../../shared/adapters/aws/secrets-manager-admin.ts';
import type { StackState } from '../../shared/adapters/aws/cloudformation-stacks.ts';
import { scheduleGroupName, tableNames } from '../../shared/config/names.ts';
import { readTelegramTokens } from '../../shared/secrets/telegram-secrets.ts';
import type { FleetConfig } from '../../shared/config/schema.ts';
import type { PairingRecord } from '../../shared/ports.ts';
import type { AwsSettings } from '../aws-env.ts';
import type { CliIO } from '../command.ts';
import type { AwsTransferDeps } from '../workspace/aws-transfer.ts';

export type { SecretListing, StackState };

export interface StackResource {
  logicalId: string;
  type: string;
  keptOnDelete: boolean;
  physicalId: string | undefined;
}

export interface DestroyAccount {
  readonly region: string;
  identity(): Promise<{ account: string; arn: string }>;
  stack(name: string): Promise<StackState | undefined>;
  /** Stacks not deleted whose names start with `prefix`. */
  stackNames(prefix: string): Promise<string[]>;
  stackResources(name: string): Promise<StackResource[]>;
  setTerminationProtection(name: string, on: boolean): Promise<void>;
  deleteStack(name: string): Promise<void>;
  failedResources(name: string): Promise<string>;
  secrets(prefix: string): Promise<SecretListing[]>;
  secret(id: string): Promise<SecretListing | undefined>;
  copySecret(from: string, to: string, description: string): Promise<'copied' | 'exists' | 'empty'>;
  scheduleSecretDeletion(id: string, days: number): Promise<number>;
  /** The bot tokens in the Telegram secret; none once it is gone. */
  botTokens(): Promise<Record<string, string>>;
  /** The schedules agents made themselves (`agent-*` in the fleet's group); none once the group is gone. */
  agentSchedules(): Promise<string[]>;
  deleteSchedule(name: string): Promise<void>;
  exportTable(table: string, onItem: (item: Record<string, unknown>) => void): Promise<number | 'absent'>;
  approvedPairings(): Promise<PairingRecord[] | 'absent'>;
  /** Pulls the agent's workspace into `dir` (resumable: what arrived is not sent again); the number of files. */
  pullWorkspace(agentId: string, dir: string, say: (line: string) => void): Promise<number>;
}

/** The AWS account of the CLI's credentials; `transfer` replaces the workspace pull's dependencies (tests). */
export async function awsDestroyAccount(
  config: FleetConfig,
  aws: AwsSettings,
  io: CliIO,
  transfer?: (agentId: string) => Promise<AwsTransferDeps>,
): Promise<DestroyAccount> {
  const [
    { CloudFormationStacks, cloudFormationClient },
    { SecretsManagerAdmin },
    clients,
    { DynamoTableExport },
    { DynamoPairingStore },
    { SecretsManagerStore },
  ] = await Promise.all([
    import('../../shared/adapters/aws/cloudformation-stacks.ts'),
    import('../../shared/adapters/aws/secrets-manager-admin.ts'),
    import('../../shared/adapters/aws/clients.ts'),
    import('../../shared/adapters/aws/dynamo-table-export.ts'),
    import('../../shared/adapters/aws/dynamo-pairing-store.ts'),
    import('../../shared/adapters/aws/secrets-manager-store.ts'),
  ]);
  const [{ eventBridgeCronScheduler }, { callerIdentity }] = await Promise.all([
    import('../../shared/adapters/aws/eventbridge-cron-scheduler.ts'),
    import('../../shared/adapters/aws/caller-identity.ts'),
  ]);
  const stacks = new CloudFormationStacks(cloudFormationClient(aws));
  const sm = clients.secretsManagerClient(aws);
  const secrets = new SecretsManagerAdmin(sm);
  const doc = clients.dynamoDocumentClient(aws);
  // Listing and deleting only: the target is what put() would need.
  const schedules = eventBridgeCronScheduler(aws, { group: scheduleGroupName(config.fleet), functionArn: '', roleArn: '' });
  const pairings = new DynamoPairingStore(doc, tableNames(config.fleet).registry);
  const gone = (err: unknown) => (err as Error).name === 'ResourceNotFoundException';
  return {
    region: aws.region,
    identity: () => callerIdentity(aws),
    stack: (name) => stacks.get(name),
    stackNames: (prefix) => stacks.names(prefix),
    stackResources: (name) => stacks.resources(name),
    setTerminationProtection: (name, on) => stacks.setTerminationProtection(name, on),
    deleteStack: (name) => stacks.delete(name),
    failedResources: (name) => stacks.failedResources(name),
    secrets: (prefix) => secrets.list(prefix),
    secret: (id) => secrets.describe(id),
    copySecret: (from, to, description) => secrets.copy(from, to, description),
    scheduleSecretDeletion: (id, days) => secrets.scheduleDeletion(id, days),
    async botTokens() {
      const store = new SecretsManagerStore(sm);
      // Every telegram secret of the fleet (one, or more beyond 400 bots: telegram-secrets.ts).
      return readTelegramTokens(config, async (id) => {
        try {
          return await store.get(id);
        } catch (err) {
          // Gone, or scheduled for deletion (unreadable until restored): no token to call with.
          if ((err as { code?: string }).code === 'SECRET_NOT_FOUND' || /InvalidRequestException/.test((err as Error).message)) return {};
          throw err;
        }
      });
    },
    async agentSchedules() {
      try {
        return await schedules.list('agent-');
      } catch (err) {
        if (gone(err)) return [];
        throw err;
      }
    },
    async deleteSchedule(name) {
      await schedules.delete(name);
    },
    exportTable: (table, onItem) => new DynamoTableExport(doc).scan(table, onItem),
    async approvedPairings() {
      try {
        return await pairings.listApproved();
      } catch (err) {
        if (gone(err)) return 'absent';
        throw err;
      }
    },
    async pullWorkspace(agentId, dir, say) {
      const [{ pullFromAws }, { awsTransferDeps }] = await Promise.all([import('../workspace/aws-transfer.ts'), import('../workspace/aws-deps.ts')]);
      const deps = { ...(await (transfer ?? ((id: string) => awsTransferDeps(config, id, io)))(agentId)), say, interrupted: () => io.interrupted() };
      mkdirSync(dir, { recursive: true });
      // Held asleep while it is read; --force: this folder is the export's, written by destroy alone.
      const s = await pullFromAws(agentId, dir, { force: true, hibernate: true }, deps);
      return s.files;
    },
  };
}
