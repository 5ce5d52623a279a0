// One turn of an OpenClaw-kind agent: an inbound envelope in, `chat.send` to the gateway
// keyed by the envelope's id (the idempotency key: the inbound id and the gateway
// connection's instance), the `chat` events of that run followed to their final message, at
// most one answer out on the outbox — the same envelopes, with the same deterministic ids,
// as the native runtime's turn. Exactly-once: the answer is recorded (answer-journal.ts)
// before it is sent, a redelivery re-sends the record, and the control plane delivers an
// envelope id once. A gateway that dies mid-turn is waited for (gateway-supervisor.ts
// restarts it) and asked again, once the session is idle. The key names the gateway's life too because OpenClaw keeps
// a user message's key in the session transcript, which outlives the process: the same key
// sent to the next gateway is refused as a turn already over ("keyed user is outside the
// current turn"), while within one gateway's life a repeated send is deduplicated. An
// operator's gateway (external mode) outlives the bridge, so there the key is the inbound
// id alone: a redelivery after a bridge restart joins the run still going, or, for one that
// ended, is acknowledged `status: "ok"` with no events, and the answer is read back from
// the session's history by its run id. Only events of the session the turn asked, and of
// its run, are taken: a gateway that answers for another session is not believed. While
// the run writes, its `chat` deltas (the text so far) stream as the native turn's model text
// does, through the same helper (turn-stream.ts): drafts or blocks, closed before the answer.
// Attachments (#16) become what they are for the native runtime's text-only model: copied into
// the agent's workspace (the managed gateway's own) with a note naming the path, voice heard
// where a transcriber is configured — the gateway is sent text only, never an image.
import { errorFields, processRedactor, type Logger } from '../../../shared/log.ts';
import type { Clock, Outbox } from '../../../shared/ports.ts';
import { sha256Hex } from '../../../shared/lazy-crypto.ts';
import { MEDIA_WORDS, mediaInput, type MediaInputDeps } from '../media/media-input.ts';
import type { SecretMasker } from '../secrets/secret-mask.ts';
import { endedTurn, sendAnswer, sendStatus, setAsideReason, SHOW_WORK_AFTER_MS, type TurnOutcome } from '../turn/turn-answer.ts';
import type { TurnRequest } from '../turn/turn-request.ts';
import { startTurnStream, type TurnStream } from '../stream/turn-stream.ts';
import type { AnswerJournal, AnswerRecord } from './answer-journal.ts';
import { GatewayClosedError, type GatewayClient, type GatewayEvent } from './gateway-client.ts';
import { quotedName } from '../framing/others-words.ts';
import { pause } from '../pause.ts';

export interface BridgeDeps {
  agentId: string;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  journal: AnswerJournal;
  /** The connected gateway; waits while it is being (re)started. */
  gateway(signal: AbortSignal): Promise<GatewayClient>;
  turnTimeoutMs: number;
  /**
   * Masks this agent's own secret values in the answer and its drafts and blocks; absent, the
   * values the process redacts from its logs (the same values, without their encodings).
   */
  masker?: SecretMasker | undefined;
  /**
   * An operator's gateway (external mode): keys without the connection's instance, and
   * the clawfleet session key's agent mapped to the gateway's agent that answers.
   */
  external?: { gatewayAgent: string } | undefined;
  /**
   * Where attachments go (media/media-input.ts without images: the gateway is sent text).
   * Absent, each attachment is said not to have reached the agent: an operator's gateway
   * (external mode) has a workspace of its own, which this runtime cannot write into.
   */
  media?: Omit<MediaInputDeps, 'imageInput' | 'signal'> | undefined;
}

/** The session key the gateway is asked with: clawfleet's own, or (external) the same with the gateway's agent in it. */
export function gatewaySessionKey(sessionKey: string, agentId: string, external: BridgeDeps['external']): string {
  if (!external) return sessionKey;
  const own = `agent:${agentId}:`;
  return `agent:${external.gatewayAgent}:${sessionKey.startsWith(own) ? sessionKey.slice(own.length) : sessionKey}`;
}

