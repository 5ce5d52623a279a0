// Single S3 object requests (GetObject, PutObject) signed with the SDK's own SigV4 signer and
// credential chain (signed-request.ts), with the retries and limits every caller wants: the
// media store's reads and writes and the runtime's read of its fleet skills bundle. A signed
// fetch rather than @aws-sdk/client-s3: each caller needs one or two operations, and the client
// would bring every operation's schemas and the XML protocol stack into bundles kept small
// (test/unit/lambda-bundles.test.ts).
import type { SignatureV4 } from '@smithy/signature-v4';
import type { AwsClientConfig } from './clients.ts';
import { AwsRequestError, signedService, type SignedService } from './signed-request.ts';

const MAX_ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 60_000;

export class S3RequestError extends AwsRequestError {}

/**
 * How S3 wants requests signed: service `s3`, the path signed as sent (S3 does not escape it
 * twice, unlike other services), and the payload's SHA-256 in `x-amz-content-sha256`.
 * Checked against AWS's published examples in test/unit/s3-signature.test.ts — the emulator
 * does not verify signatures.
 */
export const S3_SIGNING: SignedService = { service: 's3', endpointVariable: 'AWS_ENDPOINT_URL_S3', uriEscapePath: false, applyChecksum: true };

export interface SignedS3BucketOptions extends AwsClientConfig {
  bucket: string;
  /** Read as the SDK reads it: AWS_REGION, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL. */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export interface S3GetOptions {
  /** An object declared or found larger is refused: `tooLarge(declaredBytes)` says how. */
  maxBytes: number;
  tooLarge(bytes: number): Error;
  /**
   * Whether "not there" is an answer (undefined) rather than an error. Without s3:ListBucket
   * (no role here has it) S3 answers a missing key with 403 AccessDenied rather than 404, so
   * such a caller must have checked the key is inside its grant before asking.
   */
  missingIsUndefined?: boolean;
}

export class SignedS3Bucket {
  private readonly base: URL;
  /** Path-style at an endpoint override (emulators), virtual-hosted at AWS's own. */
  private readonly pathStyle: boolean;
  private readonly signer: SignatureV4;
  private readonly fetch: typeof fetch;

  constructor(private readonly opts: SignedS3BucketOptions) {
    const s3 = signedService(opts, S3_SIGNING, (name, message) => new S3RequestError(name, message, 0));
    this.pathStyle = s3.override !== undefined;
    this.base = new URL(s3.override ?? s3.defaultHost(`${opts.bucket}.s3`));
    this.signer = s3.signer;
    this.fetch = opts.fetch ?? fetch;
  }

  async put(key: string, body: Uint8Array, headers: Record<string, string>): Promise<void> {
    const res = await this.send('PUT', key, { body, headers });
    await res.body?.cancel();
  }

  async get(key: string, opts: S3GetOptions): Promise<{ bytes: Uint8Array; contentType: string | undefined } | undefined> {
    const res = await this.send('GET', key, {}, opts.missingIsUndefined === true);
    if (!res) return undefined;
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > opts.maxBytes) {
      await res.body?.cancel();
      throw opts.tooLarge(declared);
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (bytes.byteLength > opts.maxBytes) throw opts.tooLarge(bytes.byteLength);
    return { bytes, contentType: res.headers.get('content-type') ?? undefined };
  }

  private objectPath(key: string): string {
    const object = key.split('/').map(encodeURIComponent).join('/');
    const root = this.base.pathname.replace(/\/+$/, '');
    return this.pathStyle ? `${root}/${this.opts.bucket}/${object}` : `${root}/${object}`;
  }

  /** The answer of a request that succeeded (undefined: missing, where that is an answer); a 5xx, 429 or no answer is tried three times. */
  private async send(method: 'PUT', key: string, req: { body: Uint8Array; headers: Record<string, string> }): Promise<Response>;
  private async send(method: 'GET', key: string, req: object, missingIsUndefined: boolean): Promise<Response | undefined>;
  private async send(
    method: 'GET' | 'PUT',
    key: string,
    req: { body?: Uint8Array; headers?: Record<string, string> },
    missingIsUndefined = false,
  ): Promise<Response | undefined> {
    const path = this.objectPath(key);
    const what = `S3 ${method} of s3://${this.opts.bucket}/${key}`;
    for (let attempt = 1; ; attempt++) {
      try {
        const signed = await this.signer.sign({
          method,
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          ...(this.base.port ? { port: Number(this.base.port) } : {}),
          path,
          query: {},
          headers: { host: this.base.host, ...(req.headers ?? {}), ...(req.body ? { 'content-length': String(req.body.byteLength) } : {}) },
          ...(req.body ? { body: req.body } : {}),
        });
        let res: Response;
        try {
          res = await this.fetch(new URL(path, this.base), {
            method,
            headers: Object.fromEntries(Object.entries(signed.headers).filter(([k]) => k !== 'host' && k !== 'content-length')),
            ...(req.body ? { body: new Uint8Array(req.body) } : {}),
            signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
          });
        } catch (err) {
          throw new S3RequestError((err as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError', `${what} got no answer`, 0, { cause: err });
        }
        if (res.ok) return res;
        const text = await res.text().catch(() => '');
        const code = /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1] ?? `Http${res.status}`;
        if (missingIsUndefined && (res.status === 404 || (res.status === 403 && code === 'AccessDenied'))) return undefined;
        throw new S3RequestError(code, `${what} failed: HTTP ${res.status} ${code}`, res.status);
      } catch (err) {
        const retriable = err instanceof S3RequestError && (err.statusCode === 0 || err.statusCode === 429 || err.statusCode >= 500);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
      }
    }
  }
}
