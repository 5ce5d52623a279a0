// What a turn sends, for the native turn and the OpenClaw bridge alike: its answer, built from
// the request and the turn's record alone (so a re-sent answer is byte-identical to the first),
// and its status envelopes (the dashboard's turn events, the chat's status reaction).
import { errorFields, type Logger } from '../../../shared/log.ts';
import type { OutboundEnvelope, SessionStats } from '../../../shared/protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../../../shared/protocol/envelopes.ts';
import { replyId } from '../../../shared/protocol/ids.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import { derivedId } from './envelope-ids.ts';
import type { TurnRecord } from '../../../shared/workspace/transcript-entry.ts';
import type { TurnRequest } from './turn-request.ts';

/** replied/resent/silent/failed: done, delete the message. aborted: shutdown, release it. */
export type TurnOutcome = 'replied' | 'resent' | 'silent' | 'failed' | 'aborted';

/**
 * A turn answered sooner than this sends neither "typing…" nor a started status: nobody
 * would see the one, the ended status follows at once anyway, and each is an outbox
 * envelope (an SQS send and a λ outbox record on AWS) spent on nothing. A real model turn
 * takes longer and shows both this much later, which nobody notices.
 */
export const SHOW_WORK_AFTER_MS = 300;

/** What of a turn's record its answer is built from (the bridge's journal keeps the same fields). */
type AnswerFields = Pick<TurnRecord, 'reply' | 'failed' | 'ts' | 'buttons' | 'blocks' | 'voice'>;

/** What sending an answer or a status needs. */
export type AnswerDeps = { agentId: string; outbox: Outbox; clock: Clock; log: Logger };

/** The answer a record gives, or undefined when it gives none (a silent turn). */
export function answerEnvelope(req: TurnRequest, record: AnswerFields, agentId: string): OutboundEnvelope | undefined {
  // An answer said in blocks (block streaming) leaves the reply only what they did not say, maybe nothing.
  const reply = record.reply !== undefined && record.blocks ? record.blocks.rest || undefined : record.reply;
  const text = reply ?? (record.failed !== undefined ? failureText(record.failed) : undefined);
  if (text === undefined) return undefined;
  const a = req.answer;
  if (a.kind === 'reply') {
    // The failure's own words: the chat's status reaction shows error rather than done (protocol 7).
    const failed = reply === undefined ? { failed: true as const } : {};
    const buttons = reply !== undefined && record.buttons ? { buttons: record.buttons } : {};
    const afterBlocks = reply !== undefined && record.blocks ? { afterBlocks: record.blocks.sent } : {};
    const voice = reply !== undefined && record.voice ? { voice: record.voice } : {};
    return {
      v: PROTOCOL_VERSION,
      kind: 'reply',
      id: replyId(req.inboundId),
      agentId,
      sessionKey: a.sessionKey,
      inReplyTo: req.inboundId,
      ts: record.ts,
      text: text.slice(0, 200_000),
      ...failed,
      ...buttons,
      ...afterBlocks,
      ...voice,
    };
  }
  return {
    v: PROTOCOL_VERSION,
    kind: 'agent_send',
    id: derivedId(req.inboundId, 'answer'),
    agentId,
    sessionKey: a.sessionKey,
    inboundId: req.inboundId,
    toAgentId: a.toAgentId,
    inReplyTo: a.inReplyTo,
    ts: record.ts,
    text: text.slice(0, 100_000),
  };
}

/** Sends the record's answer, if it gives one; says whether it did. */
export async function sendAnswer(req: TurnRequest, record: AnswerFields, deps: Pick<AnswerDeps, 'agentId' | 'outbox'>): Promise<boolean> {
  const envelope = answerEnvelope(req, record, deps.agentId);
  if (envelope) await deps.outbox.send(envelope);
  return envelope !== undefined;
}

function failureText(error: string): string {
  return `⚠️ I could not answer that message (${error}). Please try again in a moment.`;
}

/** Why a message was set aside unanswered (giveUpTurn, the bridge's give-up): the asker reads it. */
export function setAsideReason(attempts: number): string {
  return attempts > 0
    ? `working on it stopped this agent ${attempts} time${attempts === 1 ? '' : 's'}, so it was set aside`
    : 'it was handed out too often without a turn finishing, so it was set aside';
}

export interface StatusDetails {
  /** On failed: what went wrong, as the asker was told. */
  error?: string | undefined;
  /** On ended and failed: where the turn's time went. */
  timing?: { queueWaitMs?: number; modelMs: number; toolMs: number } | undefined;
  /** On ended: whether a reply went out (false lets the control plane clear the ack itself). */
  replied?: boolean | undefined;
  /** The session's length, context use and model after the turn (protocol 4), for /status. */
  session?: SessionStats | undefined;
  /** On tool (protocol 7): the first tool the turn called. */
  tool?: string | undefined;
}

/**
 * A turn's status envelope (the dashboard's turn events). Information for the control plane:
 * never a reason to fail a turn, so a send that fails is logged, not thrown.
 */
export async function sendStatus(
  req: TurnRequest,
  deps: AnswerDeps,
  turn: 'started' | 'tool' | 'ended' | 'failed',
  details: StatusDetails = {},
): Promise<void> {
  const { error, timing, replied, session, tool } = details;
  await deps.outbox
    .send({
      v: PROTOCOL_VERSION,
      kind: 'status',
      id: derivedId(req.inboundId, `status.${turn}`),
      agentId: deps.agentId,
      sessionKey: req.answer.sessionKey,
      turn,
      inboundId: req.inboundId,
      ts: deps.clock.now(),
      ...(error ? { error: error.slice(0, 2_000) } : {}),
      ...(timing ? { timing } : {}),
      ...(turn === 'ended' && replied === false ? { replied } : {}),
      ...(session ? { session } : {}),
      ...(tool !== undefined ? { tool: tool.slice(0, 128) } : {}),
    })
    .catch((err) => deps.log.warn('status not sent', errorFields(err)));
}

/** A finished turn's log line and outcome, from what it recorded and whether an answer went out. */
export function endedTurn(log: Logger, failed: string | undefined, answered: boolean, fields: Record<string, unknown>): TurnOutcome {
  if (failed) {
    log.error('turn failed; told the asker', { ...fields, error: failed });
    return 'failed';
  }
  log.info(answered ? 'turn answered' : 'turn ended without an answer', fields);
  return answered ? 'replied' : 'silent';
}