/** Run errors that say "not now" rather than "not this": OpenClaw's state database busy with another of its lifecycle steps. */
const TRANSIENT = /ContentionError|SQLITE_BUSY|GatewayDrainingError/;

/** How often a wait for the session's run to end asks the gateway (chat.history, one message). */
const IDLE_POLL_MS = 500;
/** Runs ended without text that are asked again before the turn counts as unanswered. */
const MAX_EMPTY_RETRIES = 2;

type RunEnd =
  | { state: 'final'; text: string }
  | { state: 'error' | 'aborted'; error: string }
  /** The key's run is over and its answer is not in the session's history any more: ask again under a new key. */
  | { state: 'resubmit' };

/** OpenClaw's refusal of a key whose run a previous gateway process ended (its transcript outlives it). */
const KEY_OF_ENDED_TURN = /outside the current turn/i;
/** How far back the history is read for a finished run's answer. */
const HISTORY_LIMIT = 20;

export async function bridgeTurn(req: TurnRequest, deps: BridgeDeps, signal: AbortSignal): Promise<TurnOutcome> {
  const log = deps.log.child({ envelopeId: req.inboundId, sessionKey: req.sessionKey });
  const done = await deps.journal.get(req.inboundId);
  if (done) {
    const sent = await sendAnswer(req, done, deps);
    log.info('turn already done; answer re-sent', { answered: sent });
    return 'resent';
  }
  const started = deps.clock.now();
  const masker = deps.masker ?? { mask: (text: string) => processRedactor.redact(text) };
  // As the native turn: a started status only for a turn still working after SHOW_WORK_AFTER_MS.
  const startedStatus = setTimeout(() => void sendStatus(req, { ...deps, log }, 'started'), SHOW_WORK_AFTER_MS);
  const timeout = AbortSignal.timeout(deps.turnTimeoutMs);
  const turnSignal = AbortSignal.any([signal, timeout]);
  const input = await bridgeInput(req, deps, turnSignal);
  const message = req.situation ? `[${req.situation}]\n\n${input}` : input;
  const sessionKey = gatewaySessionKey(req.sessionKey, deps.agentId, deps.external);
  let end: RunEnd | undefined;
  let tries = 0;
  let emptyRuns = 0;
  /** Submissions that must not be taken for the one before (a run that failed or came back empty). */
  let resubmits = 0;
  /** The stream of the run asked last: each run writes its answer from the start. */
  let stream: TurnStream | undefined;
  const attempt = deps.clock.now().toString(36);
  try {
    while (!end && !turnSignal.aborted) {
      let client: GatewayClient;
      try {
        client = await deps.gateway(turnSignal);
      } catch (err) {
        if (turnSignal.aborted) break;
        throw err;
      }
      // A resubmission is a new key: the same key would be answered with the run that failed.
      // Managed: the key names the gateway's life too (its transcript outlives it). External:
      // the inbound id alone, so a bridge restarted mid-turn joins the run it left.
      const idempotencyKey = deps.external
        ? `${req.inboundId}${resubmits > 0 ? `:${resubmits}` : ''}`
        : `${req.inboundId}:${client.instance}${tries > 0 ? `:${tries}` : ''}`;
      try {
        // A retry waits for the session to be idle: after a restart OpenClaw runs its own
        // recovery of the turn the dead gateway left (always on in OpenClaw), which would
        // supersede a run sent meanwhile; this bridge never has two turns in one session.
        if (tries > 0 && (!deps.external || resubmits > 0) && !(await untilIdle(client, sessionKey, turnSignal))) break;
        // A run's blocks are named by its key: the same run's text, streamed again to a bridge
        // that rejoined it (external), gives the same blocks under the same ids, which the
        // outbox absorbs. Drafts are named by this attempt and try: a draft is never absorbed.
        await stream?.close();
        stream = startTurnStream(req, { ...deps, log, masker }, { drafts: `${attempt}.${tries}`, blocks: sha256Hex(idempotencyKey).slice(0, 12) });
        end = await runChat(client, { sessionKey, message, idempotencyKey }, turnSignal, log, stream.onText);
        if (end.state === 'error' && TRANSIENT.test(end.error)) throw Object.assign(new Error(end.error), { gatewayCode: 'UNAVAILABLE' });
        if (end.state === 'resubmit') {
          log.warn('the gateway no longer has this turn’s run; asking again', { tries: ++tries });
          resubmits++;
          end = undefined;
          continue;
        }
        // A run that ends with nothing to say, where something was asked: after a restart,
        // OpenClaw's recovery of the dead gateway's turn supersedes it. Asked again, once the
        // session is idle, a bounded number of times before it counts as no answer.
        if (end.state === 'final' && end.text === '' && !req.situation && emptyRuns++ < MAX_EMPTY_RETRIES) {
          log.warn('the gateway ended the run without text; asking again', { tries: ++tries });
          resubmits++;
          end = undefined;
        }
      } catch (err) {
        end = undefined;
        const code = (err as { gatewayCode?: unknown }).gatewayCode;
        if (err instanceof GatewayClosedError || code === 'UNAVAILABLE') {
          // The gateway went away mid-turn, is still starting, or its state is busy (it is
          // recovering the session a killed gateway left): wait for it and ask again.
          log.warn('gateway unavailable mid-turn; asking again', { tries: ++tries, ...errorFields(err) });
          // A closed connection leaves the run going in an operator's gateway: the same key joins it.
          if (!(err instanceof GatewayClosedError)) resubmits++;
          await pause(Math.min(5_000, 250 * 2 ** Math.min(tries, 5)), turnSignal);
          continue;
        }
        // The gateway refused the request itself: retrying the same request would not help.
        if (typeof code === 'string') end = { state: 'error', error: (err as Error).message };
        else throw err;
      }
    }
  } finally {
    // From here on the answer is going out: a started status would only trail it, and a draft or block must not.
    clearTimeout(startedStatus);
    await stream?.close();
  }
  if (signal.aborted) return 'aborted';
  const record: AnswerRecord = { inboundId: req.inboundId, ts: deps.clock.now() };
  if (end?.state === 'resubmit') end = undefined;
  if (!end) record.failed = `it took longer than ${Math.round(deps.turnTimeoutMs / 1000)} s`;
  else if (end.state !== 'final') record.failed = processRedactor.redact(end.error);
  else if (end.text === '' && !req.situation) record.failed = 'the agent returned no text';
  else if (end.text !== '' && !req.quiet.includes(end.text.trim())) {
    record.reply = masker.mask(end.text);
    // What blocks already said is not said again (recorded, so a re-sent reply is the same).
    const blocks = stream?.blocksFor(record.reply);
    if (blocks) record.blocks = blocks;
  }
  // Recorded before sending: from here on, a redelivery re-sends rather than re-asks.
  await deps.journal.put(record);
  const answered = await sendAnswer(req, record, deps);
  await sendStatus(req, { ...deps, log }, record.failed ? 'failed' : 'ended', { error: record.failed, replied: answered });
  const fields = { ms: deps.clock.now() - started, tries, ...(record.blocks ? { blocks: record.blocks.sent } : {}) };
  return endedTurn(log, record.failed, answered, fields);
}

