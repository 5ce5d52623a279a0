// The workspace staging port in memory, for unit tests; counts what is put, so a test can
// see that a resumed transfer sends only what had not arrived.
import type { TransferDocument, WorkspaceStaging } from '../../workspace/staging.ts';

export class InMemoryWorkspaceStaging implements WorkspaceStaging {
  readonly objects = new Map<string, Buffer>();
  readonly documents = new Map<string, unknown>();
  readonly writtenAt = new Map<string, number>();
  /** The store's clock (S3's, on AWS). */
  now: () => number = () => Date.now();
  readonly puts: string[] = [];
  /** Set to make the next puts fail after this many more succeed (an interrupted upload). */
  failAfter: number | undefined;

  async staged(): Promise<Map<string, number>> {
    return new Map([...this.objects].map(([k, v]) => [k, v.length]));
  }

  async put(sha256: string, _size: number, body: AsyncIterable<Uint8Array>): Promise<void> {
    if (this.failAfter !== undefined && this.failAfter-- <= 0) throw Object.assign(new Error('connection reset'), { code: 'ECONNRESET' });
    const chunks: Buffer[] = [];
    for await (const c of body) chunks.push(Buffer.from(c));
    this.objects.set(sha256, Buffer.concat(chunks));
    this.puts.push(sha256);
  }

  async *get(sha256: string): AsyncIterable<Uint8Array> {
    const body = this.objects.get(sha256);
    if (!body) throw new Error(`no staged object ${sha256}`);
    yield body;
  }

  async remove(sha256s: readonly string[]): Promise<void> {
    for (const s of sha256s) this.objects.delete(s);
  }

  async putDocument(transferId: string, name: TransferDocument, value: unknown): Promise<void> {
    this.documents.set(`${transferId}/${name}`, structuredClone(value));
    this.writtenAt.set(`${transferId}/${name}`, this.now());
  }

  async documentWrittenAt(transferId: string, name: TransferDocument): Promise<number | undefined> {
    return this.writtenAt.get(`${transferId}/${name}`);
  }

  async getDocument(transferId: string, name: TransferDocument): Promise<unknown | undefined> {
    return structuredClone(this.documents.get(`${transferId}/${name}`));
  }

  async removeTransfer(transferId: string): Promise<void> {
    for (const k of [...this.documents.keys()]) if (k.startsWith(`${transferId}/`)) this.documents.delete(k);
  }
}
