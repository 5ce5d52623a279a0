// Where attachments and the files agents send are kept on AWS (#16): one private bucket per
// fleet, objects at `<fleet>/agents/<id>/in/…` (written by λ telegram-webhook, read by that
// agent's task role) and `<fleet>/agents/<id>/out/…` (written by that agent's task role, read
// by λ outbox). The grants are made where the roles are (control-function-grants.ts,
// agent-runtime.ts); this bucket is encrypted, TLS only, and expires every object after
// `media.expireDays` (default 30). Agent stacks find it by SSM parameter.
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { sharedParameterNames } from '../../shared/config/names.ts';
import { MEDIA_EXPIRY_DAYS } from '../../shared/media/media-ref.ts';
import { expiringBucket } from './expiring-bucket.ts';

export class MediaBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: { fleet: string; expireDays?: number | undefined }) {
    super(scope, id);
    this.bucket = expiringBucket(this, {
      expireDays: props.expireDays ?? MEDIA_EXPIRY_DAYS,
      ruleId: 'expire',
      noAccessLogBecause:
        'Chat attachments and files agents send, expired after media.expireDays; each agent’s task role reaches only its own prefix. Access logs would need a second bucket kept longer than the data; CloudTrail data events cover it where an account wants an audit trail.',
      parameterName: sharedParameterNames(props.fleet).mediaBucket,
      parameterDescription: `clawfleet ${props.fleet}: the bucket chat attachments and agents' files are kept in`,
    });
  }
}
