// The provider's Retry-After, seen where pi-ai cannot pass it on. pi-ai turns a failed
// response into error text and drops its headers, so a 429's "retry-after: 30" would be
// lost and the runtime would ask again too soon. The provider SDKs (OpenAI, Anthropic)
// call the global fetch; wrapping it once lets a model call note what its own failed
// responses asked for. AsyncLocalStorage ties each response to the call that made it, so
// sessions running in parallel never see each other's.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface ResponseNotes {
  /** The wait the last failed response asked for, in seconds. */
  retryAfterSeconds?: number | undefined;
}

const calls = new AsyncLocalStorage<ResponseNotes>();
let installed = false;

/** Runs one model call, noting any Retry-After its failed responses carry. */
export function noteRetryAfter<T>(notes: ResponseNotes, call: () => Promise<T>): Promise<T> {
  installFetchObserver();
  return calls.run(notes, call);
}

function installFetchObserver(): void {
  if (installed) return;
  installed = true;
  const original = globalThis.fetch;
  globalThis.fetch = async function observedFetch(input, init) {
    const response = await original(input, init);
    const notes = calls.getStore();
    if (notes && !response.ok) {
      const seconds = retryAfterSeconds(response.headers, Date.now());
      if (seconds !== undefined) notes.retryAfterSeconds = seconds;
    }
    return response;
  };
}

/**
 * `retry-after-ms` (OpenAI's, milliseconds) wins over `retry-after`, which is either
 * seconds or an HTTP date (RFC 9110 §10.2.3). Anything else means the provider did not say.
 */
export function retryAfterSeconds(headers: Headers, now: number): number | undefined {
  const number = /^\d+(\.\d+)?$/;
  const ms = headers.get('retry-after-ms')?.trim();
  if (ms && number.test(ms)) return Number(ms) / 1000;
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (number.test(value)) return Number(value);
  // An HTTP date starts with the day's name; Date.parse would take "-5" as a year.
  const date = /^[A-Za-z]/.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}
