// One S3 object read (signed-s3.ts): the runtime reads the bundle of fleet skills it was given
// (#19) without loading @aws-sdk/client-s3. Any bucket and key its role may read; the
// answer's size is capped before it is read, and a missing object is an error, not an answer.
import { S3RequestError, SignedS3Bucket, type SignedS3BucketOptions } from './signed-s3.ts';

export { S3RequestError as S3ObjectError };

/** The object's bytes; S3ObjectError when S3 refuses (NoSuchKey, AccessDenied, …), never answers after three tries, or the object is over `maxBytes`. */
export async function getS3Object(bucket: string, key: string, maxBytes: number, opts: Omit<SignedS3BucketOptions, 'bucket'> = {}): Promise<Uint8Array> {
  const got = await new SignedS3Bucket({ ...opts, bucket }).get(key, {
    maxBytes,
    tooLarge: (bytes) => new S3RequestError('ObjectTooLarge', `s3://${bucket}/${key} is ${bytes} bytes, over the ${maxBytes} it may be`, 413),
  });
  // Only a caller that takes "missing" as an answer gets undefined.
  return got!.bytes;
}
