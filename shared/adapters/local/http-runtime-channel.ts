// Local mode's runtime side of the control plane channel: the runtime's inbox, outbox and
// dead letters as calls to the local control plane over loopback HTTP. The bearer token is
// this runtime's alone, so the control plane knows the sender by the token, as on AWS it
// knows it by the outbox queue.
import type { OutboundEnvelope } from '../../protocol/envelopes.ts';
import type { DeadLetters, Inbox, Outbox, ReceivedMessage } from '../../ports.ts';

export class HttpRuntimeChannel implements Inbox, Outbox, DeadLetters {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    /** How long a received message stays hidden before it must be extended, as on SQS. */
    private readonly visibilitySeconds = 60,
  ) {}

  private async call<T>(op: string, body: unknown, signal?: AbortSignal): Promise<T> {
    const res = await fetch(`${this.baseUrl}/runtime/${op}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    const json = (await res.json().catch(() => ({}))) as T & { error?: string };
    if (!res.ok) throw new Error(`control plane ${op} failed: ${res.status} ${json.error ?? ''}`.trim());
    return json;
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
}
