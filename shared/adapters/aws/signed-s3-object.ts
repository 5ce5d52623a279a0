// One S3 object read with a single signed GetObject (the SDK's SigV4 signer and credential
// chain, signed-request.ts), as the media store reads its objects: the runtime reads the bundle
// of fleet skills it was given (#19) without loading @aws-sdk/client-s3. Any bucket and key
// its role may read; the answer's size is capped before it is read.
import type { AwsClientConfig } from './clients.ts';
import { AwsRequestError, signedService } from './signed-request.ts';

const MAX_ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 60_000;

export class S3ObjectError extends AwsRequestError {}

export interface SignedS3ObjectOptions extends AwsClientConfig {
  /** Read as the SDK reads it: AWS_REGION, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL. */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

/** The object's bytes; S3ObjectError when S3 refuses (NoSuchKey, AccessDenied, …) or never answers after three tries. */
export async function getS3Object(bucket: string, key: string, maxBytes: number, opts: SignedS3ObjectOptions = {}): Promise<Uint8Array> {
  const s3 = signedService(
    opts,
    { service: 's3', endpointVariable: 'AWS_ENDPOINT_URL_S3', uriEscapePath: false },
    (name, message) => new S3ObjectError(name, message, 0),
  );
  // Path-style at an endpoint override (emulators), virtual-hosted at AWS's own.
  const base = new URL(s3.override ?? s3.defaultHost(`${bucket}.s3`));
  const root = base.pathname.replace(/\/+$/, '');
  const object = key.split('/').map(encodeURIComponent).join('/');
  const path = s3.override ? `${root}/${bucket}/${object}` : `${root}/${object}`;
  const doFetch = opts.fetch ?? fetch;
  for (let attempt = 1; ; attempt++) {
    try {
      const signed = await s3.signer.sign({
        method: 'GET',
        protocol: base.protocol,
        hostname: base.hostname,
        ...(base.port ? { port: Number(base.port) } : {}),
        path,
        query: {},
        headers: { host: base.host },
      });
      let res: Response;
      try {
        res = await doFetch(new URL(path, base), {
          headers: Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host')),
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
      } catch (err) {
        throw new S3ObjectError(
          (err as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError',
          `S3 GET of s3://${bucket}/${key} got no answer`,
          0,
          {
            cause: err,
          },
        );
      }
      if (!res.ok) {
        const text = await res.text().catch(() => '');
        const code = /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1] ?? `Http${res.status}`;
        throw new S3ObjectError(code, `S3 GET of s3://${bucket}/${key} failed: HTTP ${res.status} ${code}`, res.status);
      }
      const declared = Number(res.headers.get('content-length') ?? NaN);
      if (declared > maxBytes) {
        await res.body?.cancel();
        throw new S3ObjectError('ObjectTooLarge', `s3://${bucket}/${key} is ${declared} bytes, over the ${maxBytes} it may be`, 413);
      }
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (bytes.byteLength > maxBytes) throw new S3ObjectError('ObjectTooLarge', `s3://${bucket}/${key} is over the ${maxBytes} bytes it may be`, 413);
      return bytes;
    } catch (err) {
      const retriable = err instanceof S3ObjectError && (err.statusCode === 0 || err.statusCode === 429 || err.statusCode >= 500);
      if (!retriable || attempt >= MAX_ATTEMPTS) throw err;
      await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
    }
  }
}
