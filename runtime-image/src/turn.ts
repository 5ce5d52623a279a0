// One turn: an inbound message in, one reply out on the outbox. A turn is keyed by its
// inbound envelope id: if the transcript already holds that id (the runtime died after
// answering but before deleting the message), the recorded reply is sent again with the
// same envelope id instead of asking the model a second time.
import type { Logger } from '../../shared/log.ts';
import { processRedactor } from '../../shared/log.ts';
import type { MessageEnvelope } from '../../shared/protocol/envelopes.ts';
import { replyId } from '../../shared/protocol/ids.ts';
import type { Clock, Outbox } from '../../shared/ports.ts';
import type { ChatTurn, ModelClient } from './model.ts';
import type { TranscriptStore, TurnRecord } from './transcript.ts';

export type TurnOutcome = 'replied' | 'resent' | 'failed' | 'retry' | 'aborted';

export interface TurnDeps {
  agentId: string;
  transcripts: TranscriptStore;
  model: ModelClient;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  systemPrompt: string;
  /** A retriable model failure is retried (by redelivery) until this many attempts. */
  maxAttempts: number;
  /** How many earlier turns the model sees. */
  historyTurns: number;
}

export async function runTurn(message: MessageEnvelope, attempt: number, deps: TurnDeps, signal: AbortSignal): Promise<TurnOutcome> {
  const log = deps.log.child({ envelopeId: message.id, sessionKey: message.sessionKey });
  const done = deps.transcripts.find(message.sessionKey, message.id);
  if (done) {
    await sendReply(message, done, deps);
    log.info('turn already answered; reply re-sent', { attempt });
    return 'resent';
  }

  const history: ChatTurn[] = deps.transcripts
    .read(message.sessionKey)
    .filter((t) => t.reply !== undefined)
    .slice(-deps.historyTurns)
    .flatMap((t) => [
      { role: 'user' as const, text: t.input },
      { role: 'assistant' as const, text: t.reply! },
    ]);
  const started = deps.clock.now();
  const result = await deps.model.complete({ systemPrompt: deps.systemPrompt, history, input: message.text, signal });
  if (signal.aborted) return 'aborted';

  const record: TurnRecord = { inboundId: message.id, ts: deps.clock.now(), input: message.text };
  if (result.ok) {
    record.reply = result.text;
  } else if (result.retriable && attempt < deps.maxAttempts) {
    log.warn('model call failed; will retry', { attempt, model: deps.model.label, error: result.error });
    return 'retry';
  } else {
    record.failed = processRedactor.redact(result.error);
  }
  // Recorded before sending: from here on, a redelivery re-sends rather than re-asks.
  deps.transcripts.append(message.sessionKey, record);
  await sendReply(message, record, deps);
  if (record.failed) {
    log.error('turn failed; user told', { attempt, model: deps.model.label, error: record.failed });
    return 'failed';
  }
  log.info('turn answered', { model: deps.model.label, modelMs: deps.clock.now() - started, attempt });
  return 'replied';
}

function failureText(error: string): string {
  return `⚠️ I could not answer that message (${error}). Please try again in a moment.`;
}

/** Built only from the record, so a re-sent reply is byte-identical to the first (same SQS dedup id, same body). */
async function sendReply(message: MessageEnvelope, record: TurnRecord, deps: TurnDeps): Promise<void> {
  await deps.outbox.send({
    v: 1,
    kind: 'reply',
    id: replyId(message.id),
    agentId: deps.agentId,
    sessionKey: message.sessionKey,
    inReplyTo: message.id,
    ts: record.ts,
    text: record.reply ?? failureText(record.failed ?? 'unknown error'),
  });
}
