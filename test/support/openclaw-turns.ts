// What the OpenClaw fleet tests (test/openclaw/) share about a turn: which of the test's phrases
// a model request carries newest, requests held until the test lets them go, and waiting for an
// event whose timeout says what the fleet was doing.

export const mentions = (body: unknown, phrase: string): boolean => JSON.stringify(body).includes(phrase);

/**
 * The one of `phrases` that `body` carries last. OpenClaw's last user message is its own context
 * block, with the chat inside and side work (an activity recap) around it: the newest phrase stands
 * last; the history holds the rest.
 */
export function newestPhrase(body: unknown, phrases: readonly string[]): string | undefined {
  const text = JSON.stringify(body);
  return [...phrases].sort((a, b) => text.lastIndexOf(b) - text.lastIndexOf(a)).find((p) => text.includes(p));
}

/** Model requests whose body mentions a held marker wait (in the responder) until the test releases them. */
export class HeldRequests {
  private readonly held = new Map<string, { release: () => void; released: Promise<void> }>();

  /** Holds requests mentioning `marker` from now on; returns the release. */
  hold(marker: string): () => void {
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    this.held.set(marker, { release, released });
    return release;
  }

  /** Resolves once no marker `body` mentions is held. */
  async wait(body: unknown): Promise<void> {
    for (const [marker, h] of this.held) if (mentions(body, marker)) await h.released;
  }

  /** Lets everything go (a test's end, so no responder stays waiting). */
  releaseAll(): void {
    for (const h of this.held.values()) h.release();
  }
}

/**
 * A `waitFor(what, probe, timeoutMs)`: polls `probe` every 100 ms until it gives something truthy,
 * which it returns; a timeout's error names `what` and adds `context()` (the runtime's last lines).
 */
export function waiter(context: () => string) {
  return async function waitFor<T>(what: string, probe: () => T | undefined | false, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = probe();
      if (v) return v;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${context()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
}
