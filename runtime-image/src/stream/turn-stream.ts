// What a turn does with the control plane's `stream` request while its answer is written:
// drafts (draft-stream.ts) or blocks (block-stream.ts) on the outbox, with their
// deterministic ids. One helper for the native turn and the OpenClaw bridge alike, so both
// stream the same way; each feeds it the answer's text so far and closes it before the reply.
import type { Logger } from '../../../shared/log.ts';
import { PROTOCOL_VERSION, type OutboundEnvelope } from '../../../shared/protocol/envelopes.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import { DEFAULT_BLOCK_BOUNDS } from './block-chunker.ts';
import { BlockStream } from './block-stream.ts';
import { DraftStream } from './draft-stream.ts';
import { ProgressStream } from './progress-stream.ts';
import { derivedId } from '../turn/envelope-ids.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';
import type { TurnRequest } from '../turn/turn-request.ts';

export interface TurnStreamDeps {
  agentId: string;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  masker: SecretMasker;
}

export interface TurnStream {
  /** Takes the answer's text so far (whole, not a delta); undefined when the turn does not stream its text. */
  readonly onText: ((textSoFar: string) => void) | undefined;
  /** Takes each tool call as it starts, with what the model said before it (progress streaming); undefined otherwise. */
  readonly onToolStart?: ((name: string, said: string) => void) | undefined;
  /** Stops streaming and waits for what is on its way: after this, nothing of the stream can follow the reply. */
  close(): Promise<void>;
  /**
   * What the reply's record says of blocks already sent — how many, and the rest of `reply`
   * (the answer's masked, trimmed text) that no block carried — or undefined when none went out.
   */
  blocksFor(reply: string): { sent: number; rest: string } | undefined;
}

/**
 * What tells this attempt's drafts and blocks from another's of the same inbound, in their
 * ids: FIFO deduplication would drop a redone turn's (its text written anew) if they were the
 * same. A block's may name what wrote the text instead (the OpenClaw bridge's run), so the
 * same text sent again after a restart keeps its ids and is absorbed.
 */
export interface StreamAttempt {
  drafts: string;
  blocks: string;
}

/** `noBlocks`: this answer must go whole even under block streaming (a quoted transcript leads it). */
export function startTurnStream(req: TurnRequest, deps: TurnStreamDeps, attempt: StreamAttempt, opts: { noBlocks?: boolean } = {}): TurnStream {
  // Only an answer to a chat streams: one for another agent (agent_send) arrives whole.
  const mode = req.answer.kind === 'reply' ? req.stream?.mode : undefined;
  if (mode === 'block' && !opts.noBlocks) {
    const blocks = new BlockStream({
      bounds: req.stream?.block ?? DEFAULT_BLOCK_BOUNDS,
      masker: deps.masker,
      quiet: req.quiet,
      log: deps.log,
      send: (index, text) => deps.outbox.send(blockEnvelope(req, deps, attempt.blocks, index, text)),
    });
    return {
      onText: (text) => blocks.update(text),
      close: () => blocks.close(),
      blocksFor: (reply) => (blocks.sent > 0 ? { sent: blocks.sent, rest: blocks.rest(reply) } : undefined),
    };
  }
  if (mode === 'partial') {
    const drafts = new DraftStream({
      minIntervalMs: req.stream!.minIntervalMs,
      clock: deps.clock,
      masker: deps.masker,
      quiet: req.quiet,
      log: deps.log,
      send: (seq, text) => deps.outbox.send(draftEnvelope(req, deps, attempt.drafts, seq, text)),
    });
    return { onText: (text) => drafts.update(text), close: () => drafts.close(), blocksFor: () => undefined };
  }
  if (mode === 'progress') {
    // A status of the work, not the answer: fed by tool calls, never by the answer's text.
    const progress = new ProgressStream({
      minIntervalMs: req.stream!.minIntervalMs,
      clock: deps.clock,
      masker: deps.masker,
      log: deps.log,
      send: (seq, text) => deps.outbox.send({ ...draftEnvelope(req, deps, attempt.drafts, seq, text), progress: true }),
    });
    return { onText: undefined, onToolStart: (name, said) => progress.toolStarted(name, said), close: () => progress.close(), blocksFor: () => undefined };
  }
  return { onText: undefined, close: async () => {}, blocksFor: () => undefined };
}

function blockEnvelope(req: TurnRequest, deps: TurnStreamDeps, attempt: string, index: number, text: string): OutboundEnvelope {
  return {
    v: PROTOCOL_VERSION,
    kind: 'block',
    // Per attempt: a redone turn's blocks are new messages (its model writes anew), never deduplicated against the dead attempt's.
    id: derivedId(req.inboundId, `block.${attempt}.${index}`),
    agentId: deps.agentId,
    sessionKey: req.answer.sessionKey,
    inReplyTo: req.inboundId,
    index,
    ts: deps.clock.now(),
    text: text.slice(0, 200_000),
  };
}

function draftEnvelope(req: TurnRequest, deps: TurnStreamDeps, attempt: string, seq: number, text: string): Extract<OutboundEnvelope, { kind: 'draft' }> {
  return {
    v: PROTOCOL_VERSION,
    kind: 'draft',
    id: derivedId(req.inboundId, `draft.${attempt}.${seq}`),
    agentId: deps.agentId,
    sessionKey: req.answer.sessionKey,
    inReplyTo: req.inboundId,
    seq,
    ts: deps.clock.now(),
    text: text.slice(0, 200_000),
  };
}
