// The media store's S3 signatures, checked the way S3 checks them (the emulator accepts any
// signature: docs/testing.md). A SigV4 verifier written here from AWS's specification is first
// shown to agree with AWS's own published examples (GetObject with a Range header, PutObject
// of "Welcome to Amazon S3."); then the SDK signer, set up as SignedS3MediaStore sets it up,
// must give AWS's published signature, and every request the store sends must verify.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { S3_SIGNING, SignedS3MediaStore } from '../../shared/adapters/aws/signed-s3-media-store.ts';
import { signedService } from '../../shared/adapters/aws/signed-request.ts';

// AWS's example credentials and request (Amazon S3 API Reference, "Signature Calculations for
// the Authorization Header: Transferring Payload in a Single Chunk").
const EXAMPLE = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const GET_SIGNATURE = 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41';
const PUT_SIGNATURE = '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

interface WireRequest {
  method: string;
  url: URL;
  /** As the request carries them; `host` and `content-length` are what the connection sends. */
  headers: Record<string, string>;
  body: Uint8Array;
}

/** What S3 does with a request's Authorization header: rebuild the canonical request from what arrived, and compare. */
function verify(req: WireRequest, secretAccessKey: string): { ok: true } | { ok: false; why: string } {
  const headers: Record<string, string> = { host: req.url.host };
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
  if (req.body.byteLength > 0) headers['content-length'] = String(req.body.byteLength);
  const auth = /^AWS4-HMAC-SHA256 Credential=[^/]+\/(\d{8})\/([a-z0-9-]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
    headers.authorization ?? '',
  );
  if (!auth) return { ok: false, why: `no SigV4 authorization for s3: ${headers.authorization}` };
  const [, date, region, signedHeaders, signature] = auth as unknown as [string, string, string, string, string];
  const payloadHash = headers['x-amz-content-sha256'];
  if (payloadHash !== sha256(req.body)) return { ok: false, why: 'XAmzContentSHA256Mismatch' };
  const names = signedHeaders.split(';');
  if (!names.includes('host')) return { ok: false, why: 'host is not signed' };
  const unsigned = Object.keys(headers).filter((h) => h.startsWith('x-amz-') && !names.includes(h));
  if (unsigned.length) return { ok: false, why: `x-amz- headers not signed: ${unsigned.join(', ')}` };
  const missing = names.filter((h) => headers[h] === undefined);
  if (missing.length) return { ok: false, why: `signed headers not sent: ${missing.join(', ')}` };
  const canonical = [
    req.method,
    req.url.pathname,
    [...req.url.searchParams]
      .sort()
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
      .join('&'),
    names.map((h) => `${h}:${headers[h]!.trim().replace(/\s+/g, ' ')}\n`).join(''),
    signedHeaders,
    payloadHash,
  ].join('\n');
  const scope = `${date}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', headers['x-amz-date'], scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), 's3'), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return expected === signature ? { ok: true } : { ok: false, why: 'SignatureDoesNotMatch' };
}

const authorization = (signedHeaders: string, signature: string) =>
  `AWS4-HMAC-SHA256 Credential=${EXAMPLE.accessKeyId}/20130524/us-east-1/s3/aws4_request,SignedHeaders=${signedHeaders},Signature=${signature}`;

const exampleGet = (signature: string): WireRequest => ({
  method: 'GET',
  url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
  headers: {
    range: 'bytes=0-9',
    'x-amz-content-sha256': EMPTY_SHA256,
    'x-amz-date': '20130524T000000Z',
    authorization: authorization('host;range;x-amz-content-sha256;x-amz-date', signature),
  },
  body: new Uint8Array(),
});

describe('S3 request signatures (SigV4)', () => {
  it('the verifier here agrees with AWS’s published examples, and refuses a changed signature, body or signed header', () => {
    expect(verify(exampleGet(GET_SIGNATURE), EXAMPLE.secretAccessKey)).toEqual({ ok: true });
    const body = new TextEncoder().encode('Welcome to Amazon S3.');
    const put: WireRequest = {
      method: 'PUT',
      url: new URL('https://examplebucket.s3.amazonaws.com/test%24file.text'),
      headers: {
        date: 'Fri, 24 May 2013 00:00:00 GMT',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        'x-amz-content-sha256': sha256(body),
        authorization: authorization('date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class', PUT_SIGNATURE),
      },
      body,
    };
    expect(put.headers['x-amz-content-sha256']).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    expect(verify(put, EXAMPLE.secretAccessKey)).toEqual({ ok: true });

    expect(verify(exampleGet(GET_SIGNATURE.replace(/^f/, 'e')), EXAMPLE.secretAccessKey)).toEqual({ ok: false, why: 'SignatureDoesNotMatch' });
    expect(verify(exampleGet(GET_SIGNATURE), 'another-secret-key')).toEqual({ ok: false, why: 'SignatureDoesNotMatch' });
    expect(verify({ ...put, body: new TextEncoder().encode('Welcome to Amazon S4.') }, EXAMPLE.secretAccessKey)).toEqual({
      ok: false,
      why: 'XAmzContentSHA256Mismatch',
    });
    expect(verify({ ...put, headers: { ...put.headers, 'x-amz-storage-class': 'STANDARD' } }, EXAMPLE.secretAccessKey)).toEqual({
      ok: false,
      why: 'SignatureDoesNotMatch',
    });
  });

  it('the SDK signer, set up as the media store sets it up for S3, gives AWS’s published signature for its GetObject example', async () => {
    const { signer } = signedService({ region: 'us-east-1', credentials: EXAMPLE, env: {} }, S3_SIGNING, (name, message) => new Error(`${name}: ${message}`));
    const signed = await signer.sign(
      {
        method: 'GET',
        protocol: 'https:',
        hostname: 'examplebucket.s3.amazonaws.com',
        path: '/test.txt',
        query: {},
        headers: { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9' },
      },
      { signingDate: new Date('2013-05-24T00:00:00Z') },
    );
    expect(signed.headers['x-amz-content-sha256']).toBe(EMPTY_SHA256);
    expect(signed.headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=${EXAMPLE.accessKeyId}/20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, Signature=${GET_SIGNATURE}`,
    );
  });

  it.each([
    ['at AWS’s own endpoint (virtual-hosted)', undefined, 'https://cf-media-123.s3.eu-west-1.amazonaws.com/demo/agents/fran/out/'],
    ['at an endpoint override (path-style)', 'http://127.0.0.1:4566', 'http://127.0.0.1:4566/cf-media-123/demo/agents/fran/out/'],
  ])('signs every PutObject and GetObject the store sends so that S3 would take it, %s', async (_where, endpoint, prefix) => {
    const sent: WireRequest[] = [];
    const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const fakeS3: typeof fetch = async (input, init) => {
      const headers = Object.fromEntries(Object.entries((init?.headers ?? {}) as Record<string, string>));
      const body = init?.body instanceof Uint8Array ? init.body : new Uint8Array();
      sent.push({ method: init?.method ?? 'GET', url: new URL(String(input)), headers, body });
      return init?.method === 'PUT' ? new Response(null, { status: 200 }) : new Response(jpeg, { status: 200, headers: { 'content-type': 'image/jpeg' } });
    };
    const store = new SignedS3MediaStore({
      bucket: 'cf-media-123',
      fleet: 'demo',
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDMEDIASTORE01', secretAccessKey: 'media-store-secret-key-0123456789' },
      ...(endpoint ? { endpoint } : {}),
      env: {},
      fetch: fakeS3,
    });
    await store.put('agents/fran/out/abc123/photo.jpg', jpeg, 'image/jpeg');
    expect(await store.get('agents/fran/out/abc123/photo.jpg')).toEqual({ bytes: jpeg, mimeType: 'image/jpeg' });
    expect(sent.map((r) => `${r.method} ${r.url.href}`)).toEqual([`PUT ${prefix}abc123/photo.jpg`, `GET ${prefix}abc123/photo.jpg`]);
    for (const req of sent) {
      expect(verify(req, 'media-store-secret-key-0123456789')).toEqual({ ok: true });
      expect(verify(req, 'not-the-secret-key')).toMatchObject({ ok: false });
    }
    // The encryption and type S3 is asked for are signed with the rest: a proxy cannot drop or change them.
    expect(sent[0]!.headers.authorization).toMatch(/SignedHeaders=[^,]*content-type;[^,]*x-amz-server-side-encryption/);
  });
});
