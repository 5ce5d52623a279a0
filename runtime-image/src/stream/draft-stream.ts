// The answer so far, sent as `draft` envelopes while the model writes: at most one per
// interval the control plane asked for, one in flight at a time, the latest text only
// (drafts in between are skipped, never queued). Closed before the final reply goes out, so
// every draft of a turn is on the outbox ahead of its reply, in the same FIFO group.
import { errorFields, type Logger } from '../../../shared/log.ts';
import type { Clock } from '../../../shared/ports.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';

export interface DraftStreamOptions {
  minIntervalMs: number;
  clock: Clock;
  masker: SecretMasker;
  /** Whole answers that mean "send nothing": a draft is held back while the text could still become one. */
  quiet: string[];
  /** The text given is complete as it is (a progress status), not an answer being written: no word is held back. */
  whole?: boolean;
  send(seq: number, text: string): Promise<void>;
  log: Logger;
}

export class DraftStream {
  private seq = 0;
  private latest = '';
  private shown = '';
  /**
   * Starts when the model starts writing: an answer written within one interval (a fast model,
   * or a slow one that sends its text in one go) sends no draft at all — nobody would see it,
   * and each is an envelope.
   */
  private lastSentAt: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly opts: DraftStreamOptions) {}

  /** How many drafts were sent. */
  get sent(): number {
    return this.seq;
  }

  update(textSoFar: string): void {
    if (this.closed) return;
    this.lastSentAt ??= this.opts.clock.now();
    this.latest = this.opts.whole ? this.opts.masker.mask(textSoFar).trimEnd() : draftText(textSoFar, this.opts.masker);
    this.schedule();
  }

  /** Stops sending and waits for the draft in flight: after this, no draft of the turn can follow its reply. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  private schedule(): void {
    if (this.timer || this.inFlight || this.closed) return;
    const wait = (this.lastSentAt ?? this.opts.clock.now()) + this.opts.minIntervalMs - this.opts.clock.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
  }

  private flush(): void {
    const text = this.latest;
    if (this.closed || text === this.shown || text.trim() === '' || this.opts.quiet.some((q) => q.startsWith(text.trim()))) return;
    this.shown = text;
    this.lastSentAt = this.opts.clock.now();
    const seq = ++this.seq;
    this.inFlight = this.opts
      .send(seq, text)
      .catch((err) => this.opts.log.warn('draft not sent', errorFields(err)))
      .finally(() => {
        this.inFlight = undefined;
        if (this.latest !== this.shown) this.schedule();
      });
  }
}

/**
 * What a draft may show of the text so far: this agent's secret values masked, and the word
 * being written left out until it is complete — a secret cut off mid-value would not match
 * the masker yet, and the start of it must not reach the chat.
 */
export function draftText(textSoFar: string, masker: SecretMasker): string {
  const whole = /\s/.test(textSoFar) ? textSoFar.slice(0, textSoFar.search(/\S*$/)) : '';
  return masker.mask(whole).trimEnd();
}
