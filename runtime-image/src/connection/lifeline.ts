// The local fleet's line to its runtime (CLAWFLEET_LIFELINE=stdin): the runtime's stdin is a
// pipe whose other end only the fleet holds. The fleet asks for a stop by writing a signal's
// name on it, since the runtime's box (bubblewrap) passes no signal on; the pipe's end means
// the fleet is gone, however it died (the kernel closes its end), which a parent watch cannot
// see from inside the box's own pid namespace.
import type { Readable } from 'node:stream';

/** The stops the fleet may ask for: what the runtime does on these signals. */
export const LIFELINE_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
export type LifelineSignal = (typeof LIFELINE_SIGNALS)[number];

/** A line longer than this is no request of the fleet's: dropped, as is a line naming nothing known. */
const MAX_LINE = 64;

export interface LifelineEvents {
  /** The fleet asked for a stop, as `signal` would. */
  stop(signal: LifelineSignal): void;
  /** The pipe ended or broke: the fleet is gone. Called once. */
  gone(): void;
}

/** Listens on `input` (the runtime's stdin) until it ends; returns a function that stops listening. */
export function watchLifeline(input: Readable, events: LifelineEvents): () => void {
  let pending = '';
  let ended = false;
  const onData = (chunk: Buffer | string) => {
    pending += chunk.toString();
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if ((LIFELINE_SIGNALS as readonly string[]).includes(line)) events.stop(line as LifelineSignal);
    }
    if (pending.length > MAX_LINE) pending = '';
  };
  const onEnd = () => {
    if (ended) return;
    ended = true;
    events.gone();
  };
  input.on('data', onData);
  input.once('end', onEnd);
  input.once('close', onEnd);
  input.once('error', onEnd);
  return () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onEnd);
    input.off('error', onEnd);
    input.pause();
  };
}
