// The bridge's connection to an operator's OpenClaw gateway (runtime.openclaw.mode
// "external"): nothing is started here, the gateway is the operator's. It connects with the
// token from the agent's own secret and this runtime's device identity, and until it is in
// it says why in `warning()` — pairing not approved yet (with the exact `openclaw devices
// approve <requestId>` to run on the gateway), the token refused, the gateway unreachable —
// retrying with backoff rather than exiting, so a wrong token is a clear heartbeat warning,
// not a crash loop. Once in, a dropped connection is reconnected the same way.
import { ClawfleetError } from '../../../shared/errors.ts';
import { errorFields, type Logger } from '../../../shared/log.ts';
import type { DeviceIdentity } from './device-identity.ts';
import { GatewayClient, GatewayConnectRefused, safeUrl } from './gateway-client.ts';
import { ClientWaiters } from './client-wait.ts';

/** Frames from an operator's gateway above this close the connection: no answer needs more. */
export const EXTERNAL_MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** Retry pace per reason: pairing is polled briskly (an approval should take effect soon), a refused token slowly. */
const PACE = {
  pairing: { firstMs: 2_000, maxMs: 10_000 },
  refused: { firstMs: 5_000, maxMs: 300_000 },
  unreachable: { firstMs: 1_000, maxMs: 30_000 },
} as const;

export interface ExternalGatewayOptions {
  url: string;
  token: string;
  /** The name of the token's value in the agent's secret, and how to set it: for the warning. */
  tokenName: string;
  howToSet: string;
  device: DeviceIdentity;
  clientVersion: string;
  log: Logger;
  /** Called whenever warning() changes (a heartbeat is due). */
  onWarning?: (warning: string | undefined) => void;
}

export class ExternalGateway {
  private client: GatewayClient | undefined;
  private readonly waiters = new ClientWaiters();
  private stopped = false;
  private wake: (() => void) | undefined;
  private why: string | undefined = 'connecting to the OpenClaw gateway';
  private lastLogged = '';
  private firstConnect: Promise<GatewayClient> | undefined;
  /** Successful connects so far. */
  connects = 0;

  constructor(private readonly opts: ExternalGatewayOptions) {}

  /** Why the bridge is not connected right now, for heartbeats; undefined while it is. */
  warning(): string | undefined {
    return this.client ? undefined : this.why;
  }

  current(): GatewayClient | undefined {
    return this.client;
  }

  get pid(): undefined {
    return undefined;
  }

  /** Resolves with the first connected client; waits (saying why) as long as it takes, until stop(). */
  start(): Promise<GatewayClient> {
    return (this.firstConnect ??= this.connectLoop());
  }

  connected(signal: AbortSignal): Promise<GatewayClient> {
    return this.waiters.connected(
      () => this.client,
      () => (this.stopped ? 'the gateway connection stopped' : undefined),
      signal,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.client?.close();
    this.client = undefined;
    this.wake?.();
    this.waiters.wake();
  }

  private async connectLoop(): Promise<GatewayClient> {
    const failures = { pairing: 0, refused: 0, unreachable: 0 };
    for (;;) {
      if (this.stopped) throw new ClawfleetError('STOPPED_WAITING_FOR_GATEWAY', 'stopped before the OpenClaw gateway accepted the connection');
      try {
        const client = await GatewayClient.connect(this.opts.url, this.opts.token, this.opts.clientVersion, {
          device: this.opts.device,
          maxPayload: EXTERNAL_MAX_FRAME_BYTES,
        });
        if (this.stopped) {
          client.close();
          continue;
        }
        this.connects++;
        this.client = client;
        this.opts.log.info('connected to the OpenClaw gateway', { url: safeUrl(this.opts.url), deviceId: this.opts.device.deviceId, connects: this.connects });
        this.lastLogged = '';
        this.opts.onWarning?.(undefined);
        this.waiters.wake();
        client.onClose((err) => this.dropped(client, err));
        return client;
      } catch (err) {
        const reason = this.reasonOf(err);
        this.setWhy(reason.why, err);
        const pace = PACE[reason.kind];
        await this.sleep(Math.min(pace.maxMs, pace.firstMs * 2 ** Math.min(failures[reason.kind]++, 10)));
      }
    }
  }

  private dropped(client: GatewayClient, err: Error): void {
    if (this.client !== client || this.stopped) return;
    this.client = undefined;
    this.firstConnect = undefined;
    this.setWhy(`the OpenClaw gateway connection dropped (${err.message.slice(0, 200)}); reconnecting`, err);
    void this.start().catch((e) => this.opts.log.error('openclaw gateway reconnect stopped', errorFields(e)));
  }

  /** What went wrong, as the operator is told it, and how fast to try again. */
  private reasonOf(err: unknown): { kind: keyof typeof PACE; why: string } {
    const at = safeUrl(this.opts.url);
    if (err instanceof GatewayConnectRefused) {
      if (err.code === 'PAIRING_REQUIRED') {
        const approve = err.requestId ? `openclaw devices approve ${err.requestId}` : 'openclaw devices list, then openclaw devices approve <requestId>';
        return {
          kind: 'pairing',
          why: `waiting for pairing approval of this agent's device ${this.opts.device.deviceId.slice(0, 12)}… at ${at}: run \`${approve}\` on the gateway`,
        };
      }
      if (/^AUTH_/.test(err.code)) {
        return {
          kind: 'refused',
          why: `the OpenClaw gateway at ${at} refused the token (${err.code}): ${this.opts.tokenName} in the agent's secret must be the gateway's gateway.auth.token. Set with: ${this.opts.howToSet}`,
        };
      }
      return { kind: 'refused', why: `the OpenClaw gateway at ${at} refused the connection (${err.code}): ${err.message.slice(0, 200)}` };
    }
    if (err instanceof ClawfleetError && err.code === 'OPENCLAW_PROTOCOL') return { kind: 'refused', why: err.message };
    return { kind: 'unreachable', why: (err as Error).message.slice(0, 300) };
  }

  private setWhy(why: string, err: unknown): void {
    this.why = why;
    if (why === this.lastLogged) return;
    this.lastLogged = why;
    this.opts.log.warn('openclaw gateway: not connected', { why, ...errorFields(err) });
    this.opts.onWarning?.(why);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(t);
        this.wake = undefined;
        resolve();
      };
    });
  }
}
