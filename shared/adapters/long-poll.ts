// Long polling for the embedded queues: take a message if one is ready, else wait until
// woken (a push or release in this process), a short tick passes (visibility timeouts
// run out unannounced), the deadline comes, or the caller gives up.

export interface LongPollOptions {
  waitSeconds: number;
  now: () => number;
  signal?: AbortSignal | undefined;
  /** Registers a one-shot wake-up; the queue calls it when something may be ready. */
  onWake: (wake: () => void) => void;
  tickMs: number;
}

export async function longPoll<T>(take: () => T | undefined, opts: LongPollOptions): Promise<T | undefined> {
  const deadline = opts.now() + opts.waitSeconds * 1000;
  for (;;) {
    // Checked before taking: a caller that gave up (its reader gone) must not be handed a
    // message, which would stay hidden for its visibility timeout with nobody working on it.
    if (opts.signal?.aborted) return undefined;
    const item = take();
    if (item !== undefined) return item;
    const left = deadline - opts.now();
    if (left <= 0) return undefined;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        opts.signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.min(left, opts.tickMs));
      opts.onWake(done);
      opts.signal?.addEventListener('abort', done, { once: true });
    });
  }
}
