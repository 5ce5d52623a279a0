// The media store on AWS (#16): one bucket per fleet, objects at `<fleet>/agents/<id>/…`, read
// and written as single S3 GetObject/PutObject requests signed with the SDK's own SigV4 signer
// and credential chain. A signed fetch rather than @aws-sdk/client-s3: λ telegram-webhook and
// λ outbox each call one S3 operation, and the client would bring every operation's schemas and
// the XML protocol stack into bundles kept under 400 KB (test/unit/lambda-bundles.test.ts).
// Which prefixes a caller may touch is IAM's to enforce (infra/constructs/media-bucket.ts).
import { ClawfleetError } from '../../errors.ts';
import { MediaKeySchema, TELEGRAM_UPLOAD_LIMIT_BYTES } from '../../media/media-ref.ts';
import type { MediaStore } from '../../ports.ts';
import type { AwsClientConfig } from './clients.ts';
import { SignedS3Bucket } from './signed-s3.ts';

export { S3_SIGNING, S3RequestError as S3MediaError } from './signed-s3.ts';

export interface SignedS3MediaStoreOptions extends AwsClientConfig {
  bucket: string;
  /** The fleet: every key is kept under `<fleet>/`. */
  fleet: string;
  /** Read as the SDK reads it: AWS_REGION, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL. */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export class SignedS3MediaStore implements MediaStore {
  private readonly bucket: SignedS3Bucket;

  constructor(private readonly opts: SignedS3MediaStoreOptions) {
    this.bucket = new SignedS3Bucket(opts);
  }

  async put(key: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    await this.bucket.put(this.objectKey(key), bytes, { 'content-type': mimeType, 'x-amz-server-side-encryption': 'AES256' });
  }

  async get(key: string): Promise<{ bytes: Uint8Array; mimeType: string } | undefined> {
    // A key inside this caller's grant that S3 does not have was never written, or expired.
    const got = await this.bucket.get(this.objectKey(key), {
      maxBytes: TELEGRAM_UPLOAD_LIMIT_BYTES,
      tooLarge: (bytes) => new ClawfleetError('MEDIA_TOO_LARGE', `the object is ${bytes} bytes, over the ${TELEGRAM_UPLOAD_LIMIT_BYTES} media may be`),
      missingIsUndefined: true,
    });
    return got && { bytes: got.bytes, mimeType: got.contentType ?? 'application/octet-stream' };
  }

  private objectKey(key: string): string {
    if (!MediaKeySchema.safeParse(key).success) throw new ClawfleetError('MEDIA_KEY_INVALID', `"${key.slice(0, 200)}" is not a media key`);
    return `${this.opts.fleet}/${key}`;
  }
}
