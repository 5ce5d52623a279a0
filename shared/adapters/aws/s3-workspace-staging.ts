// The workspace staging port on S3: one agent's prefix (<id>/) of the fleet's staging
// bucket, which only that agent's task role (and the operator) may read or write. Bodies
// at <id>/objects/<sha256>, each transfer's documents at <id>/transfers/<transfer>/<name>.json.
// Content is checked end to end by SHA-256 (the manifest), so the SDK's own checksums are
// only asked for where S3 requires them.
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { WorkspaceTransferError } from '../../workspace/manifest.ts';
import { TRANSFER_DOCUMENTS, TransferIdSchema, type TransferDocument, type WorkspaceStaging } from '../../workspace/staging.ts';

const PREFIX = /^[a-z][a-z0-9-]{0,23}\/$/;
const SHA = /^[0-9a-f]{64}$/;
/** A transfer document (a manifest of 200,000 files is about 40 MB). */
const MAX_DOCUMENT_BYTES = 128 * 1024 * 1024;
const DELETE_CONCURRENCY = 8;

/** An S3 client for staging: path-style addressing when an endpoint is set (an emulator), checksums where S3 requires them. */
export function stagingS3Client(config: S3ClientConfig & { endpoint?: string | undefined }): S3Client {
  return new S3Client({
    ...config,
    ...(config.endpoint ? { forcePathStyle: true } : {}),
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 5,
  });
}

export class S3WorkspaceStaging implements WorkspaceStaging {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    /** The agent's prefix, `<id>/`. */
    private readonly prefix: string,
  ) {
    if (!PREFIX.test(prefix)) throw new WorkspaceTransferError('STAGING_PREFIX_INVALID', `staging prefix "${prefix}" is not an agent's (<id>/)`);
  }

  private objectKey(sha256: string): string {
    if (!SHA.test(sha256)) throw new WorkspaceTransferError('STAGING_KEY_INVALID', `"${sha256}" is not a SHA-256`);
    return `${this.prefix}objects/${sha256}`;
  }

  private documentKey(transferId: string, name: TransferDocument): string {
    return `${this.prefix}transfers/${TransferIdSchema.parse(transferId)}/${name}.json`;
  }

  async staged(): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    const prefix = `${this.prefix}objects/`;
    let token: string | undefined;
    do {
      const page = await this.s3.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        const sha = o.Key?.slice(prefix.length);
        if (sha && SHA.test(sha)) found.set(sha, o.Size ?? -1);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return found;
  }

  async put(sha256: string, size: number, body: AsyncIterable<Uint8Array>): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: this.objectKey(sha256),
        Body: Readable.from(body),
        ContentLength: size,
        ContentType: 'application/octet-stream',
      }),
    );
  }

  async *get(sha256: string): AsyncIterable<Uint8Array> {
    const out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.objectKey(sha256) }));
    if (!out.Body) throw new WorkspaceTransferError('STAGING_OBJECT_MISSING', `staged object ${sha256} has no body`);
    yield* out.Body as Readable;
  }

  async remove(sha256s: readonly string[]): Promise<void> {
    const keys = sha256s.map((s) => this.objectKey(s));
    for (let i = 0; i < keys.length; i += DELETE_CONCURRENCY) {
      await Promise.all(keys.slice(i, i + DELETE_CONCURRENCY).map((Key) => this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key }))));
    }
  }

  async putDocument(transferId: string, name: TransferDocument, value: unknown): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: this.documentKey(transferId, name), Body: JSON.stringify(value), ContentType: 'application/json' }),
    );
  }

  async getDocument(transferId: string, name: TransferDocument): Promise<unknown | undefined> {
    let out;
    try {
      out = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.documentKey(transferId, name) }));
    } catch (err) {
      if (err instanceof NoSuchKey || (err as Error).name === 'NoSuchKey') return undefined;
      throw err;
    }
    if ((out.ContentLength ?? 0) > MAX_DOCUMENT_BYTES)
      throw new WorkspaceTransferError('STAGING_DOCUMENT_TOO_LARGE', `transfer ${transferId}'s ${name} is larger than ${MAX_DOCUMENT_BYTES >> 20} MiB`);
    const text = (await out.Body?.transformToString('utf8')) ?? '';
    try {
      return JSON.parse(text);
    } catch {
      throw new WorkspaceTransferError('STAGING_DOCUMENT_INVALID', `transfer ${transferId}'s ${name} is not JSON`);
    }
  }

  async documentWrittenAt(transferId: string, name: TransferDocument): Promise<number | undefined> {
    try {
      const out = await this.s3.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.documentKey(transferId, name) }));
      return out.LastModified?.getTime();
    } catch (err) {
      if (err instanceof NotFound || (err as Error).name === 'NotFound' || (err as Error).name === 'NoSuchKey') return undefined;
      throw err;
    }
  }

  async removeTransfer(transferId: string): Promise<void> {
    await Promise.all(TRANSFER_DOCUMENTS.map((n) => this.s3.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.documentKey(transferId, n) }))));
  }
}
