// Where workspaces wait on their way in and out of EFS (`clawfleet workspace push|pull`):
// one private bucket per fleet, one prefix per agent (<id>/), which only that agent's task
// role may read or write (the grant is made in its own stack, agent-workspace-task.ts). The
// objects are transient copies: encrypted, TLS only, and expired after a week whatever
// happens to the transfer that left them. Agent stacks find the bucket by SSM parameter.
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { sharedParameterNames } from '../../shared/config/names.ts';
import { expiringBucket } from './expiring-bucket.ts';

/** How long a staged copy lives if its transfer never cleans it up (an interrupted one resumes within this). */
export const STAGING_EXPIRY_DAYS = 7;

export class WorkspaceStaging extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { fleet: string }) {
    super(scope, id);
    this.bucket = expiringBucket(this, {
      expireDays: STAGING_EXPIRY_DAYS,
      ruleId: 'transient',
      noAccessLogBecause:
        'Transient staging copies (expired after a week) that only the agent’s own task role and the operator reach; access logs would need a second bucket kept longer than the data. CloudTrail data events cover it where an account wants an audit trail.',
      parameterName: sharedParameterNames(props.fleet).stagingBucket,
      parameterDescription: `clawfleet ${props.fleet}: the bucket agent workspaces are staged in on their way in and out of EFS`,
    });
  }
}
