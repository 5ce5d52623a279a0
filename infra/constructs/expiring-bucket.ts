// A fleet's bucket for copies that should not outlive their use (chat media, staged
// workspaces): private, S3-encrypted, TLS only, objects owned by the bucket, every object
// expired after a number of days, kept on teardown (its objects expire on their own rather
// than failing the delete), and named in an SSM parameter the agent stacks read.
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as ssm from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { acknowledge } from '../nag.ts';

export interface ExpiringBucketProps {
  expireDays: number;
  /** The lifecycle rule's id. */
  ruleId: string;
  /** Why the bucket has no access log (cdk-nag S1). */
  noAccessLogBecause: string;
  parameterName: string;
  parameterDescription: string;
}

/** The bucket (`Bucket`) and its parameter (`BucketName`), as children of `scope`. */
export function expiringBucket(scope: Construct, props: ExpiringBucketProps): s3.Bucket {
  const bucket = new s3.Bucket(scope, 'Bucket', {
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [{ id: props.ruleId, expiration: Duration.days(props.expireDays), abortIncompleteMultipartUploadAfter: Duration.days(1) }],
    removalPolicy: RemovalPolicy.RETAIN,
  });
  acknowledge(bucket, 'S1', props.noAccessLogBecause);
  new ssm.StringParameter(scope, 'BucketName', { parameterName: props.parameterName, stringValue: bucket.bucketName, description: props.parameterDescription });
  return bucket;
}
