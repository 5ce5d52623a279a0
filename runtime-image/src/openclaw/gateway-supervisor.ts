// Keeps this agent's gateway up and the bridge connected to it: a managed gateway is
// started (gateway-process.ts) and, when it dies, started again with backoff (1 s doubling
// to 30 s, reset once one has stayed up a minute); each time the bridge connects afresh.
// Turns ask for the connected client and wait while there is none.
import { errorFields, type Logger } from '../../../shared/log.ts';
import { GatewayClient } from './gateway-client.ts';
import { ClientWaiters } from './client-wait.ts';
import type { ManagedGateway } from './gateway-process.ts';

const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 30_000;
const STABLE_MS = 60_000;

export class GatewaySupervisor {
  private client: GatewayClient | undefined;
  private gateway: ManagedGateway | undefined;
  private readonly waiters = new ClientWaiters();
  private stopped = false;
  private failures = 0;
  /** Starts this runtime has made of the gateway (the first included). */
  starts = 0;

  constructor(
    private readonly opts: {
      start(): Promise<ManagedGateway>;
      clientVersion: string;
      log: Logger;
    },
  ) {}

  /** The first start: rejects when the gateway cannot be started or connected at all. */
  async start(): Promise<GatewayClient> {
    await this.launch();
    return this.client!;
  }

  current(): GatewayClient | undefined {
    return this.client;
  }

  get pid(): number | undefined {
    return this.gateway?.pid;
  }

  /** The connected client, once there is one. */
  connected(signal: AbortSignal): Promise<GatewayClient> {
    return this.waiters.connected(
      () => this.client,
      () => (this.stopped ? 'the gateway supervisor stopped' : undefined),
      signal,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.client?.close();
    this.client = undefined;
    await this.gateway?.stop();
    this.waiters.wake();
  }

  private async launch(): Promise<void> {
    this.starts++;
    const gateway = await this.opts.start();
    this.gateway = gateway;
    const upSince = Date.now();
    let client: GatewayClient;
    try {
      client = await GatewayClient.connect(gateway.url, gateway.token, this.opts.clientVersion);
    } catch (err) {
      await gateway.stop();
      throw err;
    }
    this.client = client;
    this.waiters.wake();
    // One way down: the gateway exits (its connection closes with it) or the connection drops.
    let handled = false;
    const down = (why: string) => {
      if (handled || this.stopped) return;
      handled = true;
      if (this.client === client) this.client = undefined;
      client.close();
      void gateway.stop().then(() => this.restart(why, Date.now() - upSince));
    };
    client.onClose((err) => down(err.message));
    void gateway.exited.then((code) => down(`the gateway exited (code ${code})`));
  }

  private async restart(why: string, upMs: number): Promise<void> {
    if (upMs >= STABLE_MS) this.failures = 0;
    while (!this.stopped) {
      const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.failures++);
      this.opts.log.warn('openclaw gateway down; restarting', { why, inMs: delay });
      await new Promise((r) => setTimeout(r, delay));
      if (this.stopped) return;
      try {
        await this.launch();
        this.opts.log.info('openclaw gateway restarted', { starts: this.starts });
        return;
      } catch (err) {
        why = (err as Error).message;
        this.opts.log.error('openclaw gateway restart failed', errorFields(err));
      }
    }
  }
}
