// One turn: an inbound envelope in, at most one answer out on the outbox. A turn is keyed
// by its inbound envelope id: if the transcript already holds that id (the runtime died
// after answering but before deleting the message), the recorded answer is sent again,
// byte-identical, instead of asking the model a second time.
import { errorFields, processRedactor, type Logger } from '../../shared/log.ts';
import type { Buttons, OutboundEnvelope, SessionStats } from '../../shared/protocol/envelopes.ts';
import { PROTOCOL_VERSION } from '../../shared/protocol/envelopes.ts';
import { replyId } from '../../shared/protocol/ids.ts';
import type { Clock, Outbox } from '../../shared/ports.ts';
import { runAgentLoop } from './agent-loop.ts';
import { compactIfNeeded, historyMessages } from './compaction.ts';
import { buttonsTool } from './tools/buttons-tool.ts';
import { derivedId } from './envelope-ids.ts';
import { THINKING_LEVELS, type ModelClient, type ThinkingLevel } from './model.ts';
import type { SecretMasker } from './secret-mask.ts';
import type { OfferedSkill } from './skills/discover.ts';
import type { AgentTool } from './tools/tool.ts';
import { historyOf, type SessionHistory, type TranscriptEntry, type TranscriptStore, type TurnRecord } from './transcript.ts';
import type { TurnRequest } from './turn-request.ts';
import { startTurnStream } from './turn-stream.ts';
import { sessionStats } from './session-stats.ts';
import { buildSystemPrompt, readBootstrap } from './workspace.ts';
import { WorkspacePathError } from '../../shared/adapters/fs/beneath.ts';
import { mediaInput, type MediaInputDeps } from './media/media-input.ts';
import type { Speaker } from './speech/spoken-reply.ts';
import { voiceCommand } from './speech/voice-command.ts';
import { REACTIONS_RULE, withNotes } from './reaction-note.ts';
import type { ImageContent, Message } from '@mariozechner/pi-ai';

/** replied/resent/silent/failed: done, delete the message. aborted: shutdown, release it. */
export type TurnOutcome = 'replied' | 'resent' | 'silent' | 'failed' | 'aborted';

export interface TurnLimits {
  turnTimeoutMs: number;
  maxToolRounds: number;
  toolTimeoutMs: number;
  maxToolResultChars: number;
  /** Compact a session when its prompt passes this many (estimated) tokens. */
  compactAtTokens: number;
  keepTurnsOnCompaction: number;
}

export const defaultTurnLimits: TurnLimits = {
  turnTimeoutMs: 10 * 60_000,
  maxToolRounds: 25,
  toolTimeoutMs: 120_000,
  maxToolResultChars: 32_000,
  compactAtTokens: 96_000,
  keepTurnsOnCompaction: 4,
};

export interface TurnDeps {
  agentId: string;
  agentName: string;
  workspace: string;
  transcripts: TranscriptStore;
  model: ModelClient;
  outbox: Outbox;
  clock: Clock;
  log: Logger;
  /** The tools offered this turn (policy applied; MCP tools as their servers stand now). */
  tools(): AgentTool[];
  /** The skills offered this turn (skills/agent-skills.ts); none when absent. */
  skills?: (() => Promise<OfferedSkill[]>) | undefined;
  /** Masks this agent's own secret values in tool results and answers. */
  masker: SecretMasker;
  limits: TurnLimits;
  /** The configured models a session may switch among with /model; absent: /model only shows `model`. */
  models?: { refs: string[]; forRef(ref: string): ModelClient } | undefined;
  /**
   * Where attachments come from and how they are understood (#16); absent, they are said not to
   * have arrived. Whether a photo goes as an image is the turn's model's to say (its imageInput).
   */
  media?: Omit<MediaInputDeps, 'signal' | 'imageInput'>;
  /** Spoken replies (#31, speech/spoken-reply.ts); absent where the agent has no tts (or no media store to keep a voice in). */
  speech?: Speaker | undefined;
}

/**
 * A turn answered sooner than this sends neither "typing…" nor a started status: nobody
 * would see the one, the ended status follows at once anyway, and each is an outbox
 * envelope (an SQS send and a λ outbox record on AWS) spent on nothing. A real model turn
 * takes longer and shows both this much later, which nobody notices.
 */
