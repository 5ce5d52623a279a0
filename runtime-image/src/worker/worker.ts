// The runtime's loop over its own queue: receive, keep each message hidden while its turn
// runs, and delete it only after its answer is on the outbox. Sessions run in parallel
// up to a limit, one turn at a time per session (the FIFO group already holds a session
// back while one of its messages is in flight; the per-session chain here is the
// backstop). On stop it finishes turns in flight within the drain time, else releases
// their messages for the next runtime: a message is never deleted unanswered.
//
// Each session slot is its own loop: a long poll for one message, its turn, the next poll.
// FIFO hides a group while its message is in flight, so every idle slot's poll brings
// another session's message and turns of different sessions start together, not one
// receive round trip apart (as Lambda's SQS pollers do). The price is a few more empty
// long polls while idle: three a minute per slot.
import { EnvelopeError } from '../../../shared/errors.ts';
import { errorFields, type Logger } from '../../../shared/log.ts';
import { parseInbound, type InboundEnvelope, PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import { replyId, typingId } from '../../../shared/protocol/ids.ts';
import type { Clock, DeadLetters, Inbox, Outbox, ReceivedMessage } from '../../../shared/ports.ts';
import { DEFAULT_MAX_SESSIONS } from '../../../shared/runtime-limits.ts';
import type { AttemptLog } from './attempt-log.ts';
import { TurnLock } from './turn-lock.ts';
import { pause } from '../pause.ts';
import { SHOW_WORK_AFTER_MS, type TurnOutcome } from '../turn/turn-answer.ts';

export type WorkEnvelope = Exclude<InboundEnvelope, { kind: 'control' }>;
export type ControlAction = Extract<InboundEnvelope, { kind: 'control' }>['action'];

export interface WorkerDeps {
  agentId: string;
  inbox: Inbox;
  outbox: Outbox;
  deadLetters: DeadLetters;
  clock: Clock;
  log: Logger;
  /** `signal`: shutdown (release the message); `cancel`: a /stop for the session (the turn ends, answered). */
  handle(envelope: WorkEnvelope, signal: AbortSignal, cancel: AbortSignal): Promise<TurnOutcome>;
  /** The queue's maxReceiveCount: its last receive is spent telling the asker, not retrying. */
  maxReceiveCount?: number | undefined;
  /** Answers a message that failed every attempt (see giveUpTurn). */
  giveUp?(envelope: WorkEnvelope, attempts: number): Promise<'resent' | 'failed'>;
  /** Attempts that died with their runtime, per inbound message (attempt-log.ts); without it, receives are counted instead. */
  attempts?: AttemptLog | undefined;
  /** drain: the worker has stopped taking work; reload: re-read what can change without a restart. (cancel is the worker's own.) */
  control(action: Exclude<ControlAction, 'cancel'>): Promise<void>;
  /** Errors after which polling cannot succeed (queue gone, access denied): the process should exit non-zero. */
  isFatal?(err: unknown): boolean;
  onFatal?(err: unknown): void;
  /** Seconds a received message stays hidden; it is extended at a third of this. */
  visibilitySeconds: number;
  waitSeconds?: number;
  /** Sessions whose turns may run at once. */
  maxConcurrent?: number;
  /** A user's turn still working after this long shows "typing…" (SHOW_WORK_AFTER_MS but in tests). */
  showWorkAfterMs?: number;
}

/** The answer to a /stop when the session has no turn running. */
export const NOTHING_RUNNING_TEXT = 'Nothing is running.';

const TYPING_EVERY_MS = 4_500; // Telegram shows "typing…" for about 5 s.
/** Attempts cut off by a crash after which a message is set aside (the asker told): a poison message. */
export const MAX_TURN_ATTEMPTS = 2;

export class Worker {
  /** Set on stop: no new receive starts; a receive already waiting is let finish (see stop). */
  private stopping = false;
  private readonly stopSignal = new AbortController();
  /** Aborts a receive that overstays its wait (a safety net only). */
  private readonly pollAbort = new AbortController();
  private readonly turnAbort = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly sessions = new Map<string, Promise<unknown>>();
  private readonly turns = new TurnLock();
  /** The turn running in each session, for a /stop to cancel. */
  private readonly running = new Map<string, AbortController>();
  private loop: Promise<void> | undefined;
  private fatal = false;
  /**
   * Receipts of messages a poll brought after stopping began. Released only once every
   * slot's poll has ended: released at once, the next slot still waiting would take the
   * same message, and each such receive counts toward the queue's maxReceiveCount.
   */
  private readonly held: string[] = [];

  constructor(private readonly deps: WorkerDeps) {}

  get busy(): number {
    return this.inFlight.size;
  }

  start(): void {
    this.loop ??= this.run();
  }

  /**
   * Resolves once the loop has stopped; every message in flight is finished or released.
   * A long poll already waiting is not aborted: the queue would still hand it a message
   * that nobody reads, hidden (and its FIFO group blocked) for the visibility timeout.
   * It is let finish, and whatever it brings is released at once.
   */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true;
    this.stopSignal.abort();
    const overstay = setTimeout(() => this.pollAbort.abort(), ((this.deps.waitSeconds ?? 20) + 5) * 1000);
    if (this.inFlight.size > 0) {
      const timer = setTimeout(() => this.turnAbort.abort(), drainMs);
      await Promise.all([...this.inFlight]);
      clearTimeout(timer);
    }
    await this.loop;
    clearTimeout(overstay);
  }

  private async run(): Promise<void> {
    const slots = Math.max(1, this.deps.maxConcurrent ?? DEFAULT_MAX_SESSIONS);
    await Promise.all(Array.from({ length: slots }, () => this.slot()));
    const { inbox, log } = this.deps;
    await Promise.all(this.held.splice(0).map((receipt) => inbox.release(receipt).catch((err) => log.warn('message not released', errorFields(err)))));
  }

  /** One session slot: receive a message, see its turn through, receive the next. */
  private async slot(): Promise<void> {
    const { log } = this.deps;
    let failures = 0;
    while (!this.stopping) {
      // While a suspect turn runs alone (or waits to), take nothing more from the queue: a
      // message taken now would only wait, and a crash would count against it.
      if (!this.turns.quiet()) {
        await Promise.race([this.turns.whenQuiet(), abortable(this.stopSignal.signal)]);
        if (this.stopping) break;
      }
      let messages: ReceivedMessage[];
      try {
        messages = await this.deps.inbox.receive(this.deps.waitSeconds ?? 20, this.pollAbort.signal);
        failures = 0;
      } catch (err) {
        if (this.stopping) break;
        if (this.deps.isFatal?.(err)) {
          // Every slot sees the same error; the process is told once.
          this.stopping = true;
          if (!this.fatal) {
            this.fatal = true;
            log.error('cannot receive from the inbox; giving up', errorFields(err));
            this.deps.onFatal?.(err);
          }
          break;
        }
        failures++;
        log.error('receive failed; retrying', { ...errorFields(err), failures });
        await pause(Math.min(30_000, 1_000 * 2 ** Math.min(failures, 5)), this.stopSignal.signal);
        continue;
      }
      if (this.stopping) {
        this.held.push(...messages.map((m) => m.receipt));
        break;
      }
      for (const m of messages) {
        const p: Promise<void> = this.process(m)
          .catch((err) => log.error('message left for redelivery', errorFields(err)))
          .finally(() => this.inFlight.delete(p));
        this.inFlight.add(p);
        await p;
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
    } catch (err) {
      if (!(err instanceof EnvelopeError)) throw err;
      await this.deps.deadLetters.put(m.body, `${err.code}: ${err.message}`);
      await inbox.delete(m.receipt);
      log.warn('inbound envelope rejected to the DLQ', { code: err.code, reason: err.message });
      return;
    }

    if (envelope.kind === 'control') {
      // Deleted first: a drain that ends this process must not be redelivered to the next one.
      await inbox.delete(m.receipt);
      log.info('control envelope', { action: envelope.action, envelopeId: envelope.id });
      if (envelope.action === 'cancel') return this.cancel(envelope);
      if (envelope.action === 'drain') this.stopping = true;
      await this.deps.control(envelope.action);
      return;
    }

    const work = envelope;
    const { maxReceiveCount, giveUp } = this.deps;
    // Attempts cut off by a crash, where the runtime keeps them; else every earlier receive
    // (each hand-out but this one), which also counts a message that only waited in a turn's shadow.
    const died = this.deps.attempts ? await this.attemptsOf(work.id) : m.receiveCount - 1;
    const lastReceive = maxReceiveCount !== undefined && m.receiveCount >= maxReceiveCount;
    if (giveUp && (died >= MAX_TURN_ATTEMPTS || lastReceive)) {
      // Every earlier attempt died with its process (a finished turn would have deleted
      // it): tell the asker and park it with the reason, rather than let the queue's
      // redrive move it away unannounced on the next receive.
      const outcome = await this.inSession(work.sessionKey, () => giveUp(work, died));
      if (outcome === 'failed')
        await this.deps.deadLetters.put(m.body, `GAVE_UP: ${died} attempts died with the runtime (received ${m.receiveCount} times)`, work.sessionKey);
      await inbox.delete(m.receipt);
      await this.deps.attempts?.clear(work.id).catch(() => {});
      log.warn('message set aside after repeated failures; the asker was told', { envelopeId: work.id, attempts: died, receiveCount: m.receiveCount, outcome });
      return;
    }
    const stopKeepAlive = this.keepAlive(m, work);
    let outcome: TurnOutcome;
    // Cause or bystander of a crash: alone, it can take down only its own attempt
    // (turn-lock.ts). The lock is taken inside the session's chain, so no turn holds it
    // while waiting for another turn.
    const turn = async () => {
      await this.noteAttempt(work.id);
      const cancel = new AbortController();
      this.running.set(work.sessionKey, cancel);
      try {
        return await this.deps.handle(work, this.turnAbort.signal, cancel.signal);
      } finally {
        if (this.running.get(work.sessionKey) === cancel) this.running.delete(work.sessionKey);
      }
    };
    try {
      outcome = await this.inSession(work.sessionKey, () => (died > 0 ? this.turns.runAlone(turn) : this.turns.runShared(turn)));
    } finally {
      stopKeepAlive();
    }
    if (outcome === 'aborted') {
      // Stopped by a drain, not a crash: this attempt does not count against it.
      await this.deps.attempts?.takeBack(work.id).catch((err) => log.warn('attempt not taken back', { envelopeId: work.id, ...errorFields(err) }));
      await inbox.release(m.receipt);
      log.info('turn aborted by shutdown; message released', { envelopeId: work.id });
      return;
    }
    await inbox.delete(m.receipt);
    await this.deps.attempts?.clear(work.id).catch((err) => log.warn('attempt record not cleared', { envelopeId: work.id, ...errorFields(err) }));
  }

  private async attemptsOf(inboundId: string): Promise<number> {
    try {
      return await this.deps.attempts!.count(inboundId);
    } catch {
      return 0;
    }
  }

  /** Best effort: without the record, the queue's receive count still bounds a poison message. */
  private async noteAttempt(inboundId: string): Promise<void> {
    try {
      await this.deps.attempts?.start(inboundId);
    } catch (err) {
      this.deps.log.warn('attempt not recorded', { envelopeId: inboundId, ...errorFields(err) });
    }
  }

  /**
   * A /stop: cancels the session's running turn, which then answers that it stopped. With
   * nothing running, the /stop itself is answered so (its origin is the chat it came from).
   */
  private async cancel(envelope: Extract<InboundEnvelope, { kind: 'control' }>): Promise<void> {
    const { outbox, agentId, clock, log } = this.deps;
    const sessionKey = envelope.cancelSession;
    if (!sessionKey) return log.warn('cancel without a session ignored', { envelopeId: envelope.id });
    const turn = this.running.get(sessionKey);
    if (turn) {
      turn.abort();
      log.info('turn cancelled by /stop', { sessionKey, envelopeId: envelope.id });
      return;
    }
    await outbox.send({
      v: PROTOCOL_VERSION,
      kind: 'reply',
      id: replyId(envelope.id),
      agentId,
      sessionKey,
      inReplyTo: envelope.id,
      ts: clock.now(),
      text: NOTHING_RUNNING_TEXT,
    });
  }

  /** Runs `fn` after the session's previous turn has finished. */
  private async inSession<T>(sessionKey: string, fn: () => Promise<T>): Promise<T> {
    const before = this.sessions.get(sessionKey) ?? Promise.resolve();
    const mine = before.catch(() => {}).then(fn);
    this.sessions.set(sessionKey, mine);
    try {
      return await mine;
    } finally {
      if (this.sessions.get(sessionKey) === mine) this.sessions.delete(sessionKey);
    }
  }

  /** Extends the message's visibility while its turn runs, and shows "typing…" for user messages. */
  private keepAlive(m: ReceivedMessage, envelope: WorkEnvelope): () => void {
    const { visibilitySeconds, inbox, outbox, log, clock, agentId } = this.deps;
    let typingTimer: NodeJS.Timeout | undefined;
    // A reaction (#31) is noted, not answered: nobody waits for it to be typed.
    if (envelope.kind === 'message' && !envelope.reaction) {
      let typingCount = 0;
      const typing = () =>
        outbox
          .send({
            v: PROTOCOL_VERSION,
            kind: 'typing',
            id: typingId(envelope.id, `${m.receiveCount}-${typingCount++}`),
            agentId,
            sessionKey: envelope.sessionKey,
            inboundId: envelope.id,
            ts: clock.now(),
          })
          .catch((err) => log.warn('typing not sent', errorFields(err)));
      // Not for a turn answered within SHOW_WORK_AFTER_MS: nobody would see it.
      typingTimer = setTimeout(() => {
        void typing();
        typingTimer = setInterval(typing, TYPING_EVERY_MS);
      }, this.deps.showWorkAfterMs ?? SHOW_WORK_AFTER_MS);
    }
    const extendTimer = setInterval(
      () => {
        inbox.extend(m.receipt, visibilitySeconds).catch((err) => log.warn('visibility not extended', { envelopeId: envelope.id, ...errorFields(err) }));
      },
      (visibilitySeconds * 1000) / 3,
    );
    return () => {
      clearTimeout(typingTimer); // the first wait, or the interval after it (Node clears either)
      clearInterval(extendTimer);
    };
  }
}

/** Resolves when the signal aborts (never rejects). */
function abortable(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
