// Local mode's runtime side of the control plane channel: the runtime's inbox, outbox and
// dead letters as calls to the local control plane over loopback HTTP. The bearer token is
// this runtime's alone, so the control plane knows the sender by the token, as on AWS it
// knows it by the outbox queue. Plain node:http rather than fetch: fetch's first call loads
// undici (~20 ms and ~15 MB of a runtime's start and idle RSS) for a loopback POST.
import { Agent, request } from 'node:http';
import type { OutboundEnvelope } from '../../protocol/envelopes.ts';
import type { LedgerMonth, ReserveOutcome, ReserveRequest, SettleRequest } from '../../budget/ledger.ts';
import type { DeadLetters, Inbox, Outbox, ReceivedMessage, SpendLedger } from '../../ports.ts';

/**
 * A connection per call, closed after its answer: on loopback one costs well under a
 * millisecond, and no call can be written to a kept-alive socket the server has just closed
 * (which a POST could not safely retry). Long polls hold their own connection either way.
 */
const oneShot = new Agent({ keepAlive: false });

export class HttpRuntimeChannel implements Inbox, Outbox, DeadLetters, SpendLedger {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    /** How long a received message stays hidden before it must be extended, as on SQS. */
    private readonly visibilitySeconds = 60,
  ) {}

  private call<T>(op: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise<T>((resolve, reject) => {
      const req = request(
        `${this.baseUrl}/runtime/${op}`,
        {
          method: 'POST',
          agent: oneShot,
          headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json', 'content-length': payload.length },
          signal,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.once('error', reject);
          // The control plane went away mid-answer: a failed call, never a half-read one.
          res.once('close', () => {
            if (!res.complete) reject(new Error(`control plane ${op} failed: the connection closed before the answer ended`));
          });
          res.once('end', () => {
            let json: T & { error?: string };
            try {
              json = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T & { error?: string };
            } catch {
              json = {} as T & { error?: string };
            }
            const status = res.statusCode ?? 0;
            if (status < 200 || status > 299) reject(new Error(`control plane ${op} failed: ${status} ${json.error ?? ''}`.trim()));
            else resolve(json);
          });
        },
      );
      req.once('error', reject);
      req.end(payload);
    });
  }

  async receive(waitSeconds: number, signal?: AbortSignal): Promise<ReceivedMessage[]> {
    try {
      return (await this.call<{ messages: ReceivedMessage[] }>('receive', { waitSeconds, visibilitySeconds: this.visibilitySeconds }, signal)).messages;
    } catch (err) {
      if (signal?.aborted) return [];
      throw err;
    }
  }

  async extend(receipt: string, seconds: number) {
    await this.call('extend', { receipt, seconds });
  }

  async delete(receipt: string) {
    await this.call('delete', { receipt });
  }

  async release(receipt: string) {
    await this.call('release', { receipt });
  }

  async send(envelope: OutboundEnvelope) {
    await this.call('outbox', { envelope });
  }

  async put(body: string, reason: string) {
    await this.call('dead-letter', { body, reason });
  }

  // ── Budgets (#31): this runtime's own ledger, kept by the control plane. The agent is the
  // token's; the caps and the time are the control plane's own (the request's are not sent).
  async reserve(_agentId: string, req: ReserveRequest): Promise<ReserveOutcome> {
    return (await this.call<{ outcome: ReserveOutcome }>('spend', { op: 'reserve', callId: req.callId, micros: req.micros, holdMs: req.holdMs })).outcome;
  }

  async settle(_agentId: string, req: SettleRequest): Promise<boolean> {
    return (await this.call<{ settled: boolean }>('spend', { op: 'settle', callId: req.callId, month: req.month, micros: req.micros })).settled;
  }

  async month(_agentId: string, month: string): Promise<LedgerMonth> {
    return (await this.call<{ month: LedgerMonth }>('spend', { op: 'month', month })).month;
  }
}
