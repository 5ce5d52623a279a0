// Turns of different sessions run side by side; a suspect turn runs alone. A message whose
// earlier attempt died with its runtime may be the poison that killed it or a bystander:
// alone, it can take down only its own attempt, and no bystander's turn starts (or is
// even taken from the queue) while it runs — otherwise each crash would count against the
// innocent messages in flight with it, and they would be set aside with the poison.

interface Waiter {
  exclusive: boolean;
  go(): void;
}

export class TurnLock {
  private shared = 0;
  private exclusiveHeld = false;
  /** First come, first served: a shared turn queued behind an exclusive one waits for it. */
  private readonly queue: Waiter[] = [];
  private quietWaiters: (() => void)[] = [];

  /** Runs `fn` beside other shared turns, once no exclusive turn holds or waits ahead. */
  async runShared<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(false);
    try {
      return await fn();
    } finally {
      this.shared--;
      this.wake();
    }
  }

  /** Runs `fn` alone: after every turn already running has finished, before any that asks later. */
  async runAlone<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire(true);
    try {
      return await fn();
    } finally {
      this.exclusiveHeld = false;
      this.wake();
    }
  }

  /** Resolves when no turn runs alone or waits to: the time to take more work from the queue. */
  whenQuiet(): Promise<void> {
    if (this.quiet()) return Promise.resolve();
    return new Promise((resolve) => this.quietWaiters.push(resolve));
  }

  /** True when no turn runs alone or waits to. */
  quiet(): boolean {
    return !this.exclusiveHeld && !this.queue.some((w) => w.exclusive);
  }

  private acquire(exclusive: boolean): Promise<void> {
    return new Promise((resolve) => {
      this.queue.push({ exclusive, go: resolve });
      this.wake();
    });
  }

  private wake(): void {
    while (this.queue.length > 0 && !this.exclusiveHeld) {
      const next = this.queue[0]!;
      if (next.exclusive) {
        if (this.shared > 0) break;
        this.exclusiveHeld = true;
      } else {
        this.shared++;
      }
      this.queue.shift();
      next.go();
    }
    if (this.quiet() && this.quietWaiters.length > 0) {
      const waiters = this.quietWaiters;
      this.quietWaiters = [];
      for (const w of waiters) w();
    }
  }
}