export const SHOW_WORK_AFTER_MS = 300;

/** The answer to a turn that a /stop cancelled. */
export const STOPPED_TEXT = '⏹ Stopped.';
/** The answer to /new and /reset. */
export const NEW_SESSION_TEXT = '✨ New session started. The earlier conversation is kept in the transcript but no longer in my context.';

/**
 * `signal` is shutdown (the message is released for the next runtime); `cancel` is a /stop
 * for this session (the turn ends answered "stopped", and its message is done with).
 */
export async function runTurn(req: TurnRequest, deps: TurnDeps, signal: AbortSignal, cancel: AbortSignal = new AbortController().signal): Promise<TurnOutcome> {
  const log = deps.log.child({ envelopeId: req.inboundId, sessionKey: req.sessionKey });
  let entries: TranscriptEntry[];
  try {
    entries = await deps.transcripts.entries(req.sessionKey);
  } catch (err) {
    if (err instanceof WorkspacePathError) return unrecordedFailure(req, deps, `this session's transcript cannot be used: ${err.message}`);
    throw err;
  }
  const done = entries.find((e): e is TurnRecord => e.kind !== 'compaction' && e.inboundId === req.inboundId);
  if (done) {
    const sent = await sendAnswer(req, done, deps);
    log.info('turn already done; answer re-sent', { answered: sent });
    return 'resent';
  }
  if (req.note) {
    // A user's reaction (#31): kept for the session's next turn, which reads it first. Nothing is asked or sent.
    await deps.transcripts.append(req.sessionKey, { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, note: true });
    log.info('reaction noted for the next turn');
    return 'silent';
  }
  if (req.command?.name === 'model') return modelCommand(req, req.command.args, entries, deps);
  if (req.command?.name === 'think') return thinkCommand(req, req.command.args, entries, deps);
  if (req.command?.name === 'voice') {
    const said = voiceCommand(req.command.args, historyOf(entries), deps.speech?.auto);
    return settingCommand(req, { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, ...said }, entries, deps);
  }
  if (req.command) {
    // /new and /reset: the session starts over after this line; the model is not asked.
    const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, reply: NEW_SESSION_TEXT, reset: true };
    await deps.transcripts.append(req.sessionKey, record);
    await sendAnswer(req, record, deps);
    await sendCommandStatus(req, [...entries, record], deps);
    log.info('session reset by command', { command: req.command.name });
    return 'replied';
  }
  // Status is information for the control plane: never waited on, never a reason to fail,
  // and sent only for a turn still working after SHOW_WORK_AFTER_MS.
  const startedStatus = setTimeout(
    () => void sendStatus(req, deps, 'started').catch((err) => log.warn('status not sent', errorFields(err))),
    SHOW_WORK_AFTER_MS,
  );

  const timeout = AbortSignal.timeout(deps.limits.turnTimeoutMs);
  const turnSignal = AbortSignal.any([signal, timeout, cancel]);
  let history: SessionHistory = req.isolated ? { summary: undefined, turns: [] } : historyOf(entries);
  // The session's /model choice, if it made one (and it is still configured).
  const model = sessionModel(history, deps).chosen ? deps.models!.forRef(history.model!) : deps.model;
  // The users' reactions since the last turn (#31) come first, framed as theirs; recorded with the input, so they are read once.
  const pending = req.isolated ? undefined : history.pending;
  const situation = pending?.length ? [req.situation, REACTIONS_RULE].filter((t) => t !== undefined).join('\n\n') : req.situation;
  // Attachments (#16): each said in a line of the input; photos for a model that sees them as
  // images — the model this turn asks (the session's /model choice), not the primary.
  let input = withNotes(pending, req.input) ?? req.input;
  let images: ImageContent[] = [];
  let heard: string[] = [];
  if (req.media?.length) {
    const media = await mediaInput(req.media, req.enqueuedAt ?? deps.clock.now(), {
      ...(deps.media ?? { agentId: deps.agentId, workspace: deps.workspace, store: undefined, transcribe: undefined }),
      imageInput: model.imageInput ?? false,
      forwarded: req.forwarded,
      signal: turnSignal,
    });
    const own = [...media.lines, req.input].filter((t) => t !== '').join('\n');
    input = withNotes(pending, own) ?? own;
    images = media.images;
    if (deps.media?.echoTranscript) heard = media.transcripts.filter((t) => t !== '');
  }
  // Draft and block ids must differ between attempts of one turn (FIFO deduplication would drop a redone turn's).
  const attempt = deps.clock.now().toString(36);
  // Each model call of this attempt, named for its usage report (#31): a redone turn's calls are new calls, and counted as such.
  let calls = 0;
  const call = { inboundId: req.inboundId, sessionKey: req.answer.sessionKey, nextCallId: () => derivedId(req.inboundId, `usage.${attempt}.${++calls}`) };
  // Spoken replies (#31): decided now, since an answer to be spoken goes whole (its voice says it all).
  const speak = deps.speech?.wanted(req, history) ?? false;
  // A quoted transcript leads the reply, so an answer that quotes one goes whole: blocks sent
  // before the quote would put it after them, and the reply would then say them again.
  const stream = startTurnStream(req, { ...deps, log }, { drafts: attempt, blocks: attempt }, { noBlocks: heard.length > 0 || speak });
  let buttons: Buttons | undefined;
  const tools = req.buttons && req.answer.kind === 'reply' ? [...deps.tools(), buttonsTool((b) => (buttons = b))] : deps.tools();
  const bootstrap = await readBootstrap(deps.workspace);
  const skills = (await deps.skills?.()) ?? [];
  for (const f of bootstrap) if (f.skipped) log.warn('workspace file left out of the prompt', { file: f.name, reason: f.skipped });
  const prompt = (h: SessionHistory) =>
    buildSystemPrompt({
      agentName: deps.agentName,
      agentId: deps.agentId,
      workspace: deps.workspace,
      tools,
      bootstrap,
      now: new Date(deps.clock.now()).toISOString(),
      summary: h.summary,
      situation,
      skills,
    });
  /** The tools' schemas, sent with every request: part of the context, as the prompt is. */
  const toolChars = JSON.stringify(tools.map((t) => t.parameters)).length;
  let systemPrompt = '';
  let started = 0;
  let requests = 0;
  let toolMs = 0;
  let result: Awaited<ReturnType<typeof runAgentLoop>>;
  try {
    history = await compactIfNeeded(
      req.sessionKey,
      history,
      prompt({ summary: undefined, turns: [] }).length + input.length + toolChars,
      {
        model,
        transcripts: deps.transcripts,
        workspace: deps.workspace,
        clock: deps.clock,
        log,
        compactAtTokens: deps.limits.compactAtTokens,
        keepTurns: deps.limits.keepTurnsOnCompaction,
        call,
      },
      turnSignal,
    );

    started = deps.clock.now();
    systemPrompt = prompt(history);
    result = await runAgentLoop({
      model,
      systemPrompt,
      history: historyMessages(history),
      input: { role: 'user', content: images.length ? [{ type: 'text', text: input }, ...images] : input, timestamp: started },
      tools,
      toolContext: {
        sessionKey: agentSession(req),
        inboundId: req.inboundId,
        request: async (make) => {
          const envelope = make(derivedId(req.inboundId, `req.${++requests}`));
          await deps.outbox.send(envelope);
          return envelope.id;
        },
      },
      signal: turnSignal,
      clock: deps.clock,
      maxToolRounds: deps.limits.maxToolRounds,
      toolTimeoutMs: deps.limits.toolTimeoutMs,
      maxToolResultChars: deps.limits.maxToolResultChars,
      masker: deps.masker,
      onToolCall: (c) => {
        toolMs += c.ms;
        log.info('tool called', { tool: c.name, ms: c.ms, isError: c.isError });
      },
      onText: stream.onText,
      onToolStart: toolStarts(
        req,
        stream,
        (name) =>
          void sendStatus(req, deps, 'tool', undefined, undefined, undefined, undefined, name).catch((err) => log.warn('status not sent', errorFields(err))),
      ),
      thinking: history.think,
      call,
    });
  } finally {
    // From here on the answer is going out: a started status would only trail it, and a draft must not.
    clearTimeout(startedStatus);
    await stream.close();
  }
  const loopMs = deps.clock.now() - started;
  // Where the turn's time went, for the dashboard: the model is the loop minus its tools.
  const timing = {
    ...(req.enqueuedAt !== undefined ? { queueWaitMs: Math.max(0, Math.round(started - req.enqueuedAt)) } : {}),
    modelMs: Math.max(0, Math.round(loopMs - toolMs)),
    toolMs: Math.round(toolMs),
  };
  if (signal.aborted) return 'aborted';

  // Images are not kept in the transcript (megabytes each): the input's lines say where each file is saved.
  const record: TurnRecord = {
    inboundId: req.inboundId,
    ts: deps.clock.now(),
    input,
    messages: images.length ? withoutImages(result.messages) : result.messages,
  };
  let overBudget = false;
  if (cancel.aborted && !result.ok) {
    // Stopped by the user: what it had written is dropped, the stop is the answer.
    record.messages = [];
    record.reply = STOPPED_TEXT;
  } else if (!result.ok && result.overBudget) {
    // The budget is spent (#31), before the turn's first model call or in its tool loop: the
    // person is told so instead of an answer; scheduled work (cron, heartbeats, wake-ups) says
    // nothing. The history keeps the question and this note, not the unfinished tool loop.
    overBudget = true;
    delete record.messages;
    if (!req.scheduled) record.reply = result.overBudget.text;
  } else if (!result.ok) {
    record.failed = processRedactor.redact(timeout.aborted ? `it took longer than ${Math.round(deps.limits.turnTimeoutMs / 1000)} s` : result.error);
  } else if (result.text === '' && !req.situation) {
    record.failed = 'the model returned no text';
  } else if (result.text !== '' && !req.quiet.includes(result.text)) {
    // The voice message quoted first where the agent is set to (recorded so, so a re-sent answer is the same).
    record.reply = heard.length ? `${heard.map((t) => `🎤 “${t.length > 500 ? `${t.slice(0, 500)}…` : t}”`).join('\n')}\n\n${result.text}` : result.text;
    if (buttons) record.buttons = buttons;
    // What blocks already said is not said again: the reply carries the rest (recorded, so a re-sent reply is the same).
    const blocks = stream.blocksFor(record.reply);
    if (blocks) record.blocks = blocks;
    // The answer spoken, without the transcript quote; recorded, so a re-sent reply carries the same voice.
    const voice = speak ? await deps.speech!.speak(result.text, signal) : undefined;
    if (voice) record.voice = voice;
  }
  // Recorded before sending: from here on, a redelivery re-sends rather than re-asks.
  await deps.transcripts.append(req.sessionKey, record);
  const answered = await sendAnswer(req, record, deps);
  // An isolated run's transcript is its own, not the session its status names: nothing to say about that one.
  const session = req.isolated
    ? undefined
    : sessionStats({
        entries: [...entries, record],
        history: { ...history, turns: [...history.turns, record] },
        model,
        ...sessionModel(history, deps),
        promptChars: systemPrompt.length + toolChars,
      });
  // A turn the budget stopped shows as failed (the dashboard, the registry's last error), its note sent or not.
  const failure = record.failed ?? (overBudget && !result.ok ? 'the agent’s budget is spent' : undefined);
  await sendStatus(req, deps, failure ? 'failed' : 'ended', failure, timing, answered, session).catch((err) => log.warn('status not sent', errorFields(err)));
  const fields = { model: model.label, ms: deps.clock.now() - started, messages: result.messages.length };
  if (overBudget) {
    log.info(answered ? 'turn stopped: the budget is spent; the asker was told' : 'scheduled turn skipped: the budget is spent', fields);
    return answered ? 'replied' : 'silent';
  }
  if (record.failed) {
    log.error('turn failed; told the asker', { ...fields, error: record.failed });
    return 'failed';
  }
  log.info(answered ? 'turn answered' : 'turn ended without an answer', fields);
  return answered ? 'replied' : 'silent';
}

