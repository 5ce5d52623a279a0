// The media store on AWS (#16): one bucket per fleet, objects at `<fleet>/agents/<id>/…`, read
// and written as single S3 GetObject/PutObject requests signed with the SDK's own SigV4 signer
// and credential chain. A signed fetch rather than @aws-sdk/client-s3: λ telegram-webhook and
// λ outbox each call one S3 operation, and the client would bring every operation's schemas and
// the XML protocol stack into bundles kept under 400 KB (test/unit/lambda-bundles.test.ts).
// Which prefixes a caller may touch is IAM's to enforce (infra/constructs/media-bucket.ts).
import type { SignatureV4 } from '@smithy/signature-v4';
import { ClawfleetError } from '../../errors.ts';
import { MediaKeySchema, TELEGRAM_UPLOAD_LIMIT_BYTES } from '../../media/media-ref.ts';
import type { MediaStore } from '../../ports.ts';
import type { AwsClientConfig } from './clients.ts';
import { AwsRequestError, signedService, type SignedService } from './signed-request.ts';

const MAX_ATTEMPTS = 3;
const ATTEMPT_TIMEOUT_MS = 60_000;

export class S3MediaError extends AwsRequestError {}

/**
 * How S3 wants requests signed: service `s3`, the path signed as sent (S3 does not escape it
 * twice, unlike other services), and the payload's SHA-256 in `x-amz-content-sha256`.
 * Checked against AWS's published examples in test/unit/s3-signature.test.ts — the emulator
 * does not verify signatures.
 */
export const S3_SIGNING: SignedService = { service: 's3', endpointVariable: 'AWS_ENDPOINT_URL_S3', uriEscapePath: false, applyChecksum: true };

export interface SignedS3MediaStoreOptions extends AwsClientConfig {
  bucket: string;
  /** The fleet: every key is kept under `<fleet>/`. */
  fleet: string;
  /** Read as the SDK reads it: AWS_REGION, AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL. */
  env?: NodeJS.ProcessEnv;
  fetch?: typeof fetch;
}

export class SignedS3MediaStore implements MediaStore {
  private readonly base: URL;
  /** Path-style at an endpoint override (emulators), virtual-hosted at AWS's own. */
  private readonly pathStyle: boolean;
  private readonly signer: SignatureV4;
  private readonly fetch: typeof fetch;

  constructor(private readonly opts: SignedS3MediaStoreOptions) {
    const s3 = signedService(opts, S3_SIGNING, (name, message) => new S3MediaError(name, message, 0));
    this.pathStyle = s3.override !== undefined;
    this.base = new URL(s3.override ?? s3.defaultHost(`${opts.bucket}.s3`));
    this.signer = s3.signer;
    this.fetch = opts.fetch ?? fetch;
  }

  async put(key: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    await this.send('PUT', key, { body: bytes, headers: { 'content-type': mimeType, 'x-amz-server-side-encryption': 'AES256' } });
  }

  async get(key: string): Promise<{ bytes: Uint8Array; mimeType: string } | undefined> {
    const res = await this.send('GET', key, {});
    if (!res) return undefined;
    return { bytes: res.bytes, mimeType: res.contentType ?? 'application/octet-stream' };
  }

  private objectPath(key: string): string {
    if (!MediaKeySchema.safeParse(key).success) throw new ClawfleetError('MEDIA_KEY_INVALID', `"${key.slice(0, 200)}" is not a media key`);
    // Keys hold only [A-Za-z0-9._-/]: nothing to escape.
    const object = `${this.opts.fleet}/${key}`;
    const root = this.base.pathname.replace(/\/+$/, '');
    return this.pathStyle ? `${root}/${this.opts.bucket}/${object}` : `${root}/${object}`;
  }

  private async send(
    method: 'GET' | 'PUT',
    key: string,
    req: { body?: Uint8Array; headers?: Record<string, string> },
  ): Promise<{ bytes: Uint8Array; contentType: string | undefined } | undefined> {
    const path = this.objectPath(key);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(method, path, req);
      } catch (err) {
        const retriable = err instanceof S3MediaError && (err.statusCode === 0 || err.statusCode === 429 || err.statusCode >= 500);
        if (!retriable || attempt >= MAX_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
      }
    }
  }

  private async attempt(method: 'GET' | 'PUT', path: string, req: { body?: Uint8Array; headers?: Record<string, string> }) {
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
      throw new S3MediaError((err as Error).name === 'TimeoutError' ? 'TimeoutError' : 'NetworkingError', `S3 ${method} got no answer`, 0, { cause: err });
    }
    if (method === 'GET' && res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      const code = /<Code>([^<]{1,64})<\/Code>/.exec(text)?.[1] ?? `Http${res.status}`;
      // Without s3:ListBucket (no role here has it), S3 answers a missing key with 403
      // AccessDenied rather than 404: for a key inside the caller's grant that means "not kept"
      // (expired, never written). The caller checked the key is its own before asking.
      if (method === 'GET' && res.status === 403 && code === 'AccessDenied') return undefined;
      throw new S3MediaError(code, `S3 ${method} failed: HTTP ${res.status} ${code}`, res.status);
    }
    if (method === 'PUT') {
      await res.body?.cancel();
      return { bytes: new Uint8Array(), contentType: undefined };
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (declared > TELEGRAM_UPLOAD_LIMIT_BYTES) {
      await res.body?.cancel();
      throw new ClawfleetError('MEDIA_TOO_LARGE', `the object is ${declared} bytes, over the ${TELEGRAM_UPLOAD_LIMIT_BYTES} media may be`);
    }
    return { bytes: new Uint8Array(await res.arrayBuffer()), contentType: res.headers.get('content-type') ?? undefined };
  }
}
