// Where workspaces wait on their way in and out of EFS (`clawfleet workspace push|pull`):
// one private bucket per fleet, one prefix per agent (<id>/), which only that agent's task
// role may read or write (the grant is made in its own stack, agent-workspace-task.ts). The
// objects are transient copies: encrypted, TLS only, and expired after a week whatever
// happens to the transfer that left them. Agent stacks find the bucket by SSM parameter.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import { Construct } from 'constructs';
import { sharedParameterNames } from '../../shared/config/names.ts';
import { acknowledge } from '../nag.ts';

/** How long a staged copy lives if its transfer never cleans it up (an interrupted one resumes within this). */
export const STAGING_EXPIRY_DAYS = 7;

export class WorkspaceStaging extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { fleet: string }) {
    super(scope, id);
    this.bucket = new s3.Bucket(this, 'Bucket', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'transient', expiration: Duration.days(STAGING_EXPIRY_DAYS), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
      // Kept on teardown rather than failing it when a copy is still there; its objects expire on their own.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      this.bucket,
      'S1',
      'Transient staging copies (expired after a week) that only the agent’s own task role and the operator reach; access logs would need a second bucket kept longer than the data. CloudTrail data events cover it where an account wants an audit trail.',
    );
    new ssm.StringParameter(this, 'BucketName', {
      parameterName: sharedParameterNames(props.fleet).stagingBucket,
      stringValue: this.bucket.bucketName,
      description: `clawfleet ${props.fleet}: the bucket agent workspaces are staged in on their way in and out of EFS`,
    });
  }
}
