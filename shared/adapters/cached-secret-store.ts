// Caches secrets for a max age, so a warm Lambda or a runtime reads each secret about
// once per interval rather than once per request, and still picks up a rotation.
import type { SecretStore } from '../ports.ts';
import { processRedactor, type Redactor } from '../log.ts';

export class CachedSecretStore implements SecretStore {
  private readonly cache = new Map<string, { at: number; value: Promise<Record<string, string>> }>();

  constructor(
    private readonly inner: SecretStore,
    private readonly now: () => number,
    private readonly maxAgeMs = 5 * 60_000,
    /** Every value read is masked in this process's logs. */
    private readonly redactor: Redactor = processRedactor,
  ) {}

  get(secretId: string): Promise<Record<string, string>> {
    const hit = this.cache.get(secretId);
    if (hit && this.now() - hit.at < this.maxAgeMs) return hit.value;
    const value = this.inner.get(secretId).then((v) => {
      this.redactor.add(...Object.values(v));
      return v;
    });
    value.catch(() => this.cache.delete(secretId));
    this.cache.set(secretId, { at: this.now(), value });
    return value;
  }
}
