// The media store on the emulator's S3 (#16): SignedS3MediaStore's signed GetObject and
// PutObject (the one request λ telegram-webhook and λ outbox each make) under <fleet>/, the type
// kept, a missing key read as nothing, and a key that is not a media key refused before any request.
import { CreateBucketCommand, GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { SignedS3MediaStore } from '../../shared/adapters/aws/signed-s3-media-store.ts';
import { awsTestEnv } from '../support/aws.ts';

const aws = awsTestEnv();
const BUCKET = `cf-media-${aws.accountId}`;
const s3 = new S3Client({ ...aws, forcePathStyle: true });
const store = new SignedS3MediaStore({ ...aws, bucket: BUCKET, fleet: 'demo', env: {} });

beforeAll(async () => {
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

describe('the media store on S3', () => {
  it('puts an object under <fleet>/ with its type, and gets it back', async () => {
    const bytes = Buffer.from('\xff\xd8\xff a jpeg', 'latin1');
    await store.put('agents/fran/in/tg.fran.1/photo.jpg', bytes, 'image/jpeg');
    const raw = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'demo/agents/fran/in/tg.fran.1/photo.jpg' }));
    expect(raw.ContentType).toBe('image/jpeg');
    expect(Buffer.from(await raw.Body!.transformToByteArray())).toEqual(bytes);
    expect(await store.get('agents/fran/in/tg.fran.1/photo.jpg')).toEqual({ bytes: new Uint8Array(bytes), mimeType: 'image/jpeg' });
  });

  it('reads a key with nothing kept as nothing', async () => {
    expect(await store.get('agents/fran/out/nothing/here.png')).toBeUndefined();
  });

  it('refuses a key that is not a media key before asking S3', async () => {
    let asked = 0;
    const counting = new SignedS3MediaStore({ ...aws, bucket: BUCKET, fleet: 'demo', env: {}, fetch: (...a) => (asked++, fetch(...a)) });
    await expect(counting.get('agents/fran/in/../../../other/x')).rejects.toMatchObject({ code: 'MEDIA_KEY_INVALID' });
    await expect(counting.put('../demo2/agents/fran/in/x/y', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ code: 'MEDIA_KEY_INVALID' });
    expect(asked).toBe(0);
  });

  it('says what S3 said when the bucket is not there', async () => {
    const lost = new SignedS3MediaStore({ ...aws, bucket: `${BUCKET}-gone`, fleet: 'demo', env: {} });
    await expect(lost.put('agents/fran/in/x/y.txt', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ name: 'NoSuchBucket', statusCode: 404 });
  });
});