/**
 * The text the gateway is sent: a line per attachment before the message's own text, as the
 * native turn gives a model that takes no images. Read once per turn, before the first send.
 */
export async function bridgeInput(req: TurnRequest, deps: Pick<BridgeDeps, 'media' | 'clock'>, signal: AbortSignal): Promise<string> {
  if (!req.media?.length) return req.input;
  const lines = deps.media
    ? (await mediaInput(req.media, req.enqueuedAt ?? deps.clock.now(), { ...deps.media, imageInput: false, forwarded: req.forwarded, signal })).lines
    : req.media.map(
        (ref) =>
          `[The user sent ${MEDIA_WORDS[ref.kind]}${ref.fileName ? ` ${quotedName(ref.fileName)}` : ''}, but it did not reach you: this OpenClaw gateway does not share this runtime's workspace; say so if it matters.]`,
      );
  return [...lines, req.input].filter((t) => t !== '').join('\n');
}

/** A message that never got through: the asker is told, as the native runtime's giveUpTurn does. */
export async function bridgeGiveUp(req: TurnRequest, deps: BridgeDeps, attempts: number): Promise<'resent' | 'failed'> {
  const done = await deps.journal.get(req.inboundId);
  if (done) {
    await sendAnswer(req, done, deps);
    return 'resent';
  }
  const record: AnswerRecord = {
    inboundId: req.inboundId,
    ts: deps.clock.now(),
    failed: setAsideReason(attempts),
  };
  await deps.journal.put(record);
  await sendAnswer(req, record, deps);
  await sendStatus(req, deps, 'failed', { error: record.failed });
  return 'failed';
}