/** /model: shows the session's model, or switches it to another of the agent's configured models. The model is not asked. */
async function modelCommand(req: TurnRequest, args: string, entries: TranscriptEntry[], deps: TurnDeps): Promise<TurnOutcome> {
  const refs = deps.models?.refs ?? [];
  const current = historyOf(entries).model ?? refs[0] ?? deps.model.label;
  const wanted = args.trim();
  const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input };
  if (wanted === '') {
    record.reply = `Model for this session: ${current}.${refs.length > 1 ? ` Configured: ${refs.join(', ')}. Switch with /model <name>.` : ''}`;
  } else if (!refs.includes(wanted)) {
    record.reply = `"${wanted}" is not one of this agent's models${refs.length > 0 ? `: ${refs.join(', ')}` : ''}.`;
  } else {
    record.model = wanted;
    record.reply = `Model for this session: ${wanted}.`;
  }
  await deps.transcripts.append(req.sessionKey, record);
  await sendAnswer(req, record, deps);
  await sendCommandStatus(req, [...entries, record], deps);
  return 'replied';
}

/** /think [level]: shows or sets the thinking level this session's turns ask for (of models that can reason). */
async function thinkCommand(req: TurnRequest, args: string, entries: TranscriptEntry[], deps: TurnDeps): Promise<TurnOutcome> {
  const wanted = args.trim().toLowerCase();
  const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input };
  const levels = THINKING_LEVELS.join(', ');
  if (wanted === '') {
    record.reply = `Thinking for this session: ${historyOf(entries).think ?? 'off'} (${levels}).`;
  } else if (!(THINKING_LEVELS as readonly string[]).includes(wanted)) {
    record.reply = `"${wanted}" is not a thinking level: ${levels}.`;
  } else {
    record.think = wanted as ThinkingLevel;
    record.reply = `Thinking for this session: ${wanted}${wanted === 'off' ? '' : ' (for models that can reason; others answer as before or refuse it)'}.`;
  }
  await deps.transcripts.append(req.sessionKey, record);
  await sendAnswer(req, record, deps);
  await sendCommandStatus(req, [...entries, record], deps);
  return 'replied';
}

