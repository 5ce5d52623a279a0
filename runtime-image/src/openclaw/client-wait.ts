// The wait for a connected gateway client that a turn does, shared by the managed gateway's
// supervisor and the connection to an operator's gateway: both hold at most one client at a
// time and wake their waiters whenever it may have changed (connected, lost, stopped).
import type { GatewayClient } from './gateway-client.ts';

export class ClientWaiters {
  private readonly waiters = new Set<() => void>();

  /** The client once `current()` gives one; throws when `stopped()` first, or the signal's reason. */
  async connected(current: () => GatewayClient | undefined, stopped: () => string | undefined, signal: AbortSignal): Promise<GatewayClient> {
    for (let client = current(); ; client = current()) {
      if (client) return client;
      const why = stopped();
      if (why) throw new Error(why);
      if (signal.aborted) throw signal.reason;
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          signal.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.add(done);
        signal.addEventListener('abort', done, { once: true });
      });
    }
  }

  /** Wakes every waiter to look again. */
  wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