/**
 * chat.send, then the run's `chat` events to its end, its deltas' text so far to `onText`.
 * Events are gathered from before the send, by run id: a quick run may write, and even end,
 * before chat.send's answer names it.
 */
async function runChat(
  client: GatewayClient,
  params: { sessionKey: string; message: string; idempotencyKey: string },
  signal: AbortSignal,
  log: Logger,
  onText?: (textSoFar: string) => void,
): Promise<RunEnd> {
  const ends = new Map<string, RunEnd>();
  /** Each run's latest text while chat.send's answer has not named the run yet. */
  const early = new Map<string, string>();
  let runId: string | undefined;
  let settle: ((end: RunEnd) => void) | undefined;
  const off = client.onEvent((e: GatewayEvent) => {
    if (e.event !== 'chat') return;
    const p = e.payload;
    // Only this session's events: an answer sent for another session is not this turn's.
    if (typeof p.runId !== 'string' || typeof p.sessionKey !== 'string' || p.sessionKey.toLowerCase() !== params.sessionKey.toLowerCase()) return;
    if (p.state === 'delta') {
      // The whole text so far (OpenClaw's `message`; `deltaText` is only what is new). Nothing after the run's end.
      if (!onText || ends.has(p.runId)) return;
      const text = messageText(p.message, { trim: false });
      if (runId === undefined) early.set(p.runId, text);
      else if (p.runId === runId) onText(text);
      return;
    }
    const end = runEnd(p);
    if (!end) return;
    ends.set(p.runId, end);
    if (p.runId === runId) settle?.(end);
  });
  let offClose = () => {};
  let onAbort = () => {};
  try {
    let ack: Record<string, unknown>;
    try {
      ack = await client.request('chat.send', params);
    } catch (err) {
      // An operator's gateway restarted since this key was sent: the run's answer may be in the history.
      if (!KEY_OF_ENDED_TURN.test((err as Error).message)) throw err;
      return (await historyAnswer(client, params.sessionKey, params.idempotencyKey)) ?? { state: 'resubmit' };
    }
    runId = typeof ack.runId === 'string' && ack.runId.length <= 256 ? ack.runId : params.idempotencyKey;
    // Said before a run end that came ahead of this answer is taken: a joined run may end while chat.send is answered.
    if (ack.status === 'in_flight') log.info('joined the run this key started, still going in the gateway', { runId });
    const already = ends.get(runId);
    if (already) return already;
    const written = early.get(runId);
    if (written !== undefined) onText?.(written);
    // The key's run already ended (a redelivery after the bridge restarted): no event will come.
    if (ack.status === 'ok') {
      log.info('the gateway had this key’s run over already; its answer read from the history', { runId });
      return (await historyAnswer(client, params.sessionKey, runId)) ?? { state: 'resubmit' };
    }
    // Joined a run another connection started (the bridge before a restart): its events may
    // not come to this connection, so the session is also watched until it is idle.
    if (ack.status === 'in_flight') {
      const id = runId;
      void (async () => {
        if (!(await untilIdle(client, params.sessionKey, signal)) || ends.has(id)) return;
        // Idle with no answer of that run: it ended without one (an error told only its own connection).
        settle?.((await historyAnswer(client, params.sessionKey, id)) ?? { state: 'resubmit' });
      })().catch(() => {});
    }
    return await new Promise<RunEnd>((resolve, reject) => {
      settle = resolve;
      offClose = client.onClose(reject);
      onAbort = () => {
        // Best effort: the run is stopped inside the gateway too, rather than left to finish unread.
        void client.request('chat.abort', { sessionKey: params.sessionKey, runId: runId! }).catch(() => {});
        resolve({ state: 'aborted', error: 'the turn was stopped' });
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
  } finally {
    off();
    offClose();
    signal.removeEventListener('abort', onAbort);
  }
}

/** The final answer of run `runId` as the session's history holds it (its last assistant message of that run), if it does. */
async function historyAnswer(client: GatewayClient, sessionKey: string, runId: string): Promise<RunEnd | undefined> {
  const history = await client.request('chat.history', { sessionKey, limit: HISTORY_LIMIT });
  if (typeof history.sessionKey === 'string' && history.sessionKey.toLowerCase() !== sessionKey.toLowerCase()) return undefined;
  const messages = Array.isArray(history.messages) ? (history.messages as unknown[]) : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; __openclaw?: { runId?: unknown } } | null;
    if (m && m.role === 'assistant' && m.__openclaw?.runId === runId) return { state: 'final', text: messageText(m) };
  }
  return undefined;
}

/**
 * True once the session has no active run (chat.history's sessionInfo); false when the turn
 * was stopped first (its own timeout bounds the wait). Never a guess after a while: a run
 * still going taken for one that ended would be asked again — the model run twice, its
 * tools' effects twice, and the first answer dropped.
 */
async function untilIdle(client: GatewayClient, sessionKey: string, signal: AbortSignal): Promise<boolean> {
  while (!signal.aborted) {
    const history = await client.request('chat.history', { sessionKey, limit: 1 });
    const info = history.sessionInfo as { hasActiveRun?: unknown } | undefined;
    if (info?.hasActiveRun !== true) return true;
    await pause(IDLE_POLL_MS, signal);
  }
  return false;
}

/** A terminal chat event's outcome; undefined for a delta or status. */
function runEnd(p: Record<string, unknown>): RunEnd | undefined {
  if (p.state === 'final') return { state: 'final', text: messageText(p.message) };
  if (p.state === 'error' || p.state === 'aborted') {
    return { state: p.state, error: typeof p.errorMessage === 'string' && p.errorMessage ? p.errorMessage : `the OpenClaw run ended: ${p.state}` };
  }
  return undefined;
}

/** The text of a gateway chat message: a string, or the text parts of its content; trimmed unless asked not to be (a delta's text so far). */
export function messageText(message: unknown, opts: { trim: boolean } = { trim: true }): string {
  if (!message || typeof message !== 'object') return '';
  const content = (message as { content?: unknown; text?: unknown }).content ?? (message as { text?: unknown }).text;
  if (typeof content === 'string') return opts.trim ? content.trim() : content;
  if (!Array.isArray(content)) return '';
  const text = content
    .filter(
      (c): c is { type: 'text'; text: string } =>
        !!c && typeof c === 'object' && (c as { type?: unknown }).type === 'text' && typeof (c as { text?: unknown }).text === 'string',
    )
    .map((c) => c.text)
    .join('');
  return opts.trim ? text.trim() : text;
}
