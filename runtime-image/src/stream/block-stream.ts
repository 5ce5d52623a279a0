// Block streaming: each completed block of the answer (block-chunker.ts) goes out as a
// `block` envelope while the model is still writing, one at a time and in order; the final
// reply then carries only what no block carried. Blocks are real messages, so their ids are
// fixed by the turn's attempt and their index (the outbox delivers each at most once).
import { errorFields, type Logger } from '../../../shared/log.ts';
import { completedBlocks, type BlockBounds } from './block-chunker.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';

export interface BlockStreamOptions {
  bounds: BlockBounds;
  masker: SecretMasker;
  /** Whole answers that mean "send nothing": never sent as a block of their own. */
  quiet: string[];
  send(index: number, text: string): Promise<void>;
  log: Logger;
}

export class BlockStream {
  /** Blocks given an index (their ids); only those whose send succeeded count as sent. */
  private indexed = 0;
  private sentCount = 0;
  /** The text of the model call being written, and how far into it blocks have gone. */
  private current = '';
  private from = 0;
  /** The blocks sent from the current model call's text, as sent (masked). */
  private ofCurrent: string[] = [];
  private chain: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly opts: BlockStreamOptions) {}

  /** How many blocks went out (a reply's afterBlocks: none means the reply is the answer's first message). */
  get sent(): number {
    return this.sentCount;
  }

  update(textSoFar: string): void {
    if (this.stopped) return;
    // Each model call writes from empty: text before a tool call was its own message.
    const fresh = !textSoFar.startsWith(this.current);
    if (fresh) {
      this.from = 0;
      this.ofCurrent = [];
    }
    const seen = fresh ? 0 : this.current.length;
    this.current = textSoFar;
    // Where a block ends can only change once a new line has begun or the text has run past
    // maxChars: other deltas are skipped rather than scanned again (an answer comes a few characters at a time).
    const windowEnd = this.from + this.opts.bounds.maxChars;
    const newLine = textSoFar.lastIndexOf('\n') >= Math.max(0, seen - 1);
    if (!fresh && !newLine && !(seen <= windowEnd && textSoFar.length > windowEnd)) return;
    const { blocks, rest } = completedBlocks(textSoFar, this.from, this.opts.bounds);
    this.from = rest;
    for (const raw of blocks) {
      const text = this.opts.masker.mask(raw).trim();
      if (text === '' || this.opts.quiet.includes(text)) continue;
      const index = ++this.indexed;
      const ofCurrent = this.ofCurrent;
      this.chain = this.chain.then(async () => {
        if (this.stopped) return;
        try {
          await this.opts.send(index, text);
          this.sentCount++;
          ofCurrent.push(text);
        } catch (err) {
          // The final reply carries what did not go out as a block: nothing is lost.
          this.stopped = true;
          this.opts.log.warn('block not sent; the rest of the answer goes in the reply', { index, ...errorFields(err) });
        }
      });
    }
  }

  /** Stops taking text and waits for the blocks on their way: after this, no block of the turn can follow its reply. */
  async close(): Promise<void> {
    this.stopped = true;
    await this.chain;
  }

  /**
   * What the final reply must still say of `answer` (the turn's masked, trimmed text): what
   * follows the blocks sent from the same model call. Blocks from an earlier call (text the
   * model wrote before a tool) are not part of the answer, which is then sent whole.
   */
  rest(answer: string): string {
    let at = 0;
    for (const block of this.ofCurrent) {
      const start = answer.indexOf(block, at);
      if (start === -1 || answer.slice(at, start).trim() !== '') return answer;
      at = start + block.length;
    }
    return answer.slice(at).trim();
  }
}