/** A command that answers and may record a setting (/voice): appended, answered and reported as /model is. */
async function settingCommand(req: TurnRequest, record: TurnRecord, entries: TranscriptEntry[], deps: TurnDeps): Promise<TurnOutcome> {
  await deps.transcripts.append(req.sessionKey, record);
  await sendAnswer(req, record, deps);
  await sendCommandStatus(req, [...entries, record], deps);
  return 'replied';
}

/**
 * What a tool call's start feeds: the progress stream's status (progress streaming), and where the
 * chat shows status reactions (#31) a `tool` status for the first call of the attempt only (the
 * reaction moves forward only, so later calls would change nothing). Undefined when neither.
 */
function toolStarts(
  req: TurnRequest,
  stream: ReturnType<typeof startTurnStream>,
  firstTool: (name: string) => void,
): ((c: { name: string; said: string }) => void) | undefined {
  if (!req.reportTools) return stream.onToolStart && ((c) => stream.onToolStart!(c.name, c.said));
  let reported = false;
  return (c) => {
    stream.onToolStart?.(c.name, c.said);
    if (reported) return;
    reported = true;
    firstTool(c.name);
  };
}

/** The model a session's turns use: its /model choice while that is still configured, else the agent's own. */
function sessionModel(history: SessionHistory, deps: Pick<TurnDeps, 'models' | 'model'>): { ref: string; chosen: boolean } {
  const chosen = history.model !== undefined && (deps.models?.refs.includes(history.model) ?? false);
  return { ref: chosen ? history.model! : (deps.models?.refs[0] ?? deps.model.label), chosen };
}

