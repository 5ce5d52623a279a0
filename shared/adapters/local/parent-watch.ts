// Notices that the process which started this one has gone (this one was re-parented), for
// processes that must not outlive it: a local runtime whose fleet died, a fleet whose npm died.
// Polled, as Node has no parent-death signal; a check is one getppid() call.

export interface ParentWatchOptions {
  /** How often to look (default 500 ms). */
  intervalMs?: number;
  /** The parent's pid now; tests pass their own. */
  ppid?: () => number;
}

/** Calls `onGone` once, when the parent this process has now is no longer its parent. Returns a stop function. */
export function watchParent(onGone: () => void, opts: ParentWatchOptions = {}): () => void {
  const ppid = opts.ppid ?? (() => process.ppid);
  const parent = ppid();
  const timer = setInterval(() => {
    if (ppid() === parent) return;
    clearInterval(timer);
    onGone();
  }, opts.intervalMs ?? 500);
  // Watching must never be what keeps the process up.
  timer.unref();
  return () => clearInterval(timer);
}
