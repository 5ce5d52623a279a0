// What `clawfleet destroy` decides without touching the account: where a secret that its
// stack would delete at once is kept for its recovery window, when that window ends, and what
// each resource a stack keeps on purpose (DeletionPolicy Retain) costs and how to delete it by
// hand. Pure.
import { agentSecretName } from '../config/names.ts';

/** A resource a stack's template keeps when the stack is deleted. */
export interface KeptResource {
  stack: string;
  logicalId: string;
  type: string;
  /** Its name or id: a table's name, a file system's id, a bucket's name. */
  physicalId: string;
}

/**
 * Whether a stack named `<fleet>-agent-<id>` is one clawfleet made for that agent: the app
 * describes it so, and outputs that agent's own secret name (which an emulator keeps where it
 * drops the description). Any other stack of that name is someone else's, never removed.
 */
export function madeForAgent(fleet: string, agentId: string, stack: { description: string; outputs: Record<string, string> }): boolean {
  return stack.description.startsWith(`clawfleet ${fleet}: agent ${agentId} (`) || stack.outputs.SecretName === agentSecretName(fleet, agentId);
}

/** Secrets Manager's recovery window: 7 to 30 days. */
export const RECOVERY_DAYS = { min: 7, max: 30, default: 30 } as const;

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Where destroy keeps a secret its stack deletes at once: a secret of its own, outside the
 * fleet's names (`clawfleet/<fleet>/…`) so a new deploy of the fleet never meets it, dated.
 */
export function keptSecretName(fleet: string, secretName: string, nowMs: number): string {
  const rest = secretName.startsWith(`clawfleet/${fleet}/`) ? secretName.slice(`clawfleet/${fleet}/`.length) : secretName;
  return `clawfleet-destroyed/${fleet}/${day(nowMs)}/${rest}`;
}

/** The day a deletion scheduled now with a recovery window of `days` takes effect (ISO date, UTC). */
export function recoveryEnds(nowMs: number, days: number): string {
  return day(nowMs + days * 86_400_000);
}

/** How to restore a secret kept for its recovery window, and read its values back into a deploy. */
export function restoreSecretCommand(kept: string): string {
  return `aws secretsmanager restore-secret --secret-id ${kept} && aws secretsmanager get-secret-value --secret-id ${kept} --query SecretString --output text`;
}

/** A kept resource for a person: what it is, what it costs while kept, and the commands that delete it. */
export function describeKept(r: KeptResource, region: string, account: string): { what: string; billed: string; remove: string } {
  switch (r.type) {
    case 'AWS::DynamoDB::Table':
      return {
        what: `DynamoDB table ${r.physicalId}`,
        billed: 'its storage and point-in-time recovery, per GB-month',
        remove: `aws dynamodb update-table --table-name ${r.physicalId} --no-deletion-protection-enabled --region ${region} && aws dynamodb delete-table --table-name ${r.physicalId} --region ${region}`,
      };
    case 'AWS::EFS::FileSystem':
      return {
        what: `EFS file system ${r.physicalId} (every agent's workspace and the archives of removed agents), with its daily backups in aws/efs/automatic-backup-vault`,
        billed: 'its storage, per GB-month, and its backups’ for their 35 days',
        remove:
          `aws efs delete-file-system --file-system-id ${r.physicalId} --region ${region}; its backups: aws backup list-recovery-points-by-resource --resource-arn ` +
          `arn:aws:elasticfilesystem:${region}:${account}:file-system/${r.physicalId} --region ${region}, then aws backup delete-recovery-point for each`,
      };
    case 'AWS::S3::Bucket':
      return {
        what: `S3 bucket ${r.physicalId}`,
        billed: 'what is left in it, per GB-month',
        remove: `aws s3 rb s3://${r.physicalId} --force --region ${region}`,
      };
    case 'AWS::Logs::LogGroup':
      return {
        what: `log group ${r.physicalId}`,
        billed: 'its stored logs, per GB-month',
        remove: `aws logs delete-log-group --log-group-name ${r.physicalId} --region ${region}`,
      };
    default:
      return {
        what: `${r.type} ${r.physicalId}`,
        billed: 'as its service bills it',
        remove: `delete it in its service's console or CLI (it was ${r.logicalId} in ${r.stack})`,
      };
  }
}
