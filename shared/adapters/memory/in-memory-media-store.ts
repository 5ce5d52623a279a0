// The media store in memory, for unit tests: what was put, under which key, readable back.
import type { MediaStore } from '../../ports.ts';

export class InMemoryMediaStore implements MediaStore {
  readonly objects = new Map<string, { bytes: Uint8Array; mimeType: string }>();

  async put(key: string, bytes: Uint8Array, mimeType: string): Promise<void> {
    this.objects.set(key, { bytes: Uint8Array.from(bytes), mimeType });
  }

  async get(key: string): Promise<{ bytes: Uint8Array; mimeType: string } | undefined> {
    return this.objects.get(key);
  }
}
