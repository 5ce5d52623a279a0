// The runtime's one signed S3 read (shared/adapters/aws/signed-s3-object.ts), against a fetch
// that answers as S3 does: path-style at an endpoint override with a SigV4 signature, a 5xx
// retried, a refusal named by S3's own code and not retried, and an object over the caller's
// limit refused from its declared length before its body is read.
import { describe, expect, it } from 'vitest';
import { getS3Object, S3ObjectError } from '../../shared/adapters/aws/signed-s3-object.ts';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-for-the-test' };
const opts = (answers: (() => Response)[], seen: Request[]) => ({
  region: 'us-east-1',
  credentials,
  endpoint: 'http://127.0.0.1:4566',
  fetch: (async (input: URL, init: RequestInit) => {
    seen.push(new Request(input, init));
    return answers.shift()!();
  }) as unknown as typeof fetch,
});

describe('a signed S3 object read', () => {
  it('asks path-style at an endpoint override, signed, and retries a 5xx', async () => {
    const seen: Request[] = [];
    const bytes = await getS3Object(
      'cdk-assets-bucket',
      'abc123.gz',
      100,
      opts([() => new Response('<Error><Code>InternalError</Code></Error>', { status: 500 }), () => new Response('hello')], seen),
    );
    expect(new TextDecoder().decode(bytes)).toBe('hello');
    expect(seen.map((r) => r.url)).toEqual(['http://127.0.0.1:4566/cdk-assets-bucket/abc123.gz', 'http://127.0.0.1:4566/cdk-assets-bucket/abc123.gz']);
    expect(seen[0]!.headers.get('authorization')).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request/);
  });

  it("names S3's refusal and does not retry it", async () => {
    const seen: Request[] = [];
    const read = getS3Object('b-b-b', 'k.gz', 100, opts([() => new Response('<Error><Code>AccessDenied</Code></Error>', { status: 403 })], seen));
    await expect(read).rejects.toThrow(new S3ObjectError('AccessDenied', 'S3 GET of s3://b-b-b/k.gz failed: HTTP 403 AccessDenied', 403));
    expect(seen).toHaveLength(1);
  });

  it('refuses an object larger than the caller takes, from its declared length', async () => {
    const read = getS3Object('b-b-b', 'k.gz', 4, opts([() => new Response('0123456789', { headers: { 'content-length': '10' } })], []));
    await expect(read).rejects.toMatchObject({ name: 'ObjectTooLarge', statusCode: 413 });
  });
});
