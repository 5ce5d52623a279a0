// The runtime's one wait: `ms`, cut short when the signal aborts (a stop, a turn's end). It
// never rejects and leaves no listener on the signal behind; its timer is not unref'd, so a
// runtime that has nothing else to do (waiting for its secret with heartbeats off) stays up.

export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
