// What a teardown keeps on purpose, and so what stays billed after every stack is deleted:
// the data a user would miss (agent records and approved pairings, sessions, workspaces) and
// the buckets whose objects expire on their own. One list, pure (no CDK), for `clawfleet
// destroy` to print and for the test that checks it against every Retain in the templates.
import { sharedParameterNames, tableNames } from '../shared/config/names.ts';

/** The control plane's tables that hold what a user would miss; the others expire their items (TTL) and go with the stack. */
export const RETAINED_TABLES = ['registry', 'sessions'] as const satisfies readonly (keyof ReturnType<typeof tableNames>)[];

export interface RetainedResource {
  /** Its CloudFormation type (what the synth test matches each Retain against). */
  type: 'AWS::DynamoDB::Table' | 'AWS::EFS::FileSystem' | 'AWS::S3::Bucket';
  /** What it is, for a person. */
  what: string;
  /** Its name where the fleet fixes it (tables); otherwise where to read it before the stacks go. */
  name?: string;
  /** The SSM parameter that names it, while the control-plane stack exists. */
  parameter?: string;
  /** What it holds that a user would miss. */
  holds: string;
  /** What it costs while it is kept. */
  billed: string;
  /** The commands that delete it for good (after an export). */
  remove: string;
}

/** Everything of `fleet` that outlives `cdk destroy` (its deletion policy is Retain), in the order a teardown should name them. */
export function retainedResources(fleet: string): RetainedResource[] {
  const tables = tableNames(fleet);
  const params = sharedParameterNames(fleet);
  const table = (role: (typeof RETAINED_TABLES)[number], holds: string): RetainedResource => ({
    type: 'AWS::DynamoDB::Table',
    what: `DynamoDB table ${tables[role]} (deletion protection on)`,
    name: tables[role],
    holds,
    billed: 'storage ($0.25 per GB-month) and its point-in-time recovery ($0.20 per GB-month); no requests once nothing runs',
    remove:
      `aws dynamodb update-table --table-name ${tables[role]} --no-deletion-protection-enabled && ` + `aws dynamodb delete-table --table-name ${tables[role]}`,
  });
  return [
    table('registry', 'each agent’s record, approved pairings (who may talk to which bot), relay records and the dashboard’s metrics'),
    table('sessions', 'each session’s agent and last chat (where cron jobs and heartbeats deliver), and its reported figures'),
    {
      type: 'AWS::EFS::FileSystem',
      what: 'the workspaces file system (and its daily backups in aws/efs/automatic-backup-vault, kept 35 days)',
      parameter: params.fileSystemId,
      holds: 'every agent’s workspace (transcripts, memory, files) and the archives of removed agents',
      billed: 'storage ($0.30 per GB-month Standard, less in Infrequent Access) and the backups’ storage',
      remove: 'aws efs delete-file-system --file-system-id <id> (once its mount targets are gone); aws backup delete-recovery-point for each backup',
    },
    {
      type: 'AWS::S3::Bucket',
      what: 'the workspace staging bucket',
      parameter: params.stagingBucket,
      holds: 'copies left by an interrupted `clawfleet workspace` transfer (they expire within 7 days)',
      billed: 'S3 storage of what is left ($0.023 per GB-month), usually nothing',
      remove: 'aws s3 rb s3://<bucket> --force',
    },
    {
      type: 'AWS::S3::Bucket',
      what: 'the media bucket',
      parameter: params.mediaBucket,
      holds: 'chat attachments and files agents sent (each expires after media.expireDays)',
      billed: 'S3 storage of what is left ($0.023 per GB-month) until it expires',
      remove: 'aws s3 rb s3://<bucket> --force',
    },
  ];
}