/**
 * After /new, /model or /think: the session's stats as they now stand (a fresh session, another
 * model), so /status says so before the next turn. Best effort, as every status.
 */
async function sendCommandStatus(req: TurnRequest, entries: TranscriptEntry[], deps: TurnDeps): Promise<void> {
  const history = historyOf(entries);
  const { ref, chosen } = sessionModel(history, deps);
  const session = sessionStats({ entries, history, model: chosen ? deps.models!.forRef(ref) : deps.model, ref, chosen });
  await sendStatus(req, deps, 'ended', undefined, undefined, true, session).catch((err) => deps.log.warn('status not sent', errorFields(err)));
}

/**
 * A message that never got through (`attempts` earlier attempts died with the process, or
 * this is the queue's last receive): answer with what happened instead of trying again, so
 * the asker is told rather than the message vanishing into the DLQ. A turn that did
 * complete is re-sent.
 */
export async function giveUpTurn(req: TurnRequest, deps: TurnDeps, attempts: number): Promise<'resent' | 'failed'> {
  let entries: TranscriptEntry[];
  try {
    entries = await deps.transcripts.entries(req.sessionKey);
  } catch (err) {
    if (err instanceof WorkspacePathError) return unrecordedFailure(req, deps, `this session's transcript cannot be used: ${err.message}`);
    throw err;
  }
  const done = entries.find((e): e is TurnRecord => e.kind !== 'compaction' && e.inboundId === req.inboundId);
  if (done) {
    await sendAnswer(req, done, deps);
    return 'resent';
  }
  const record: TurnRecord = {
    inboundId: req.inboundId,
    ts: deps.clock.now(),
    input: req.input,
    messages: [],
    failed:
      attempts > 0
        ? `working on it stopped this agent ${attempts} time${attempts === 1 ? '' : 's'}, so it was set aside`
        : 'it was handed out too often without a turn finishing, so it was set aside',
  };
  await deps.transcripts.append(req.sessionKey, record);
  await sendAnswer(req, record, deps);
  await sendStatus(req, deps, 'failed', record.failed).catch((err) => deps.log.warn('status not sent', errorFields(err)));
  return 'failed';
}

