// The runtime's loop over its own queue: receive one message, keep it hidden while its
// turn runs, and delete it only after the reply is on the outbox. On stop it finishes
// the turn in flight if it can within the drain time, else releases the message for the
// next runtime — a message is never deleted unanswered.
import { EnvelopeError } from '../../shared/errors.ts';
import { errorFields, type Logger } from '../../shared/log.ts';
import { parseInbound, type InboundEnvelope } from '../../shared/protocol/envelopes.ts';
import { typingId } from '../../shared/protocol/ids.ts';
import type { Clock, DeadLetters, Inbox, Outbox, ReceivedMessage } from '../../shared/ports.ts';
import type { TurnOutcome } from './turn.ts';

export interface WorkerDeps {
  agentId: string;
  inbox: Inbox;
  outbox: Outbox;
  deadLetters: DeadLetters;
  clock: Clock;
  log: Logger;
  runTurn(envelope: Extract<InboundEnvelope, { kind: 'message' }>, attempt: number, signal: AbortSignal): Promise<TurnOutcome>;
  /** Seconds a received message stays hidden; it is extended at a third of this. */
  visibilitySeconds: number;
  waitSeconds?: number;
}

const TYPING_EVERY_MS = 4_500; // Telegram shows "typing…" for about 5 s.

export class Worker {
  private readonly pollAbort = new AbortController();
  private readonly turnAbort = new AbortController();
  private inFlight: Promise<void> | undefined;
  private loop: Promise<void> | undefined;

  constructor(private readonly deps: WorkerDeps) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Resolves once the loop has stopped; the message in flight is finished or released. */
  async stop(drainMs: number): Promise<void> {
    this.pollAbort.abort();
    if (this.inFlight) {
      const timer = setTimeout(() => this.turnAbort.abort(), drainMs);
      await this.inFlight;
      clearTimeout(timer);
    }
    await this.loop;
  }

  private async run(): Promise<void> {
    const { log } = this.deps;
    while (!this.pollAbort.signal.aborted) {
      let messages: ReceivedMessage[];
      try {
        messages = await this.deps.inbox.receive(this.deps.waitSeconds ?? 20, this.pollAbort.signal);
      } catch (err) {
        if (this.pollAbort.signal.aborted) break;
        log.error('receive failed; retrying', errorFields(err));
        await sleep(2_000, this.pollAbort.signal);
        continue;
      }
      for (const m of messages) {
        this.inFlight = this.process(m).catch((err) => log.error('message left for redelivery', errorFields(err)));
        await this.inFlight;
        this.inFlight = undefined;
      }
    }
  }

  private async process(m: ReceivedMessage): Promise<void> {
    const { inbox, log } = this.deps;
    let envelope: InboundEnvelope;
    try {
      envelope = parseInbound(m.body);
      if (envelope.agentId !== this.deps.agentId) {
        throw new EnvelopeError('AGENT_MISMATCH', `envelope for agent "${envelope.agentId}" arrived on the queue of "${this.deps.agentId}"`);
      }
      if (envelope.kind !== 'message') {
        throw new EnvelopeError('ENVELOPE_INVALID', `this runtime does not handle "${envelope.kind}" envelopes yet`);
      }
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      await this.deps.deadLetters.put(m.body, `${err.code}: ${err.message}`);
      await inbox.delete(m.receipt);
      log.warn('inbound envelope rejected to the DLQ', { code: err.code, reason: err.message });
      return;
    }

    const stopKeepAlive = this.keepAlive(m, envelope);
    let outcome: TurnOutcome;
    try {
      outcome = await this.deps.runTurn(envelope, m.receiveCount, this.turnAbort.signal);
    } finally {
      stopKeepAlive();
    }
    switch (outcome) {
      case 'replied':
      case 'resent':
      case 'failed':
        await inbox.delete(m.receipt);
        return;
      case 'retry':
        // Stay hidden a while (backing off), then come back for another attempt.
        await inbox.extend(m.receipt, Math.min(5 * 2 ** m.receiveCount, 300));
        return;
      case 'aborted':
        await inbox.release(m.receipt);
        log.info('turn aborted by shutdown; message released', { envelopeId: envelope.id });
        return;
    }
  }

  /** Extends the message's visibility and shows "typing…" while the turn runs. */
  private keepAlive(m: ReceivedMessage, envelope: Extract<InboundEnvelope, { kind: 'message' }>): () => void {
    const { visibilitySeconds, inbox, outbox, log, clock, agentId } = this.deps;
    let typingCount = 0;
    const typing = () =>
      outbox
        .send({ v: 1, kind: 'typing', id: typingId(envelope.id, `${m.receiveCount}-${typingCount++}`), agentId, sessionKey: envelope.sessionKey, ts: clock.now() })
        .catch((err) => log.warn('typing not sent', errorFields(err)));
    void typing();
    const typingTimer = setInterval(typing, TYPING_EVERY_MS);
    const extendTimer = setInterval(() => {
      inbox.extend(m.receipt, visibilitySeconds).catch((err) => log.warn('visibility not extended', { envelopeId: envelope.id, ...errorFields(err) }));
    }, (visibilitySeconds * 1000) / 3);
    return () => {
      clearInterval(typingTimer);
      clearInterval(extendTimer);
    };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });
}
