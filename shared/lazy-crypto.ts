// The two things the runtime asks of node:crypto — a SHA-256 in hex, random bytes in hex —
// with the module loaded on first use: only turns hash and draw markers, and loading it at
// start cost ~5 ms of CPU and ~2.5 MB of idle RSS (Node 24). On AWS the SDK loads it anyway.
import type * as Crypto from 'node:crypto';
import { createRequire } from 'node:module';

let crypto: typeof Crypto | undefined;
const load = (): typeof Crypto => (crypto ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto);

export function sha256Hex(text: string | Uint8Array): string {
  return load().createHash('sha256').update(text).digest('hex');
}

export function randomHex(bytes: number): string {
  return load().randomBytes(bytes).toString('hex');
}