/**
 * A turn that cannot even be recorded (its transcript is not a regular file): the asker is
 * told why, and nothing is written. The message is then done with, so no redelivery needs
 * the record that would have recognised it.
 */
async function unrecordedFailure(req: TurnRequest, deps: TurnDeps, why: string): Promise<'failed'> {
  const record: TurnRecord = { inboundId: req.inboundId, ts: deps.clock.now(), input: req.input, failed: why };
  await sendAnswer(req, record, deps);
  await sendStatus(req, deps, 'failed', why).catch((err) => deps.log.warn('status not sent', errorFields(err)));
  deps.log.error('turn failed before it started; told the asker', { envelopeId: req.inboundId, sessionKey: req.sessionKey, error: why });
  return 'failed';
}

/** The turn's messages with each image replaced by a word, for the transcript. */
function withoutImages(messages: Message[]): Message[] {
  return messages.map((m) =>
    m.role === 'user' && Array.isArray(m.content)
      ? { ...m, content: m.content.map((c) => (c.type === 'image' ? { type: 'text' as const, text: '[image]' } : c)) }
      : m,
  );
}

function failureText(error: string): string {
  return `⚠️ I could not answer that message (${error}). Please try again in a moment.`;
}

/** Built only from the request and the record, so a re-sent answer is byte-identical to the first. */
/** The answer a record gives, built from the request and the record alone, so a re-sent answer is byte-identical (the OpenClaw bridge's too). */
export function answerEnvelope(
  req: TurnRequest,
  record: Pick<TurnRecord, 'reply' | 'failed' | 'ts' | 'buttons' | 'blocks' | 'voice'>,
  agentId: string,
): OutboundEnvelope | undefined {
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

/**
 * The session of the agent's that the turn belongs to, as the control plane queued it: an
 * isolated cron run records its transcript under a session of its own, but a request it
 * makes (sessions_send) comes from the job's session, which is what its inbound names.
 */
function agentSession(req: TurnRequest): string {
  return req.answer.kind === 'reply' ? req.answer.sessionKey : req.sessionKey;
}

async function sendAnswer(req: TurnRequest, record: TurnRecord, deps: TurnDeps): Promise<boolean> {
  const envelope = answerEnvelope(req, record, deps.agentId);
  if (envelope) await deps.outbox.send(envelope);
  return envelope !== undefined;
}

/** A turn's status envelope (the dashboard's turn events), for the native turn and the OpenClaw bridge alike. */
export async function sendStatus(
  req: TurnRequest,
  deps: Pick<TurnDeps, 'outbox' | 'agentId' | 'clock'>,
  turn: 'started' | 'tool' | 'ended' | 'failed',
  error?: string,
  timing?: { queueWaitMs?: number; modelMs: number; toolMs: number },
  /** On ended: whether a reply went out (false lets the control plane clear the ack itself). */
  replied?: boolean,
  /** The session's length, context use and model after the turn (protocol 4), for /status. */
  session?: SessionStats,
  /** On tool (protocol 7): the first tool the turn called. */
  tool?: string,
): Promise<void> {
  await deps.outbox.send({
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
  });
}
