// Local mode's runtime side of the media store (#16): this agent's files as calls to the local
// control plane over loopback HTTP, the body the raw bytes (GET and PUT /runtime/media?key=…).
// The bearer token is the runtime's own, and the server lets it read only its own in/ and
// out/ prefixes and write only its own out/ prefix, as the task role does on AWS.
import { Agent, request } from 'node:http';
import type { MediaStore } from '../../ports.ts';

const oneShot = new Agent({ keepAlive: false });

export class HttpRuntimeMedia implements MediaStore {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  private call(
    method: 'GET' | 'PUT',
    key: string,
    body?: { bytes: Uint8Array; mimeType: string },
  ): Promise<{ status: number; bytes: Buffer; mimeType: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.baseUrl}/runtime/media?key=${encodeURIComponent(key)}`,
        {
          method,
          agent: oneShot,
          headers: { authorization: `Bearer ${this.token}`, ...(body ? { 'content-type': body.mimeType, 'content-length': body.bytes.byteLength } : {}) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('error', reject);
          res.once('close', () => {
            if (!res.complete) reject(new Error(`control plane media ${method} failed: the connection closed before the answer ended`));
          });
          res.once('end', () =>
            resolve({ status: res.statusCode ?? 0, bytes: Buffer.concat(chunks), mimeType: res.headers['content-type'] ?? 'application/octet-stream' }),
          );
        },
      );
      req.once('error', reject);
      req.end(body ? Buffer.from(body.bytes) : undefined);
    });
  }

  async put(key: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    const res = await this.call('PUT', key, { bytes, mimeType });
    if (res.status !== 200) throw new Error(`control plane media put failed: ${res.status} ${errorOf(res.bytes)}`.trim());
  }

  async get(key: string): Promise<{ bytes: Uint8Array; mimeType: string } | undefined> {
    const res = await this.call('GET', key);
    if (res.status === 404 && /"code":"MEDIA_MISSING"/.test(res.bytes.toString('utf8'))) return undefined;
    if (res.status !== 200) throw new Error(`control plane media get failed: ${res.status} ${errorOf(res.bytes)}`.trim());
    return { bytes: res.bytes, mimeType: res.mimeType };
  }
}

function errorOf(body: Buffer): string {
  try {
    return String((JSON.parse(body.toString('utf8')) as { error?: unknown }).error ?? '');
  } catch {
    return '';
  }
}
