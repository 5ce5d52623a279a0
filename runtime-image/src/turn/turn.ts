// One turn: an inbound envelope in, at most one answer out on the outbox. A turn is keyed
// by its inbound envelope id: if the transcript already holds that id (the runtime died
// after answering but before deleting the message), the recorded answer is sent again,
// byte-identical, instead of asking the model a second time. The session's transcript is
// read once per turn; what it then is — a user's reaction to keep, a command, or a message
// for the model (model-turn.ts) — is decided here.
import { WorkspacePathError } from '../../../shared/adapters/fs/beneath.ts';
import type { Logger } from '../../../shared/log.ts';
import { historyOf, type SessionRead } from '../session/transcript-store.ts';
import type { TranscriptEntry, TurnRecord } from '../../../shared/workspace/transcript-entry.ts';
import { sendAnswer, sendStatus, setAsideReason, type TurnOutcome } from './turn-answer.ts';
import { commandTurn } from './turn-commands.ts';
import type { TurnDeps } from './turn-deps.ts';
import { modelTurn } from './model-turn.ts';
import type { TurnRequest } from './turn-request.ts';

/**
 * `signal` is shutdown (the message is released for the next runtime); `cancel` is a /stop
 * for this session (the turn ends answered "stopped", and its message is done with).
 */
export async function runTurn(req: TurnRequest, deps: TurnDeps, signal: AbortSignal, cancel: AbortSignal = new AbortController().signal): Promise<TurnOutcome> {
  const log = deps.log.child({ envelopeId: req.inboundId, sessionKey: req.sessionKey });
  const read = await readSession(req, deps);
  if (!read) return 'failed';
  if (read.done) {
    const sent = await sendAnswer(req, read.done, deps);
    log.info('turn already done; answer re-sent', { answered: sent });
    return 'resent';
  }
  if (req.note) return keepNote(req, deps, log);
  const session: SessionRead = { entries: read.entries, history: historyOf(read.entries) };
  if (req.command) return commandTurn(req, req.command, session, deps, log);
  return modelTurn(req, session, deps, log, signal, cancel);
}

/**
 * A message that never got through (`attempts` earlier attempts died with the process, or
 * this is the queue's last receive): answer with what happened instead of trying again, so
 * the asker is told rather than the message vanishing into the DLQ. A turn that did
 * complete is re-sent.
 */
export async function giveUpTurn(req: TurnRequest, deps: TurnDeps, attempts: number): Promise<'resent' | 'failed'> {
  const read = await readSession(req, deps);
  if (!read) return 'failed';
  if (read.done) {
    await sendAnswer(req, read.done, deps);
    return 'resent';
  }
  const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, messages: [], failed: setAsideReason(attempts) };
  await deps.transcripts.append(req.sessionKey, record);
  await sendAnswer(req, record, deps);
  await sendStatus(req, deps, 'failed', { error: record.failed });
  return 'failed';
}

/** A user's reaction (#31): kept for the session's next turn, which reads it first. Nothing is asked or sent. */
async function keepNote(req: TurnRequest, deps: TurnDeps, log: Logger): Promise<TurnOutcome> {
  await deps.transcripts.append(req.sessionKey, { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, note: true });
  log.info('reaction noted for the next turn');
  return 'silent';
}

/**
 * The session's transcript, read once for the turn, and the turn's own record if it already
 * holds one. Undefined when the transcript cannot be used (it is not a regular file): the
 * asker was told why, and nothing was written.
 */
async function readSession(req: TurnRequest, deps: TurnDeps): Promise<{ entries: TranscriptEntry[]; done: TurnRecord | undefined } | undefined> {
  let entries: TranscriptEntry[];
  try {
    entries = await deps.transcripts.entries(req.sessionKey);
  } catch (err) {
    if (!(err instanceof WorkspacePathError)) throw err;
    await unrecordedFailure(req, deps, `this session's transcript cannot be used: ${err.message}`);
    return undefined;
  }
  const done = entries.find((e): e is TurnRecord => e.kind !== 'compaction' && e.inboundId === req.inboundId);
  return { entries, done };
}

/**
 * A turn that cannot even be recorded: the asker is told why, and nothing is written. The
 * message is then done with, so no redelivery needs the record that would have recognised it.
 */
async function unrecordedFailure(req: TurnRequest, deps: TurnDeps, why: string): Promise<void> {
  const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, failed: why };
  await sendAnswer(req, record, deps);
  await sendStatus(req, deps, 'failed', { error: why });
  deps.log.error('turn failed before it started; told the asker', { envelopeId: req.inboundId, sessionKey: req.sessionKey, error: why });
}
